package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// A staged rollout (issue 23) moves a blueprint's Gateways to its latest revision in steps.
// Where it stands lives in the blueprint's status.rollout, written by rolloutReconciler alone;
// each Gateway reads it to decide which revision to render from (rolloutRevision), and its own
// status names the revision it was rendered from (ConditionBlueprintRevision). Both are in the
// API server, so a restarted controller goes on where it was.
//
// A step is taken when every Gateway of the steps taken so far renders from the latest revision
// and is healthy, Programmed and Healthy True. A Gateway whose Programmed or Healthy was False
// already before the step began does not hold it: a Gateway broken for its own reasons (a
// tenant's values, say) must not stop the platform's rollouts, and a revision is judged only on
// what it changes. The rollout stops when a Gateway of a taken step fails to render or its
// objects fail (kstatus Failed), or when the step is not healthy within the deadline.

// DefaultProgressDeadline is how long a step may take when the blueprint does not say.
const DefaultProgressDeadline = 600 * time.Second

// rolloutInterval is the least time between two evaluations of one blueprint's rollout:
// every status write of each of its Gateways asks for one.
const rolloutInterval = time.Second

// steps is the rollout's steps with the last one of 100% it always ends with.
func steps(r *v1alpha1.Rollout) []v1alpha1.RolloutStep {
	out := slices.Clone(r.Steps)
	if n := len(out); n == 0 || out[n-1].Percent == nil || *out[n-1].Percent < 100 {
		all := int32(100)
		out = append(out, v1alpha1.RolloutStep{Percent: &all})
	}
	return out
}

// orderKey orders a blueprint's Gateways for percentage steps: a hash of namespace and name,
// so the order is fixed, known in advance, and spread over namespaces.
func orderKey(namespace, name string) string {
	sum := sha256.Sum256([]byte(namespace + "/" + name))
	return hex.EncodeToString(sum[:8])
}

// selects says whether a selector step picks the Gateway; a percentage step picks none by
// selector.
func selects(s v1alpha1.RolloutStep, gw *gwv1.Gateway, nsLabels map[string]string) bool {
	if s.GatewaySelector == nil && s.NamespaceSelector == nil {
		return false
	}
	for _, pick := range []struct {
		sel *metav1.LabelSelector
		set map[string]string
	}{{s.GatewaySelector, gw.Labels}, {s.NamespaceSelector, nsLabels}} {
		if pick.sel == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pick.sel)
		if err != nil || !sel.Matches(labels.Set(pick.set)) {
			return false
		}
	}
	return true
}

// needsNamespaces says whether any step selects by namespace labels.
func needsNamespaces(r *v1alpha1.Rollout) bool {
	return slices.ContainsFunc(r.Steps, func(s v1alpha1.RolloutStep) bool { return s.NamespaceSelector != nil })
}

// reached says whether the taken steps of st reach the Gateway.
func reached(r *v1alpha1.Rollout, st *v1alpha1.RolloutStatus, gw *gwv1.Gateway, nsLabels map[string]string) bool {
	all := steps(r)
	if int(st.Step) >= len(all) {
		return true
	}
	for _, s := range all[:st.Step] {
		if selects(s, gw, nsLabels) {
			return true
		}
	}
	return st.Cutoff != "" && orderKey(gw.Namespace, gw.Name) <= st.Cutoff
}

// revisionOf is the revision the Gateway was last rendered from, as its status says; "" when
// it says none.
func revisionOf(gw *gwv1.Gateway) string {
	c := meta.FindStatusCondition(gw.Status.Conditions, ConditionBlueprintRevision)
	if c == nil {
		return ""
	}
	name, ok := strings.CutPrefix(c.Message, revisionMessagePrefix)
	if !ok {
		return ""
	}
	name, _, _ = strings.Cut(name, ",")
	return name
}

// stable is the revision Gateways not yet reached render from: the last one rolled out to all.
func stable(st *v1alpha1.RolloutStatus) string {
	if st.Phase == v1alpha1.RolloutComplete || st.From == "" {
		return st.Revision
	}
	return st.From
}

// rolloutRevision is the revision the Gateway renders from; latest is the name of the
// blueprint's current spec's revision.
func rolloutRevision(bp *v1alpha1.GatewayClassBlueprint, latest string, gw *gwv1.Gateway, nsLabels map[string]string) string {
	r, st := bp.Spec.Rollout, bp.Status.Rollout
	if r == nil || st == nil {
		return latest // all at once, or no rollout has begun: nothing to roll from
	}
	recorded := revisionOf(gw)
	switch {
	case st.Revision != latest:
		// The rollout of latest has not begun: stay where the Gateway is; a new one starts
		// where the fleet is.
		if recorded != "" {
			return recorded
		}
		return stable(st)
	case recorded == latest, st.Phase == v1alpha1.RolloutComplete:
		return latest
	case recorded != "" && recorded != st.From:
		// On a revision no one rolls out any more (a rollout stopped, then replaced): it is
		// not what the fleet runs, so it takes the latest at once.
		return latest
	case reached(r, st, gw, nsLabels):
		return latest
	}
	return stable(st)
}

// rolloutReconciler keeps a blueprint's status.rollout: it begins a rollout when the latest
// revision changes, takes its steps while the Gateways reached are healthy, and stops it when
// they are not.
type rolloutReconciler struct {
	client.Client
	Recorder events.EventRecorder
	now      func() time.Time

	mu   sync.Mutex
	last map[string]time.Time // when each blueprint's rollout was last evaluated
}

func (r *rolloutReconciler) setup(mgr ctrl.Manager, m *mapper) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("rollout").
		For(&v1alpha1.GatewayClassBlueprint{}).
		// Every status write of a Gateway may be the one a step waits for.
		Watches(&gwv1.Gateway{}, handler.EnqueueRequestsFromMapFunc(m.gatewayBlueprint)).
		Complete(r)
}

// gatewayBlueprint maps a Gateway to its class's blueprint when that asks for a staged rollout.
func (m *mapper) gatewayBlueprint(ctx context.Context, o client.Object) []reconcile.Request {
	class := &gwv1.GatewayClass{}
	if err := m.c.Get(ctx, client.ObjectKey{Name: string(o.(*gwv1.Gateway).Spec.GatewayClassName)}, class); err != nil || class.Spec.ControllerName != v1alpha1.ControllerName {
		return nil
	}
	name, err := desired.BlueprintName(class)
	if err != nil {
		return nil
	}
	bp := &v1alpha1.GatewayClassBlueprint{}
	if err := m.c.Get(ctx, client.ObjectKey{Name: name}, bp); err != nil || bp.Spec.Rollout == nil && bp.Status.Rollout == nil {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: name}}}
}

// blueprintGateways lists the Gateways of every class that names bp.
func blueprintGatewayList(ctx context.Context, c client.Reader, bp string) ([]gwv1.Gateway, error) {
	classes := &gwv1.GatewayClassList{}
	if err := c.List(ctx, classes, client.MatchingFields{indexBlueprint: bp}); err != nil {
		return nil, err
	}
	var out []gwv1.Gateway
	for _, class := range classes.Items {
		if class.Spec.ControllerName != v1alpha1.ControllerName {
			continue
		}
		l := &gwv1.GatewayList{}
		if err := c.List(ctx, l, client.MatchingFields{indexClass: class.Name}); err != nil {
			return nil, err
		}
		out = append(out, l.Items...)
	}
	return out, nil
}

func (r *rolloutReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	defer observe("rollout", time.Now())
	bp := &v1alpha1.GatewayClassBlueprint{}
	if err := r.Get(ctx, req.NamespacedName, bp); err != nil || !bp.DeletionTimestamp.IsZero() {
		r.forget(req.Name)
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if bp.Spec.Rollout == nil {
		r.forget(req.Name)
		if bp.Status.Rollout == nil {
			return ctrl.Result{}, nil
		}
		patch := client.MergeFrom(bp.DeepCopy())
		bp.Status.Rollout = nil
		return ctrl.Result{}, client.IgnoreNotFound(r.Status().Patch(ctx, bp, patch))
	}
	if wait := r.pace(req.Name); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	gws, err := blueprintGatewayList(ctx, r, bp.Name)
	if err != nil {
		return ctrl.Result{}, err
	}
	var nsLabels map[string]map[string]string
	if needsNamespaces(bp.Spec.Rollout) {
		nss := &corev1.NamespaceList{}
		if err := r.List(ctx, nss); err != nil {
			return ctrl.Result{}, err
		}
		nsLabels = make(map[string]map[string]string, len(nss.Items))
		for _, ns := range nss.Items {
			nsLabels[ns.Name] = ns.Labels
		}
	}
	latest := v1alpha1.RevisionName(bp.Name, &bp.Spec)
	var prev *v1alpha1.RolloutStatus
	if bp.Status.Rollout != nil {
		prev = bp.Status.Rollout.DeepCopy()
	}
	next, after, events := r.evaluate(ctx, bp, latest, prev.DeepCopy(), gws, nsLabels)
	if !equality.Semantic.DeepEqual(prev, next) {
		patch := client.MergeFrom(bp.DeepCopy())
		bp.Status.Rollout = next
		if err := r.Status().Patch(ctx, bp, patch); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	for _, e := range events {
		if r.Recorder != nil {
			r.Recorder.Eventf(bp, nil, e.typ, e.reason, "Rollout", "%s", eventNote(e.note))
		}
	}
	return ctrl.Result{RequeueAfter: after}, nil
}

// pace keeps one blueprint's rollout from being evaluated more than once per rolloutInterval;
// it says how long to wait, 0 to go now.
func (r *rolloutReconciler) pace(name string) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil {
		r.last = map[string]time.Time{}
	}
	now := r.clock()
	if wait := rolloutInterval - now.Sub(r.last[name]); wait > 0 {
		return wait
	}
	r.last[name] = now
	return 0
}

func (r *rolloutReconciler) forget(name string) {
	r.mu.Lock()
	delete(r.last, name)
	r.mu.Unlock()
}

func (r *rolloutReconciler) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

type rolloutEvent struct{ typ, reason, note string }

// evaluate is the rollout's next status, how long until it must be looked at again (0: when
// something changes), and the Events to say; it may change prev. It begins a rollout of latest when prev is of
// another revision, counts the Gateways on each revision, and takes a step or stops.
func (r *rolloutReconciler) evaluate(ctx context.Context, bp *v1alpha1.GatewayClassBlueprint, latest string, prev *v1alpha1.RolloutStatus, gws []gwv1.Gateway, nsLabels map[string]map[string]string) (*v1alpha1.RolloutStatus, time.Duration, []rolloutEvent) {
	ro := bp.Spec.Rollout
	all := steps(ro)
	now := metav1.NewTime(r.clock().Truncate(time.Second))
	var evs []rolloutEvent
	st := prev
	if st == nil || st.Revision != latest {
		from := ""
		switch {
		case st != nil:
			from = stable(st)
		default:
			from = r.previousRevision(ctx, bp.Name, latest)
		}
		st = &v1alpha1.RolloutStatus{Revision: latest, From: from, Phase: v1alpha1.RolloutProgressing, StepStartTime: &now, WaitingSince: &now}
		if from == "" || from == latest {
			st.From, st.Phase, st.Step = "", v1alpha1.RolloutComplete, int32(len(all))
		} else {
			evs = append(evs, rolloutEvent{corev1.EventTypeNormal, "RolloutStarted", fmt.Sprintf("rolling out revision %s from %s in %d steps", latest, from, len(all))})
		}
	}
	st.Steps = int32(len(all))

	// Count where the Gateways are.
	counts := map[string]int32{}
	st.Gateways, st.Updated, st.Healthy = 0, 0, 0
	for i := range gws {
		gw := &gws[i]
		if !gw.DeletionTimestamp.IsZero() {
			continue
		}
		st.Gateways++
		rev := revisionOf(gw)
		if rev == "" {
			continue
		}
		counts[rev]++
		if rev == latest {
			st.Updated++
			if healthy(gw) {
				st.Healthy++
			}
		}
	}
	st.Revisions = st.Revisions[:0]
	for rev, n := range counts {
		st.Revisions = append(st.Revisions, v1alpha1.RevisionCount{Revision: rev, Gateways: n})
	}
	slices.SortFunc(st.Revisions, func(a, b v1alpha1.RevisionCount) int {
		switch {
		case a.Revision == b.Revision:
			return 0
		case a.Revision == latest:
			return -1
		case b.Revision == latest:
			return 1
		}
		return strings.Compare(a.Revision, b.Revision)
	})
	st.Revisions = st.Revisions[:min(len(st.Revisions), 16)]
	if len(st.Revisions) == 0 {
		st.Revisions = nil
	}

	switch st.Phase {
	case v1alpha1.RolloutComplete, v1alpha1.RolloutStopped:
		return st, 0, evs
	}
	if ro.Paused {
		if st.Phase != v1alpha1.RolloutPaused {
			st.Phase, st.Message = v1alpha1.RolloutPaused, fmt.Sprintf("paused at step %d of %d", st.Step, st.Steps)
			evs = append(evs, rolloutEvent{corev1.EventTypeNormal, "RolloutPaused", st.Message})
		}
		return st, 0, evs
	}
	if st.Phase == v1alpha1.RolloutPaused {
		st.Phase, st.WaitingSince = v1alpha1.RolloutProgressing, &now // the deadline starts again
		evs = append(evs, rolloutEvent{corev1.EventTypeNormal, "RolloutResumed", fmt.Sprintf("resumed at step %d of %d", st.Step, st.Steps)})
	}

	// Progressing: is every Gateway the taken steps reach on latest and healthy?
	var waiting, failed []string
	for i := range gws {
		gw := &gws[i]
		if !gw.DeletionTimestamp.IsZero() || !reached(ro, st, gw, nsLabels[gw.Namespace]) {
			continue
		}
		switch verdict, why := gate(gw, latest, st.StepStartTime); verdict {
		case gateFailed:
			failed = append(failed, fmt.Sprintf("Gateway %s/%s: %s", gw.Namespace, gw.Name, why))
		case gateWaiting:
			waiting = append(waiting, fmt.Sprintf("Gateway %s/%s: %s", gw.Namespace, gw.Name, why))
		}
	}
	slices.Sort(failed)
	slices.Sort(waiting)
	deadline := DefaultProgressDeadline
	if ro.ProgressDeadlineSeconds != nil {
		deadline = time.Duration(*ro.ProgressDeadlineSeconds) * time.Second
	}
	since := st.WaitingSince
	if since == nil {
		since = st.StepStartTime
	}
	if since == nil {
		since = &now
	}
	elapsed := r.clock().Sub(since.Time)
	switch {
	case len(failed) > 0:
		st.Phase = v1alpha1.RolloutStopped
		st.Message = truncate(fmt.Sprintf("stopped at step %d of %d: %d Gateways failed on revision %s; first %s", st.Step, st.Steps, len(failed), latest, failed[0]))
		evs = append(evs, rolloutEvent{corev1.EventTypeWarning, "RolloutStopped", st.Message})
		return st, 0, evs
	case len(waiting) > 0 && elapsed >= deadline:
		st.Phase = v1alpha1.RolloutStopped
		st.Message = truncate(fmt.Sprintf("stopped at step %d of %d: %d Gateways not healthy on revision %s within %s; first %s", st.Step, st.Steps, len(waiting), latest, deadline, waiting[0]))
		evs = append(evs, rolloutEvent{corev1.EventTypeWarning, "RolloutStopped", st.Message})
		return st, 0, evs
	case len(waiting) > 0:
		st.Message = truncate(fmt.Sprintf("step %d of %d: waiting for %d Gateways; first %s", st.Step, st.Steps, len(waiting), waiting[0]))
		return st, deadline - elapsed, evs
	case int(st.Step) >= len(all):
		st.Phase, st.Message = v1alpha1.RolloutComplete, fmt.Sprintf("every Gateway reached renders from revision %s", latest)
		evs = append(evs, rolloutEvent{corev1.EventTypeNormal, "RolloutComplete", fmt.Sprintf("revision %s rolled out to %d Gateways", latest, st.Gateways)})
		return st, 0, evs
	}
	// Take the next step.
	st.Step++
	st.StepStartTime, st.WaitingSince = &now, &now
	st.Cutoff = cutoff(all[:st.Step], st.Cutoff, gws, nsLabels)
	n := 0
	for i := range gws {
		if reached(ro, st, &gws[i], nsLabels[gws[i].Namespace]) {
			n++
		}
	}
	st.Message = fmt.Sprintf("step %d of %d taken: %d of %d Gateways reached", st.Step, st.Steps, n, st.Gateways)
	evs = append(evs, rolloutEvent{corev1.EventTypeNormal, "RolloutStep", st.Message})
	return st, deadline, evs
}

// cutoff is the order key up to which the percentage steps taken reach Gateways no selector of
// them picks: the largest percentage among them, of all Gateways, counting those selectors
// pick. It never goes below prev, so a Gateway once reached stays reached when others come.
func cutoff(taken []v1alpha1.RolloutStep, prev string, gws []gwv1.Gateway, nsLabels map[string]map[string]string) string {
	pct := int32(0)
	for _, s := range taken {
		if s.Percent != nil {
			pct = max(pct, *s.Percent)
		}
	}
	if pct >= 100 {
		return "ffffffffffffffff"
	}
	want := (int(pct)*len(gws) + 99) / 100
	var rest []string
	for i := range gws {
		gw := &gws[i]
		if slices.ContainsFunc(taken, func(s v1alpha1.RolloutStep) bool { return selects(s, gw, nsLabels[gw.Namespace]) }) {
			want--
			continue
		}
		rest = append(rest, orderKey(gw.Namespace, gw.Name))
	}
	if want <= 0 || len(rest) == 0 {
		return prev
	}
	slices.Sort(rest)
	return max(prev, rest[min(want, len(rest))-1])
}

type gateVerdict int

const (
	gatePassed gateVerdict = iota
	gateWaiting
	gateFailed
)

// gate says whether a Gateway a taken step reached lets the rollout go on: it renders from
// latest, Programmed and Healthy. A condition False since before the step began does not hold
// the rollout: the Gateway was broken before the revision reached it.
func gate(gw *gwv1.Gateway, latest string, stepStart *metav1.Time) (gateVerdict, string) {
	before := func(c *metav1.Condition) bool { return stepStart != nil && c.LastTransitionTime.Before(stepStart) }
	programmed := meta.FindStatusCondition(gw.Status.Conditions, string(gwv1.GatewayConditionProgrammed))
	switch {
	case programmed != nil && programmed.Status != metav1.ConditionTrue && before(programmed):
		return gatePassed, ""
	case programmed != nil && programmed.Status == metav1.ConditionFalse && programmed.Reason == desired.ReasonRenderFailed:
		return gateFailed, "Programmed False: " + programmed.Message
	case programmed == nil || programmed.Status != metav1.ConditionTrue || programmed.ObservedGeneration != gw.Generation:
		return gateWaiting, "not programmed yet"
	case revisionOf(gw) != latest:
		return gateWaiting, "not rendered from it yet"
	}
	h := meta.FindStatusCondition(gw.Status.Conditions, ConditionHealthy)
	switch {
	case h == nil:
		return gateWaiting, "no health yet"
	case h.Status == metav1.ConditionTrue:
		return gatePassed, ""
	case before(h):
		return gatePassed, ""
	case h.Reason == ReasonFailed:
		return gateFailed, "Healthy False: " + h.Message
	}
	return gateWaiting, "not healthy: " + h.Message
}

// healthy says whether a Gateway is Programmed and Healthy.
func healthy(gw *gwv1.Gateway) bool {
	p := meta.FindStatusCondition(gw.Status.Conditions, string(gwv1.GatewayConditionProgrammed))
	h := meta.FindStatusCondition(gw.Status.Conditions, ConditionHealthy)
	return p != nil && p.Status == metav1.ConditionTrue && h != nil && h.Status == metav1.ConditionTrue
}

// previousRevision is the revision that was current before latest: the one of highest number
// but latest's. "" when there is none.
func (r *rolloutReconciler) previousRevision(ctx context.Context, bp, latest string) string {
	l := &v1alpha1.GatewayClassBlueprintRevisionList{}
	if err := r.List(ctx, l, client.MatchingLabels{v1alpha1.LabelBlueprint: desired.LabelValue(bp)}); err != nil {
		return ""
	}
	best, number := "", int64(0)
	for _, rev := range l.Items {
		if rev.Spec.Blueprint == bp && rev.Name != latest && rev.Spec.Revision > number {
			best, number = rev.Name, rev.Spec.Revision
		}
	}
	return best
}

// rolloutChanged passes a blueprint update whose rollout status moved in a way that changes
// which revision a Gateway renders from.
var rolloutChanged = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld.(*v1alpha1.GatewayClassBlueprint).Status.Rollout, e.ObjectNew.(*v1alpha1.GatewayClassBlueprint).Status.Rollout
		if o == nil || n == nil {
			return o != n
		}
		return o.Revision != n.Revision || o.From != n.From || o.Step != n.Step || o.Cutoff != n.Cutoff || o.Phase != n.Phase
	},
}

// rolloutGateways maps a blueprint whose rollout moved to the Gateways that render from another
// revision than the one rolloutRevision now gives them.
func (m *mapper) rolloutGateways(ctx context.Context, o client.Object) []reconcile.Request {
	bp := o.(*v1alpha1.GatewayClassBlueprint)
	gws, err := blueprintGatewayList(ctx, m.c, bp.Name)
	if err != nil {
		return nil
	}
	latest := v1alpha1.RevisionName(bp.Name, &bp.Spec)
	var out []reconcile.Request
	for i := range gws {
		gw := &gws[i]
		var nsLabels map[string]string
		if bp.Spec.Rollout != nil && needsNamespaces(bp.Spec.Rollout) {
			ns := &corev1.Namespace{}
			if err := m.c.Get(ctx, client.ObjectKey{Name: gw.Namespace}, ns); err == nil {
				nsLabels = ns.Labels
			}
		}
		if rolloutRevision(bp, latest, gw, nsLabels) != revisionOf(gw) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(gw)})
		}
	}
	return out
}

// rolloutCounted passes a blueprint update whose rollout status changed at all: the class's
// Rollout condition repeats it.
var rolloutCounted = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return !equality.Semantic.DeepEqual(e.ObjectOld.(*v1alpha1.GatewayClassBlueprint).Status.Rollout, e.ObjectNew.(*v1alpha1.GatewayClassBlueprint).Status.Rollout)
	},
}

// ConditionRollout is the GatewayClass condition that says where its blueprint's staged rollout
// stands: True when every Gateway renders from the latest revision, False while a rollout is
// under way, paused or stopped (the reason says which), with how many Gateways are on which
// revision.
const ConditionRollout = "gateway.gantry.dev/Rollout"

// rolloutCondition is the class's ConditionRollout for its blueprint; nil when the blueprint
// asks for no staged rollout.
func rolloutCondition(gen int64, bp *v1alpha1.GatewayClassBlueprint) *metav1.Condition {
	st := bp.Status.Rollout
	if bp.Spec.Rollout == nil || st == nil {
		return nil
	}
	c := &metav1.Condition{Type: ConditionRollout, Status: metav1.ConditionFalse, Reason: st.Phase, ObservedGeneration: gen}
	if st.Phase == v1alpha1.RolloutComplete {
		c.Status = metav1.ConditionTrue
	}
	var on []string
	for _, rc := range st.Revisions {
		on = append(on, fmt.Sprintf("%d on %s", rc.Gateways, rc.Revision))
	}
	c.Message = fmt.Sprintf("blueprint %s, revision %s: %d of %d Gateways updated, %d healthy, step %d of %d", bp.Name, st.Revision, st.Updated, st.Gateways, st.Healthy, st.Step, st.Steps)
	if len(on) > 0 {
		c.Message += " (" + strings.Join(on, ", ") + ")"
	}
	if st.Message != "" {
		c.Message += "; " + st.Message
	}
	c.Message = truncate(c.Message)
	return c
}
