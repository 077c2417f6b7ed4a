package controllers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// RouteReconciler writes the parent status of the routes of one kind (HTTPRoute, GRPCRoute,
// TLSRoute, TCPRoute, UDPRoute) for their Gantry Gateways: Accepted, ResolvedRefs, and the
// Rendered condition the Gateway reconciler decided for the objects the route's templates
// render. Those objects belong to the Gateway reconciler, which renders them with the Gateway.
type RouteReconciler struct {
	Client       client.Client
	kind         routeKind
	statusWrites statusWrites
	parents      *routeParents
	// board holds what the Gateway reconciler decided about each route's objects.
	board *routeBoard
}

// Reconcile sets one status.parents entry per parentRef to a Gateway of a Gantry class, and
// leaves other controllers' entries alone.
func (r *RouteReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	defer observe(strings.ToLower(r.kind.kind), time.Now())
	route := r.kind.object()
	if err := r.Client.Get(ctx, req.NamespacedName, route); err != nil {
		if apierrors.IsNotFound(err) && r.board != nil {
			r.board.forget(desired.RouteKey{Kind: r.kind.kind, NamespacedName: req.NamespacedName})
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	next := route.DeepCopyObject().(client.Object)
	live, st := desired.RouteStatus(route), desired.RouteStatus(next)
	// Never nil: status.parents is required, and a nil list would patch it away.
	parents := []gwv1.RouteParentStatus{}
	for _, p := range live.Parents {
		if p.ControllerName != v1alpha1.ControllerName {
			parents = append(parents, p)
		}
	}
	resolved, err := backendsResolved(ctx, r.Client, route)
	if err != nil {
		return ctrl.Result{}, err
	}
	for _, pr := range desired.ParentRefs(route) {
		in, err := r.parents.parentInput(ctx, route.GetNamespace(), pr)
		if err != nil {
			return ctrl.Result{}, err
		}
		if in == nil {
			continue
		}
		_, results, _ := desired.AttachRoutes(in, []client.Object{desired.WithParentRef(route, pr)})
		ps := gwv1.RouteParentStatus{ParentRef: pr, ControllerName: v1alpha1.ControllerName}
		if prev := findParent(live.Parents, pr); prev != nil {
			// A copy: SetStatusCondition changes conditions in place, and the live status must
			// stay what it is to tell whether anything changed.
			ps.Conditions = slices.Clone(prev.Conditions)
		}
		accepted := metav1.Condition{Type: string(gwv1.RouteConditionAccepted), Status: metav1.ConditionTrue, ObservedGeneration: route.GetGeneration()}
		if len(results) == 1 {
			accepted.Reason, accepted.Message = string(results[0].Reason), results[0].Message
			if !results[0].Accepted {
				accepted.Status = metav1.ConditionFalse
			}
		}
		meta.SetStatusCondition(&ps.Conditions, accepted)
		meta.SetStatusCondition(&ps.Conditions, resolved)
		if r.board != nil {
			key := desired.RouteKey{Kind: r.kind.kind, NamespacedName: req.NamespacedName}
			if o, ok := r.board.get(key, client.ObjectKeyFromObject(in.Gateway)); ok && accepted.Status == metav1.ConditionTrue {
				meta.SetStatusCondition(&ps.Conditions, o.condition())
			} else if accepted.Status != metav1.ConditionTrue {
				meta.RemoveStatusCondition(&ps.Conditions, ConditionRouteRendered) // nothing is rendered for a route not accepted
			}
		}
		parents = append(parents, ps)
	}
	st.Parents = parents
	if equality.Semantic.DeepEqual(live, st) || len(live.Parents) == 0 && len(parents) == 0 {
		return ctrl.Result{}, nil
	}
	return requeueIfBehind(ctrl.Result{}, r.statusWrites.patch(ctx, r.Client, route, next))
}

// routeParents reads what deciding a route's attachment to its parents needs.
type routeParents struct {
	Client client.Client
	// listenerSets: the API server serves ListenerSets.
	listenerSets bool
}

// backendsResolved is a route's ResolvedRefs condition, the same for every parent: whether
// each backendRef is a Service that exists and that the route may refer to. Services are read
// from a metadata-only cache: existence is all that is asked.
func backendsResolved(ctx context.Context, c client.Client, route client.Object) (metav1.Condition, error) {
	cond := metav1.Condition{Type: string(gwv1.RouteConditionResolvedRefs), Status: metav1.ConditionTrue, Reason: string(gwv1.RouteReasonResolvedRefs),
		Message: "every backendRef resolves", ObservedGeneration: route.GetGeneration()}
	grants, err := referenceGrants(ctx, c, desired.RouteBackendNamespaces(route))
	if err != nil {
		return cond, err
	}
	var lookupErr error
	exists := func(key types.NamespacedName) bool {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
		err := c.Get(ctx, key, m)
		if err != nil && !apierrors.IsNotFound(err) && lookupErr == nil {
			lookupErr = fmt.Errorf("get Service %s: %w", key, err)
		}
		return err == nil
	}
	reason, msg := desired.RouteBackendRefs(route, exists, grants)
	if lookupErr != nil {
		return cond, lookupErr
	}
	if reason != "" {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, string(reason), msg
	}
	return cond, nil
}

// parentInput gathers what deciding a route's attachment through one parentRef reads: the
// Gateway it names, or for a ListenerSet the ListenerSet's parent Gateway with its
// ListenerSets and what they read. It is nil when the parent does not exist or is not of a
// Gantry class.
func (r *routeParents) parentInput(ctx context.Context, routeNamespace string, pr gwv1.ParentReference) (*desired.Input, error) {
	key, isSet := desired.ListenerSetRef(pr, routeNamespace)
	if !isSet {
		if pr.Group != nil && *pr.Group != gwv1.GroupName || pr.Kind != nil && *pr.Kind != "Gateway" {
			return nil, nil
		}
		key = types.NamespacedName{Namespace: routeNamespace, Name: string(pr.Name)}
		if pr.Namespace != nil {
			key.Namespace = string(*pr.Namespace)
		}
		gw, class, err := r.gantryGateway(ctx, key)
		if err != nil || gw == nil {
			return nil, err
		}
		// The blueprint says which protocols and route kinds the listeners accept.
		in := &desired.Input{Gateway: gw, Class: class}
		if in.Blueprint, err = r.blueprintOf(ctx, class); err != nil {
			return nil, err
		}
		if needsNamespaceLabels(gw) {
			ns := &corev1.Namespace{}
			if err := r.Client.Get(ctx, client.ObjectKey{Name: routeNamespace}, ns); err == nil {
				in.NamespaceLabels = map[string]map[string]string{ns.Name: ns.Labels}
			}
		}
		return in, nil
	}
	if !r.listenerSets {
		return nil, nil // no ListenerSet exists to attach through
	}
	ls := &gwv1.ListenerSet{}
	if err := r.Client.Get(ctx, key, ls); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if ref := ls.Spec.ParentRef; ref.Group != nil && *ref.Group != gwv1.GroupName || ref.Kind != nil && *ref.Kind != "Gateway" {
		return nil, nil
	}
	gw, class, err := r.gantryGateway(ctx, desired.ParentGateway(ls))
	if err != nil || gw == nil {
		return nil, err
	}
	in := &desired.Input{Gateway: gw, Class: class}
	if in.Blueprint, err = r.blueprintOf(ctx, class); err != nil {
		return nil, err
	}
	if err := gatherListenerSets(ctx, r.Client, gw, in, r.listenerSets); err != nil {
		return nil, err
	}
	if err := gatherRefs(ctx, r.Client, gw, in); err != nil {
		return nil, err
	}
	return in, gatherNamespaceLabels(ctx, r.Client, gw, in)
}

// blueprintOf is the blueprint a Gantry class names, nil when it names none or it does not
// exist.
func (r *routeParents) blueprintOf(ctx context.Context, class *gwv1.GatewayClass) (*v1alpha1.GatewayClassBlueprint, error) {
	name, err := desired.BlueprintName(class)
	if err != nil {
		return nil, nil
	}
	bp := &v1alpha1.GatewayClassBlueprint{}
	switch err := r.Client.Get(ctx, client.ObjectKey{Name: name}, bp); {
	case err == nil:
		return bp, nil
	case !apierrors.IsNotFound(err):
		return nil, err
	}
	return nil, nil
}

// gantryGateway returns a Gateway and its class when the class is Gantry's.
func (r *routeParents) gantryGateway(ctx context.Context, key types.NamespacedName) (*gwv1.Gateway, *gwv1.GatewayClass, error) {
	gw := &gwv1.Gateway{}
	if err := r.Client.Get(ctx, key, gw); err != nil {
		return nil, nil, client.IgnoreNotFound(err)
	}
	class := &gwv1.GatewayClass{}
	if err := r.Client.Get(ctx, client.ObjectKey{Name: string(gw.Spec.GatewayClassName)}, class); err != nil {
		return nil, nil, client.IgnoreNotFound(err)
	}
	if class.Spec.ControllerName != v1alpha1.ControllerName {
		return nil, nil, nil
	}
	return gw, class, nil
}

func findParent(ps []gwv1.RouteParentStatus, pr gwv1.ParentReference) *gwv1.RouteParentStatus {
	for i := range ps {
		if ps[i].ControllerName == v1alpha1.ControllerName && equality.Semantic.DeepEqual(ps[i].ParentRef, pr) {
			return &ps[i]
		}
	}
	return nil
}
