package controllers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// SupportedBundleVersion is the Gateway API release whose CRDs Gantry is built and tested with.
const SupportedBundleVersion = "v1.6.3"

// GatewayClassReconciler accepts or rejects Gantry's GatewayClasses and their blueprints.
type GatewayClassReconciler struct {
	Client       client.Client
	blueprints   *blueprintCache
	statusWrites statusWrites
	// listenerSets: the API server serves ListenerSets, so Gantry supports them.
	listenerSets bool
	// routeKinds are the route kinds beside HTTPRoute the API server serves: Gantry attaches
	// them and writes their status.
	routeKinds []routeKind
}

// Reconcile sets the class's Accepted condition: its blueprint exists and every template of it
// parses. The blueprint's own Accepted condition says the same from its side.
func (r *GatewayClassReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	defer observe("gatewayclass", time.Now())
	class := &gwv1.GatewayClass{}
	if err := r.Client.Get(ctx, req.NamespacedName, class); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if class.Spec.ControllerName != v1alpha1.ControllerName {
		return ctrl.Result{}, nil
	}
	if err := r.holdWhileUsed(ctx, class); err != nil {
		return requeueIfBehind(ctrl.Result{}, err)
	}
	if !class.DeletionTimestamp.IsZero() {
		// Going away, possibly held by its Gateways: they say so; its own status no longer matters.
		return ctrl.Result{}, nil
	}
	next := class.DeepCopy()
	gen := class.Generation
	accepted := metav1.Condition{Type: string(gwv1.GatewayClassConditionStatusAccepted), Status: metav1.ConditionTrue, Reason: string(gwv1.GatewayClassReasonAccepted), ObservedGeneration: gen}
	name, err := desired.BlueprintName(class)
	if err == nil {
		bp := &v1alpha1.GatewayClassBlueprint{}
		switch gerr := r.Client.Get(ctx, client.ObjectKey{Name: name}, bp); {
		case apierrors.IsNotFound(gerr):
			err = fmt.Errorf("GatewayClassBlueprint %s does not exist", name)
		case gerr != nil:
			return ctrl.Result{}, gerr
		default:
			_, cerr := r.blueprints.compile(bp)
			if cerr != nil {
				err = cerr
			} else {
				accepted.Message = fmt.Sprintf("GatewayClassBlueprint %s: every template parses", name)
			}
			if c := rolloutCondition(gen, bp); c != nil {
				meta.SetStatusCondition(&next.Status.Conditions, *c)
			} else {
				meta.RemoveStatusCondition(&next.Status.Conditions, ConditionRollout)
			}
			if serr := r.blueprintStatus(ctx, bp, cerr); serr != nil {
				return requeueIfBehind(ctrl.Result{}, serr)
			}
		}
	}
	if err != nil {
		accepted.Status, accepted.Reason, accepted.Message = metav1.ConditionFalse, string(gwv1.GatewayClassReasonInvalidParameters), err.Error()
	}
	if note := desired.BlueprintGroupNote(class); note != "" {
		// Said whether or not the blueprint is found: "does not exist" alone would leave the
		// reader wondering which group was looked in.
		accepted.Message += "; " + note
	}
	accepted.Message = truncate(accepted.Message)
	meta.SetStatusCondition(&next.Status.Conditions, accepted)
	meta.SetStatusCondition(&next.Status.Conditions, metav1.Condition{
		Type: string(gwv1.GatewayClassConditionStatusSupportedVersion), Status: metav1.ConditionTrue, ObservedGeneration: gen,
		Reason: string(gwv1.GatewayClassReasonSupportedVersion), Message: "Gantry supports Gateway API " + SupportedBundleVersion,
	})
	next.Status.SupportedFeatures = supportedFeatures(r.listenerSets, r.routeKinds)
	if err := r.affected(ctx, next); err != nil {
		return ctrl.Result{}, err
	}
	if equality.Semantic.DeepEqual(class.Status, next.Status) {
		return ctrl.Result{}, nil
	}
	return requeueIfBehind(ctrl.Result{}, r.statusWrites.patch(ctx, r.Client, class, next))
}

// holdWhileUsed keeps Gateway API's gateway-exists finalizer on the class exactly while
// Gateways name it, as the GatewayClass API asks: deleting a class in use then waits for its
// Gateways, instead of leaving them without one. The Gateways are listed from the cache, which
// may miss one created a moment ago; a Gateway that finds its class gone keeps its objects
// anyway (classMissing), so the finalizer is a courtesy to the admin, not the only guard.
func (r *GatewayClassReconciler) holdWhileUsed(ctx context.Context, class *gwv1.GatewayClass) error {
	l := &gwv1.GatewayList{}
	if err := r.Client.List(ctx, l, client.MatchingFields{indexClass: class.Name}); err != nil {
		return fmt.Errorf("list the Gateways of GatewayClass %s: %w", class.Name, err)
	}
	used := len(l.Items) > 0
	held := controllerutil.ContainsFinalizer(class, gwv1.GatewayClassFinalizerGatewaysExist)
	// The API server refuses new finalizers on an object being deleted.
	if used == held || used && !class.DeletionTimestamp.IsZero() {
		return nil
	}
	// Optimistic lock: a merge patch replaces the whole finalizer list, and another
	// controller's finalizer added meanwhile must not be lost.
	patch := client.MergeFromWithOptions(class.DeepCopy(), client.MergeFromWithOptimisticLock{})
	if used {
		controllerutil.AddFinalizer(class, gwv1.GatewayClassFinalizerGatewaysExist)
	} else {
		controllerutil.RemoveFinalizer(class, gwv1.GatewayClassFinalizerGatewaysExist)
	}
	if err := r.Client.Patch(ctx, class, patch); err != nil {
		switch {
		case apierrors.IsConflict(err):
			return errCacheBehind
		case apierrors.IsNotFound(err):
			return nil // gone: nothing left to hold
		}
		return fmt.Errorf("finalizer %s on GatewayClass %s: %w", gwv1.GatewayClassFinalizerGatewaysExist, class.Name, err)
	}
	return nil
}

// affected sets GatewayClassConfigAffected from the GatewayClassConfigs targeting the class.
func (r *GatewayClassReconciler) affected(ctx context.Context, class *gwv1.GatewayClass) error {
	l := &v1alpha1.GatewayClassConfigList{}
	if err := r.Client.List(ctx, l, client.MatchingFields{indexTarget: targetKey("GatewayClass", class.Name)}); err != nil {
		return err
	}
	if len(l.Items) == 0 {
		meta.RemoveStatusCondition(&class.Status.Conditions, ConditionGatewayClassConfigAffected)
		return nil
	}
	names := make([]string, len(l.Items))
	for i, p := range l.Items {
		names[i] = p.Namespace + "/" + p.Name
	}
	slices.Sort(names) // the cache lists in no particular order; the message must not change with it
	meta.SetStatusCondition(&class.Status.Conditions, metav1.Condition{
		Type: ConditionGatewayClassConfigAffected, Status: metav1.ConditionTrue, Reason: ReasonAffected, ObservedGeneration: class.Generation,
		Message: truncate(fmt.Sprintf("targeted by GatewayClassConfig %s", strings.Join(names, ", "))),
	})
	return nil
}

// blueprintStatus sets the blueprint's Accepted condition.
func (r *GatewayClassReconciler) blueprintStatus(ctx context.Context, bp *v1alpha1.GatewayClassBlueprint, compileErr error) error {
	next := bp.DeepCopy()
	c := metav1.Condition{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", Message: "every template parses", ObservedGeneration: bp.Generation}
	if compileErr != nil {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, "Invalid", truncate(compileErr.Error())
	}
	meta.SetStatusCondition(&next.Status.Conditions, c)
	if equality.Semantic.DeepEqual(bp.Status, next.Status) {
		return nil
	}
	return r.statusWrites.patch(ctx, r.Client, bp, next)
}

// SupportedFeatures are the Gateway API features Gantry implements itself, whatever the
// blueprint: the core of the GATEWAY-HTTP conformance profile, GEP-1867's
// spec.infrastructure (labels, annotations, parametersRef) and GEP-1713's ListenerSets; and,
// for each route kind the API server serves, its attachment and status (the core of the
// GATEWAY-GRPC, -TLS, -TCP and -UDP profiles). What traffic a Gateway serves is its
// blueprint's; Gantry claims no extended data-plane feature for it.
var SupportedFeatures = []gwv1.FeatureName{"Gateway", "GatewayInfrastructure", "HTTPRoute", "ListenerSet", "ReferenceGrant"}

// supportedFeatures is status.supportedFeatures, sorted as the API asks: SupportedFeatures
// without ListenerSet when the API server does not serve it, with each route kind it serves.
func supportedFeatures(listenerSets bool, kinds []routeKind) []gwv1.SupportedFeature {
	names := slices.Clone(SupportedFeatures)
	if !listenerSets {
		names = slices.DeleteFunc(names, func(n gwv1.FeatureName) bool { return n == "ListenerSet" })
	}
	for _, k := range kinds {
		names = append(names, gwv1.FeatureName(k.kind))
	}
	slices.Sort(names)
	out := make([]gwv1.SupportedFeature, len(names))
	for i, n := range names {
		out[i] = gwv1.SupportedFeature{Name: n}
	}
	return out
}
