package controllers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/precedence"
	"gantry.dev/gantry/render"
)

// conflictRecheck is how often a Gateway blocked by an object that is not its own looks again.
const conflictRecheck = 10 * time.Second

// Finalizer is set on a Gateway that rendered cluster-scoped objects, which no owner
// reference can clean up.
const Finalizer = "gateway.gantry.dev/cluster-resources"

// GatewayReconciler renders and applies each Gateway of a Gantry class.
type GatewayReconciler struct {
	Client client.Client
	// APIReader reads past the cache, to see objects Gantry does not watch before writing them.
	APIReader           client.Reader
	ControllerNamespace string
	// RenderLimits bound each render.
	RenderLimits render.Limits
	Recorder     events.EventRecorder

	// outputs remembers render outputs: a reconcile whose render input did not change (a
	// resync, a policy edit that leaves this Gateway's values alone) does not render again.
	outputs      *render.OutputMemory
	mapper       meta.RESTMapper
	tracker      *tracker
	routes       *routeBoard
	blueprints   *blueprintCache
	board        *board
	statusWrites statusWrites
	// policies receives the policies a Gateway gathered, so their status is recomputed.
	policies chan<- event.GenericEvent
	// listenerSets: the API server serves ListenerSets.
	listenerSets bool
	// routeKinds are the route kinds beside HTTPRoute the API server serves.
	routeKinds []routeKind
	// kindRechecks holds, per Gateway whose render needs a kind not served, the last wait
	// before looking again (kindRecheck).
	kindRechecks sync.Map
	// accepted remembers, per Gateway, the generation of each contribution (ListenerSet, route)
	// of its last accepted apply: when the API server refuses the Gateway's objects, what is
	// new or changed since is searched first (isolateRefusal).
	accepted contributions
	// careful holds the units whose last create was refused (create.go).
	careful careful
}

// contributions is GatewayReconciler.accepted.
type contributions struct {
	mu sync.Mutex
	m  map[types.NamespacedName]map[string]int64
}

// contributionKey names a ListenerSet or a route.
func contributionKey(kind string, o client.Object) string {
	return kind + " " + o.GetNamespace() + "/" + o.GetName()
}

// record notes the contributions of an accepted apply of gw.
func (c *contributions) record(gw types.NamespacedName, in *desired.Input) {
	seen := map[string]int64{}
	for _, ls := range in.ListenerSets {
		if _, apart := in.SetApart[ls.Namespace]; !apart {
			seen[contributionKey("ListenerSet", ls)] = ls.Generation
		}
	}
	for _, rt := range desired.AllRoutes(in.Routes, in.OtherRoutes) {
		if _, apart := in.SetApart[rt.GetNamespace()]; !apart {
			seen[contributionKey(desired.RouteKindOf(rt), rt)] = rt.GetGeneration()
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[types.NamespacedName]map[string]int64{}
	}
	c.m[gw] = seen
}

// forget drops what is known of a Gateway that is gone.
func (c *contributions) forget(gw types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, gw)
}

// suspects orders the namespaces cands: those with a contribution that is new or changed since
// gw's last accepted apply first, then the others; within each, the one whose newest
// contribution is newest first, then by name. Before any accepted apply (a restart), every
// namespace is a suspect.
func (c *contributions) suspects(gw types.NamespacedName, in *desired.Input, cands []string) []string {
	c.mu.Lock()
	known := c.m[gw]
	c.mu.Unlock()
	changed := map[string]bool{}
	newest := map[string]int64{}
	note := func(kind string, o client.Object, gen int64) {
		ns := o.GetNamespace()
		if g, ok := known[contributionKey(kind, o)]; !ok || g != gen {
			changed[ns] = true
		}
		newest[ns] = max(newest[ns], o.GetCreationTimestamp().UnixNano())
	}
	for _, ls := range in.ListenerSets {
		note("ListenerSet", ls, ls.Generation)
	}
	for _, rt := range desired.AllRoutes(in.Routes, in.OtherRoutes) {
		note(desired.RouteKindOf(rt), rt, rt.GetGeneration())
	}
	out := slices.Clone(cands)
	slices.SortStableFunc(out, func(a, b string) int {
		switch {
		case changed[a] != changed[b]:
			if changed[a] {
				return -1
			}
			return 1
		case newest[a] != newest[b]:
			return cmp.Compare(newest[b], newest[a])
		}
		return strings.Compare(a, b)
	})
	return out
}

// Reconcile computes the Gateway's whole desired state and makes the cluster match it.
func (r *GatewayReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	defer observe("gateway", time.Now())
	return requeueIfBehind(r.reconcile(ctx, req))
}

func (r *GatewayReconciler) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	gw := &gwv1.Gateway{}
	if err := r.Client.Get(ctx, req.NamespacedName, gw); err != nil {
		if apierrors.IsNotFound(err) {
			r.accepted.forget(req.NamespacedName)
			r.notifyRefs(ctx, r.board.forget(req.NamespacedName, true))
			// Owner references let the garbage collector remove namespaced objects; remove
			// them here too, so that nothing lingers where no collector runs.
			r.kindRechecks.Delete(req.NamespacedName)
			return ctrl.Result{}, r.removeAll(ctx, req.NamespacedName, nil)
		}
		return ctrl.Result{}, err
	}
	g, err := r.gather(ctx, gw)
	if err != nil {
		return ctrl.Result{}, err
	}
	// Rendered objects go only when the Gateway goes or has moved to another controller's
	// class; a class that is missing or being deleted removes nothing.
	if g.class == classOther || !gw.DeletionTimestamp.IsZero() {
		r.accepted.forget(req.NamespacedName)
		r.notifyRefs(ctx, r.board.forget(req.NamespacedName, false))
		if err := r.removeAll(ctx, req.NamespacedName, g.owned); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, r.dropFinalizer(ctx, gw)
	}
	if g.class != classOurs {
		return ctrl.Result{}, r.classUnavailable(ctx, gw, g)
	}
	res, err := desired.Gateway(g.in)
	if err != nil {
		r.board.attempted(req.NamespacedName)
		if de := (*desired.Error)(nil); errors.As(err, &de) && len(de.Broken) > 0 && res != nil {
			// The policies whose values break the schema say so in their own status.
			r.notifyRefs(ctx, r.board.breaks(req.NamespacedName, res.Values, de.Broken))
		}
		r.notifyPolicies(ctx, g.in)
		r.gatewayFailedRoutes(ctx, gw, g.in, desired.ReasonRenderFailed)
		var again ctrl.Result
		if g.kindMissing.Load() {
			// A kind whose CRD is not installed yet: nothing the controller watches tells it
			// when it is, so it looks again, less and less often (the workqueue's backoff
			// would start at milliseconds).
			again.RequeueAfter = r.kindRecheck(req.NamespacedName)
		} else {
			r.kindRechecks.Delete(req.NamespacedName)
		}
		return again, r.failed(ctx, gw, g.in, err, g.owned)
	}
	r.kindRechecks.Delete(req.NamespacedName)
	results := []*precedence.Result{res.Values}
	for _, rt := range res.Routes {
		results = append(results, rt.Values)
	}
	// The policies the Gateway had outcomes for, too: one it no longer reaches must drop it.
	r.notifyRefs(ctx, r.board.record(req.NamespacedName, results...))
	r.notifyPolicies(ctx, g.in)
	// The API server may refuse the Gateway's own objects for what another namespace
	// contributes (a ListenerSet's port the blueprint's Service then lists twice). Then the
	// namespace whose contributions it refuses is searched for with dry-runs only (nothing is
	// written while searching), set apart, and the apply made again without it. If no one
	// namespace is to blame, the failure stands as the Gateway's.
	var (
		objs      []*unstructured.Unstructured
		applied   []objectKey
		taken     []string
		routeErrs map[desired.RouteKey]error
	)
	first, firstIn := res, g.in
	var firstErr error
	for round := 0; round < 2; round++ {
		var clusterScoped bool
		if objs, clusterScoped, err = r.toApply(gw, desired.AllRoutes(g.in.Routes, g.in.OtherRoutes), res.Objects); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.recordKinds(ctx, g.in.Blueprint, objs); err != nil {
			return ctrl.Result{}, err
		}
		if clusterScoped && !controllerutil.ContainsFinalizer(gw, Finalizer) {
			patch := client.MergeFrom(gw.DeepCopy())
			controllerutil.AddFinalizer(gw, Finalizer)
			if err := r.Client.Patch(ctx, gw, patch); err != nil {
				return ctrl.Result{}, fmt.Errorf("add finalizer: %w", err)
			}
		}
		applied, taken, routeErrs, err = r.apply(ctx, gw, objs, ownersOf(res), g.owned)
		if round == 0 {
			firstErr = err
		}
		if err == nil || round > 0 || !contentRefused(err) {
			break
		}
		next, ok := r.isolateRefusal(ctx, gw, g.in, res)
		if !ok {
			break
		}
		g.in, res = next.in, next.res
	}
	if err != nil && res != first {
		res, g.in, err = first, firstIn, firstErr // set apart for nothing: the Gateway's own failure
	}
	if err == nil {
		r.accepted.record(req.NamespacedName, g.in)
	}
	r.countKinds(appliedTotal, applied)
	if len(applied) > 0 {
		r.event(gw, corev1.EventTypeNormal, "Applied", "Apply", "applied %s", summary(applied))
	}
	if err != nil {
		var c conflicts
		if errors.As(err, &c) {
			r.gatewayFailedRoutes(ctx, gw, g.in, ReasonObjectExists)
			// The object in the way is not Gantry's, so no watch reports when it goes: look again.
			return ctrl.Result{RequeueAfter: conflictRecheck}, r.writeStatus(ctx, gw, g.in, res, statusError{reason: ReasonObjectExists, err: err, also: []metav1.Condition{healthCondition(gw.Generation, g.owned)}})
		}
		r.gatewayFailedRoutes(ctx, gw, g.in, ReasonApplyFailed)
		if serr := r.writeStatus(ctx, gw, g.in, res, statusError{reason: ReasonApplyFailed, err: err, also: []metav1.Condition{healthCondition(gw.Generation, g.owned)}}); serr != nil {
			log.FromContext(ctx).Error(serr, "write status after a failed apply")
		}
		return ctrl.Result{}, err
	}
	pruned, err := r.prune(ctx, objs, g.owned, keepTemplates(g.in, res, routeErrs))
	r.countKinds(prunedTotal, pruned)
	if len(pruned) > 0 {
		r.event(gw, corev1.EventTypeNormal, "Pruned", "Prune", "deleted %s, no longer rendered", summary(pruned))
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	r.routeOutcomes(ctx, gw, g.in, res, routeErrs)
	if len(res.Pending) > 0 {
		rendersTotal.WithLabelValues("pending").Inc()
	} else {
		rendersTotal.WithLabelValues("ok").Inc()
	}
	var result ctrl.Result
	for _, err := range routeErrs {
		if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
			// An object in a route's way is not Gantry's, so no watch reports when it goes; an
			// error that is not the object's fault may pass. Look again; a refusal waits for a
			// change of the route or its values.
			result.RequeueAfter = conflictRecheck
		}
	}
	also := []metav1.Condition{healthCondition(gw.Generation, rendered(objs, applied, g.owned)), revisionCondition(gw.Generation, g.in.Blueprint.Name, g.revision, g.latest)}
	if c, ok := fieldsTakenCondition(gw, taken, len(applied) > 0); ok {
		also = append(also, c)
	}
	return result, r.writeStatus(ctx, gw, g.in, res, statusError{also: also})
}

// rendered is what was rendered as it now is: an object this reconcile wrote as the API server
// answered the write (status included), any other as the cache holds it.
func rendered(objs []*unstructured.Unstructured, applied []objectKey, owned []*unstructured.Unstructured) []*unstructured.Unstructured {
	live := make(map[objectKey]*unstructured.Unstructured, len(owned))
	for _, o := range owned {
		live[keyOf(o)] = o
	}
	for _, k := range applied {
		delete(live, k) // written now: the API server's answer is newer than the cache
	}
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		if l, ok := live[keyOf(o)]; ok {
			out = append(out, l)
		} else {
			out = append(out, o)
		}
	}
	return out
}

// keepTemplates names the templates whose earlier objects stay although this render did not apply
// them: pending templates, and every template of a route that failed to render or to apply
// (that failure is the route's alone; its status and a Warning Event say why).
func keepTemplates(in *desired.Input, res *desired.Result, routeErrs map[desired.RouteKey]error) map[string]bool {
	keep := map[string]bool{}
	for _, p := range res.Pending {
		keep[templateOf("", "", "", desired.LabelValue(templateKey(p.Template)))] = true
	}
	for _, rt := range res.Routes {
		route := desired.LabelValue(rt.Name)
		failed := rt.Err != nil || routeErrs[desired.RouteKey{Kind: rt.Kind, NamespacedName: rt.NamespacedName}] != nil
		// A route template's cluster-scoped objects name the route's namespace in a label;
		// those rendered before that label existed name none ("").
		for _, ns := range []string{rt.Namespace, ""} {
			for _, p := range rt.Pending {
				keep[templateOf(rt.Kind, ns, route, desired.LabelValue(templateKey(p.Template)))] = true
			}
			if !failed {
				continue
			}
			for _, key := range routeTemplateKeys(in.Blueprint, rt.Kind) {
				keep[templateOf(rt.Kind, ns, route, desired.LabelValue(key))] = true
			}
		}
	}
	return keep
}

// ReasonGatewayNotRendered is a route's Rendered reason while the Gateway it attaches to does
// not render or apply: the route's objects for it are not brought up to date either.
const ReasonGatewayNotRendered = "GatewayNotRendered"

// gatewayFailedRoutes says, on every route that had an outcome for gw, that gw did not render
// or apply (reason): a route must not keep saying Rendered=True while nothing of it is applied.
// The message gives the Gateway's reason only: why is its owner's to read, in its status.
func (r *GatewayReconciler) gatewayFailedRoutes(ctx context.Context, gw *gwv1.Gateway, in *desired.Input, reason string) {
	if r.routes == nil || in == nil {
		return
	}
	key := types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}
	for _, route := range desired.AllRoutes(in.Routes, in.OtherRoutes) {
		rk := desired.RouteKey{Kind: desired.RouteKindOf(route), NamespacedName: client.ObjectKeyFromObject(route)}
		if _, ok := r.routes.get(rk, key); !ok {
			continue
		}
		o := routeOutcome{status: metav1.ConditionFalse, reason: ReasonGatewayNotRendered, generation: route.GetGeneration(),
			message: fmt.Sprintf("Gateway %s is not rendered (%s); the route's earlier objects are kept; the Gateway's owner reads why in its status", key, reason)}
		r.routes.set(ctx, route, key, o)
	}
}

// routeOutcomes decides each rendered route's Rendered condition for this Gateway, for the
// route reconcilers to write, and says a new failure in a Warning Event on the route.
func (r *GatewayReconciler) routeOutcomes(ctx context.Context, gw *gwv1.Gateway, in *desired.Input, res *desired.Result, routeErrs map[desired.RouteKey]error) {
	if r.routes == nil || in.Blueprint == nil {
		return
	}
	key := types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}
	routes := desired.AllRoutes(in.Routes, in.OtherRoutes)
	for _, rt := range res.Routes {
		if !rt.Accepted {
			continue
		}
		rk := desired.RouteKey{Kind: rt.Kind, NamespacedName: rt.NamespacedName}
		_, told := r.routes.get(rk, key)
		templated := len(routeTemplateKeys(in.Blueprint, rt.Kind)) > 0
		// A route without templates of its own kind still hears that its content was set apart
		// from the Gateway's render (.Routes, .Hostnames), and then that it is back in it.
		if !templated && rt.Err == nil && !told {
			continue
		}
		i := slices.IndexFunc(routes, func(x client.Object) bool {
			return desired.RouteKindOf(x) == rt.Kind && x.GetNamespace() == rt.Namespace && x.GetName() == rt.Name
		})
		if i < 0 {
			continue
		}
		route := routes[i]
		o := routeOutcome{status: metav1.ConditionTrue, reason: ReasonRendered, generation: route.GetGeneration(),
			message: fmt.Sprintf("the route's objects for Gateway %s are applied", key)}
		if !templated {
			o.message = fmt.Sprintf("the route is part of Gateway %s's render", key)
		}
		err, applyErr := rt.Err, routeErrs[rk]
		var c conflicts
		switch {
		case err != nil:
			o.status, o.reason = metav1.ConditionFalse, desired.ReasonRenderFailed
		case applyErr != nil && errors.As(applyErr, &c):
			o.status, o.reason, err = metav1.ConditionFalse, ReasonObjectExists, applyErr
		case applyErr != nil:
			o.status, o.reason, err = metav1.ConditionFalse, ReasonApplyFailed, applyErr
		case len(rt.Pending) > 0:
			o.status, o.reason, o.message = metav1.ConditionFalse, string(gwv1.GatewayReasonPending), truncate("waiting for objects to report status: "+fmt.Sprint(rt.Pending))
		}
		if err != nil {
			o.message = truncate(fmt.Sprintf("Gateway %s: %v; the route's earlier objects are kept", key, err))
		}
		if r.routes.set(ctx, route, key, o) && o.status == metav1.ConditionFalse && o.reason != string(gwv1.GatewayReasonPending) && r.Recorder != nil {
			r.Recorder.Eventf(route, gw, corev1.EventTypeWarning, o.reason, "Render", "%s", eventNote(o.message))
		}
	}
}

// routeTemplateKeys are the keys of the templates bp renders per route of kind, sorted.
func routeTemplateKeys(bp *v1alpha1.GatewayClassBlueprint, kind string) []string {
	if bp == nil || bp.Spec.RouteTemplateFor(kind) == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(bp.Spec.RouteTemplateFor(kind).ResourceTemplates))
}

// templateKey turns a template field path back into its resourceTemplates key.
func templateKey(field string) string {
	return field[strings.LastIndex(field, ".")+1:]
}

// failed records a Gateway whose desired state cannot be computed. Nothing is applied or
// pruned: what was there stays until the input is fixed.
func (r *GatewayReconciler) failed(ctx context.Context, gw *gwv1.Gateway, in *desired.Input, err error, owned []*unstructured.Unstructured) error {
	reason := desired.ReasonRenderFailed
	var de *desired.Error
	if errors.As(err, &de) {
		reason = de.Reason
	}
	rendersTotal.WithLabelValues("error").Inc()
	// What was rendered before stays, and its health is still worth knowing.
	return r.writeStatus(ctx, gw, in, nil, statusError{reason: reason, err: err, also: []metav1.Condition{healthCondition(gw.Generation, owned)}})
}

// removeAll deletes every object a Gateway rendered (when it is deleted or leaves Gantry).
func (r *GatewayReconciler) removeAll(ctx context.Context, key types.NamespacedName, owned []*unstructured.Unstructured) error {
	r.careful.forget(key)
	if owned == nil {
		// The Gateway is gone: its UID with it (see ownerProof).
		var err error
		if owned, err = r.tracker.owned(ctx, r.proof(ctx, key, "")); err != nil {
			return err
		}
	}
	pruned, err := r.prune(ctx, nil, owned, nil)
	r.countKinds(prunedTotal, pruned)
	return err
}

func (r *GatewayReconciler) dropFinalizer(ctx context.Context, gw *gwv1.Gateway) error {
	if !controllerutil.ContainsFinalizer(gw, Finalizer) {
		return nil
	}
	// Wait until the cluster-scoped objects are really gone before letting the Gateway go.
	owned, err := r.tracker.owned(ctx, r.proof(ctx, types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}, gw.UID))
	if err != nil {
		return err
	}
	for _, o := range owned {
		// A kept object stays by request, also when its Gateway goes; it must not hold the
		// Gateway's deletion up.
		if o.GetNamespace() == "" && o.GetAnnotations()[v1alpha1.AnnotationKeep] != "true" {
			// The delete was sent; its watch event is on the way.
			return fmt.Errorf("waiting for %s to be deleted: %w", keyOf(o), errCacheBehind)
		}
	}
	patch := client.MergeFrom(gw.DeepCopy())
	controllerutil.RemoveFinalizer(gw, Finalizer)
	return client.IgnoreNotFound(r.Client.Patch(ctx, gw, patch))
}

// recordKinds adds kinds the blueprint renders for the first time to its status, then watches
// them — before anything of that kind is created, so that no object can go untracked.
func (r *GatewayReconciler) recordKinds(ctx context.Context, bp *v1alpha1.GatewayClassBlueprint, objs []*unstructured.Unstructured) error {
	known := map[v1alpha1.GroupVersionKind]bool{}
	for _, k := range bp.Status.RenderedKinds {
		known[k] = true
	}
	var rendered, added []schema.GroupVersionKind
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		rendered = append(rendered, gvk)
		k := v1alpha1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}
		if !known[k] {
			known[k] = true
			added = append(added, gvk)
		}
	}
	// Every rendered kind, not only the new ones: a recorded kind that was not served when
	// the process started is watched once it is rendered again.
	if err := r.tracker.watch(ctx, rendered...); err != nil {
		return err
	}
	if len(added) == 0 {
		return nil
	}
	// Gateways of one blueprint render concurrently and may all find the same new kind: merge
	// into the blueprint as the API server has it now, and retry on a conflict.
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		fresh := &v1alpha1.GatewayClassBlueprint{}
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(bp), fresh); err != nil {
			return err
		}
		all := map[v1alpha1.GroupVersionKind]bool{}
		for _, k := range fresh.Status.RenderedKinds {
			all[k] = true
		}
		missing := false
		for k := range known {
			missing = missing || !all[k]
			all[k] = true
		}
		if !missing {
			return nil
		}
		patch := client.MergeFromWithOptions(fresh.DeepCopy(), client.MergeFromWithOptimisticLock{})
		fresh.Status.RenderedKinds = slices.SortedFunc(maps.Keys(all), func(a, b v1alpha1.GroupVersionKind) int {
			return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Version, b.Version))
		})
		if err := r.Client.Status().Patch(ctx, fresh, patch); err != nil {
			return fmt.Errorf("record rendered kinds on GatewayClassBlueprint %s: %w", bp.Name, err)
		}
		return nil
	})
}

// notifyPolicies asks the policy status controllers to look again at the policies this
// Gateway gathered.
func (r *GatewayReconciler) notifyPolicies(ctx context.Context, in *desired.Input) {
	for _, p := range in.GatewayClassConfigs {
		r.notify(ctx, p)
	}
	for _, p := range in.GatewayConfigs {
		r.notify(ctx, p)
	}
	if in.Parameters != nil {
		// spec.infrastructure.parametersRef's GatewayConfig, which may target something else.
		r.notify(ctx, in.Parameters)
	}
}

// notifyRefs does the same for policies known by reference only (those the board forgot).
func (r *GatewayReconciler) notifyRefs(ctx context.Context, refs []precedence.Ref) {
	for _, ref := range refs {
		om := metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}
		if ref.Kind == precedence.KindGatewayClassConfig {
			r.notify(ctx, &v1alpha1.GatewayClassConfig{ObjectMeta: om})
		} else {
			r.notify(ctx, &v1alpha1.GatewayConfig{ObjectMeta: om})
		}
	}
}

func (r *GatewayReconciler) notify(ctx context.Context, o client.Object) {
	if r.policies == nil {
		return
	}
	select {
	case r.policies <- event.GenericEvent{Object: o}:
	case <-ctx.Done():
	}
}

// kindRecheck is when to look again at a Gateway whose render needs a kind the API server does
// not serve: 5 s, doubling at each miss up to 5 minutes.
func (r *GatewayReconciler) kindRecheck(key types.NamespacedName) time.Duration {
	const first, most = 5 * time.Second, 5 * time.Minute
	next := first
	if prev, ok := r.kindRechecks.Load(key); ok {
		next = min(2*prev.(time.Duration), most)
	}
	r.kindRechecks.Store(key, next)
	return next
}

func (r *GatewayReconciler) isNamespaced(gvk schema.GroupVersionKind) (bool, error) {
	m, err := r.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return false, fmt.Errorf("kind %s is not served by the API server (is its CRD installed?)", gvk)
	}
	return m.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

func (r *GatewayReconciler) countKinds(c *prometheus.CounterVec, keys []objectKey) {
	for _, k := range keys {
		c.WithLabelValues(k.Kind).Inc()
	}
}

func (r *GatewayReconciler) event(gw *gwv1.Gateway, typ, reason, action, format string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(gw, nil, typ, reason, action, "%s", eventNote(fmt.Sprintf(format, args...)))
	}
}

// maxEventNote is the most an Event's note may hold (events.k8s.io/v1): a longer one is
// refused, and the Event lost.
const maxEventNote = 1024

// eventNote is msg cut to fit an Event's note, on a character boundary, saying so.
func eventNote(msg string) string {
	if len(msg) <= maxEventNote {
		return msg
	}
	const mark = "… (truncated)"
	cut := maxEventNote - len(mark)
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + mark
}

// summary lists objects for an event, at most five by name.
func summary(keys []objectKey) string {
	names := make([]string, 0, min(len(keys), 5))
	for i, k := range keys {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(keys)-5))
			break
		}
		names = append(names, k.String())
	}
	return strings.Join(names, ", ")
}

func observe(controller string, start time.Time) {
	reconcileSeconds.WithLabelValues(controller).Observe(time.Since(start).Seconds())
}

// maxApplyIsolation bounds the dry-runs one search for a refused contribution makes.
const maxApplyIsolation = 12

// ownersOf lists the owner of each of res's objects, in order.
func ownersOf(res *desired.Result) []desired.Owner {
	owners := make([]desired.Owner, len(res.Objects))
	for i, o := range res.Objects {
		owners[i] = o.Owner // toApply keeps the order
	}
	return owners
}

// isolated is a Gateway's input with contributions set apart, and its desired state.
type isolated struct {
	in  *desired.Input
	res *desired.Result
}

// isolateRefusal finds the namespace whose contributions make the API server refuse the
// Gateway's own objects, by dry-runs only: first with every contributor set apart (if the
// objects are refused even then, no contributor is to blame), then by bisection over the
// contributors, what changed since the last accepted apply first (suspects), for the shortest
// run of them whose setting apart is enough;
// the last of that run alone is then tried. It sets apart that one namespace; if it alone is
// not enough, the shortest run. At most maxApplyIsolation dry-runs.
func (r *GatewayReconciler) isolateRefusal(ctx context.Context, gw *gwv1.Gateway, in *desired.Input, res *desired.Result) (isolated, bool) {
	cands := r.accepted.suspects(types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}, in, desired.Contributors(in, res))
	if len(cands) == 0 {
		return isolated{}, false
	}
	runs := 0
	accepted := func(apart []string) (isolated, bool) {
		if runs >= maxApplyIsolation {
			return isolated{}, false
		}
		runs++
		next := *in
		next.SetApart = maps.Clone(in.SetApart)
		if next.SetApart == nil {
			next.SetApart = map[string]string{}
		}
		for _, ns := range apart {
			next.SetApart[ns] = "the API server refused them"
		}
		nextRes, err := desired.Gateway(&next)
		if err != nil {
			return isolated{}, false
		}
		return isolated{&next, nextRes}, r.dryRunGateway(ctx, gw, &next, nextRes) == nil
	}
	all, ok := accepted(cands)
	if !ok {
		return isolated{}, false
	}
	// The shortest prefix of cands whose setting apart is enough: accepted(cands[:n]) is
	// taken to grow with n, as setting more apart can only take away what is refused.
	n := sort.Search(len(cands), func(i int) bool {
		_, ok := accepted(cands[:i+1])
		return ok
	}) + 1
	if n > len(cands) {
		return all, true
	}
	if one, ok := accepted(cands[n-1 : n]); ok {
		return one, true
	}
	if some, ok := accepted(cands[:n]); ok {
		return some, true
	}
	return all, true
}

// dryRunGateway dry-runs the Gateway's own objects of res (its unit, as apply writes it):
// nil when the API server accepts every one.
func (r *GatewayReconciler) dryRunGateway(ctx context.Context, gw *gwv1.Gateway, in *desired.Input, res *desired.Result) error {
	objs, _, err := r.toApply(gw, desired.AllRoutes(in.Routes, in.OtherRoutes), res.Objects)
	if err != nil {
		return err
	}
	owners := ownersOf(res)
	errs := make([]error, len(objs))
	var wg sync.WaitGroup
	for i, o := range objs {
		if owners[i].Kind != "Gateway" {
			continue
		}
		wg.Go(func() {
			errs[i] = r.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.DeepCopy()), client.FieldOwner(FieldManager), client.ForceOwnership, client.DryRunAll)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// contentRefused reports whether the API server refused what was sent, not whether it could be
// sent: a validation error, a bad request, or server-side apply's refusal to merge it (a list
// keyed by port with the same port twice is "failed to create typed patch object", an
// internal error to the API).
func contentRefused(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsInternalError(err) && strings.Contains(err.Error(), "failed to create typed patch object")
}
