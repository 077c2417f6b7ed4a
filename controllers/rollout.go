package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
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

// namespaceKey orders namespaces for percentage steps: a hash of the name, so the order is
// fixed, known in advance, and not the tenants' to choose.
func namespaceKey(namespace string) string {
	sum := sha256.Sum256([]byte(namespace))
	return hex.EncodeToString(sum[:8])
}

// needsNamespaces says whether any step selects by namespace labels.
func needsNamespaces(r *v1alpha1.Rollout) bool {
	return slices.ContainsFunc(r.Steps, func(s v1alpha1.RolloutStep) bool { return s.NamespaceSelector != nil })
}

// picker is a rollout's taken steps made ready to test many Gateways: selectors parsed once,
// namespace keys hashed once per namespace.
type picker struct {
	selectors [][2]labels.Selector // per selector step: Gateway labels, namespace labels (nil: any)
	cutoff    string
	keys      map[string]string
}

func newPicker(st *v1alpha1.RolloutStatus) *picker {
	p := &picker{cutoff: st.Cutoff, keys: map[string]string{}}
	for _, s := range st.Taken {
		if s.GatewaySelector == nil && s.NamespaceSelector == nil {
			continue
		}
		var pair [2]labels.Selector
		ok := true
		for i, sel := range []*metav1.LabelSelector{s.GatewaySelector, s.NamespaceSelector} {
			if sel == nil {
				continue
			}
			parsed, err := metav1.LabelSelectorAsSelector(sel)
			if err != nil {
				ok = false // the API validates selectors; one that does not parse picks nothing
				break
			}
			pair[i] = parsed
		}
		if ok {
			p.selectors = append(p.selectors, pair)
		}
	}
	return p
}

// reached says whether the taken steps reach the Gateway.
func (p *picker) reached(gw *gwv1.Gateway, nsLabels map[string]string) bool {
	for _, pair := range p.selectors {
		if (pair[0] == nil || pair[0].Matches(labels.Set(gw.Labels))) && (pair[1] == nil || pair[1].Matches(labels.Set(nsLabels))) {
			return true
		}
	}
	if p.cutoff == "" {
		return false
	}
	key, ok := p.keys[gw.Namespace]
	if !ok {
		key = namespaceKey(gw.Namespace)
		p.keys[gw.Namespace] = key
	}
	return key <= p.cutoff
}

// revisionOf is the revision of blueprint bp the Gateway was last rendered from, as its status
// says; "" when it names none, or one of another blueprint (the Gateway changed class).
func revisionOf(gw *gwv1.Gateway, bp string) string {
	c := meta.FindStatusCondition(gw.Status.Conditions, ConditionBlueprintRevision)
	if c == nil {
		return ""
	}
	name, ok := strings.CutPrefix(c.Message, revisionMessagePrefix)
	if !ok {
		return ""
	}
	name, _, _ = strings.Cut(name, ",")
	// RevisionName: the blueprint's name, "-" and 10 hex digits.
	if rest, ok := strings.CutPrefix(name, bp+"-"); !ok || len(rest) != 10 {
		return ""
	}
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
	if bp.Spec.Rollout == nil {
		return latest // all at once
	}
	st := bp.Status.Rollout
	recorded := revisionOf(gw, bp.Name)
	switch {
	case st == nil, st.Revision != latest:
		// The rollout of latest has not begun: stay where the Gateway is. One new to the
		// blueprint takes the revision the fleet is on, or the latest when none is known yet.
		if recorded != "" {
			return recorded
		}
		if st == nil {
			return latest
		}
		return stable(st)
	case recorded == latest, st.Phase == v1alpha1.RolloutComplete:
		return latest
	case st.Phase == v1alpha1.RolloutStopped, st.Phase == v1alpha1.RolloutPaused:
		// Held: no Gateway moves to the revision the rollout holds back.
	case recorded != "" && recorded != st.From:
		// On a revision no one rolls out any more (a rollout stopped, then replaced): it is
		// not what the fleet runs, so it takes the latest at once.
		return latest
	case newPicker(st).reached(gw, nsLabels):
		return latest
	}
	if recorded != "" {
		return recorded
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
	// controllerNamespace holds the class-wide GatewayClassConfigs, part of each revision.
	controllerNamespace string

	mu   sync.Mutex
	last map[string]time.Time // when each blueprint's rollout was last evaluated
}

func (r *rolloutReconciler) setup(mgr ctrl.Manager, m *mapper) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("rollout").
		For(&v1alpha1.GatewayClassBlueprint{}).
		// A Gateway's status write may be the one a step waits for.
		Watches(&gwv1.Gateway{}, handler.EnqueueRequestsFromMapFunc(m.gatewayBlueprint), builder.WithPredicates(rolloutWatched)).
		Complete(r)
}

// rolloutWatched passes the Gateway events a rollout can learn from: one made or deleted, its
// labels or class changed, or a condition the gate reads.
var rolloutWatched = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld.(*gwv1.Gateway), e.ObjectNew.(*gwv1.Gateway)
		if o.Spec.GatewayClassName != n.Spec.GatewayClassName || !maps.Equal(o.Labels, n.Labels) || o.Generation != n.Generation {
			return true
		}
		for _, typ := range []string{string(gwv1.GatewayConditionProgrammed), ConditionHealthy, ConditionBlueprintRevision} {
			a, b := meta.FindStatusCondition(o.Status.Conditions, typ), meta.FindStatusCondition(n.Status.Conditions, typ)
			if (a == nil) != (b == nil) || a != nil && (a.Status != b.Status || a.Reason != b.Reason || a.ObservedGeneration != b.ObservedGeneration || a.LastTransitionTime != b.LastTransitionTime ||
				typ == ConditionBlueprintRevision && a.Message != b.Message) {
				return true
			}
		}
		return false
	},
}

// gatewayBlueprint maps a Gateway to its class's blueprint when that asks for a staged rollout.
func (m *mapper) gatewayBlueprint(ctx context.Context, o client.Object) []reconcile.Request {
	// Read, not written: the cache's own objects, not a copy of each at every Gateway event.
	class := &gwv1.GatewayClass{}
	if err := m.c.Get(ctx, client.ObjectKey{Name: string(o.(*gwv1.Gateway).Spec.GatewayClassName)}, class, client.UnsafeDisableDeepCopy); err != nil || class.Spec.ControllerName != v1alpha1.ControllerName {
		return nil
	}
	name, err := desired.BlueprintName(class)
	if err != nil {
		return nil
	}
	bp := &v1alpha1.GatewayClassBlueprint{}
	if err := m.c.Get(ctx, client.ObjectKey{Name: name}, bp, client.UnsafeDisableDeepCopy); err != nil || bp.Spec.Rollout == nil && bp.Status.Rollout == nil {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: name}}}
}

// namespaceLabels are every namespace's labels when a step of the rollout selects by them;
// nil otherwise.
func namespaceLabels(ctx context.Context, c client.Reader, ro *v1alpha1.Rollout) (map[string]map[string]string, error) {
	if ro == nil || !needsNamespaces(ro) {
		return nil, nil
	}
	l := &corev1.NamespaceList{}
	if err := c.List(ctx, l); err != nil {
		return nil, err
	}
	out := make(map[string]map[string]string, len(l.Items))
	for _, ns := range l.Items {
		out[ns.Name] = ns.Labels
	}
	return out, nil
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
	nsLabels, err := namespaceLabels(ctx, r, bp.Spec.Rollout)
	if err != nil {
		return ctrl.Result{}, err
	}
	latest, _, err := latestRevision(ctx, r, r.controllerNamespace, bp)
	if err != nil {
		return ctrl.Result{}, err
	}
	var prev *v1alpha1.RolloutStatus
	if bp.Status.Rollout != nil {
		prev = bp.Status.Rollout.DeepCopy()
	}
	next, after, events := r.evaluate(bp, latest, prev.DeepCopy(), gws, nsLabels)
	if !equality.Semantic.DeepEqual(prev, next) {
		// With the resourceVersion read: a step decided from a stale blueprint (one that missed
		// this controller's own last write, a stop say) must not be written over it.
		patch := client.MergeFromWithOptions(bp.DeepCopy(), client.MergeFromWithOptimisticLock{})
		bp.Status.Rollout = next
		if err := r.Status().Patch(ctx, bp, patch); err != nil {
			if apierrors.IsConflict(err) {
				r.forget(req.Name)
				return ctrl.Result{Requeue: true}, nil
			}
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
// something changes), and the Events to say; it may change prev. It begins a rollout of latest
// when prev is of another revision, counts the Gateways on each revision, and takes a step or
// stops.
func (r *rolloutReconciler) evaluate(bp *v1alpha1.GatewayClassBlueprint, latest string, prev *v1alpha1.RolloutStatus, gws []gwv1.Gateway, nsLabels map[string]map[string]string) (*v1alpha1.RolloutStatus, time.Duration, []rolloutEvent) {
	ro := bp.Spec.Rollout
	all := steps(ro)
	now := metav1.NewTime(r.clock().Truncate(time.Second))
	gws = slices.DeleteFunc(slices.Clone(gws), func(gw gwv1.Gateway) bool { return !gw.DeletionTimestamp.IsZero() })
	var evs []rolloutEvent
	st := prev
	if st == nil || st.Revision != latest {
		from := fleetRevision(gws, bp.Name, latest)
		if st != nil {
			from = stable(st)
		}
		st = &v1alpha1.RolloutStatus{Revision: latest, From: from, Phase: v1alpha1.RolloutProgressing, StepStartTime: &now, WaitingSince: &now, HealthBaseline: &now}
		if from == "" || from == latest {
			// Nothing to roll from: every Gateway is on latest already, or none has rendered.
			last := int32(100)
			st.From, st.Phase, st.Step, st.Taken, st.Cutoff = "", v1alpha1.RolloutComplete, int32(len(all)), []v1alpha1.RolloutStep{{Percent: &last}}, allNamespaces
		} else {
			evs = append(evs, rolloutEvent{corev1.EventTypeNormal, "RolloutStarted", fmt.Sprintf("rolling out revision %s from %s in %d steps", latest, from, len(all))})
		}
	}
	st.Steps = int32(len(all))
	countRevisions(st, gws, bp.Name, latest)

	switch st.Phase {
	case v1alpha1.RolloutComplete, v1alpha1.RolloutStopped:
		return st, 0, evs
	}
	if k := covered(st.Taken, all); k != len(st.Taken) {
		// spec.rollout.steps changed: go on from the first new step the taken ones do not cover.
		// What was taken stays reached (the cutoff never goes down).
		st.Taken, st.Step = slices.Clone(all[:k]), int32(k)
		st.Message = fmt.Sprintf("steps changed: at step %d of %d", st.Step, st.Steps)
		evs = append(evs, rolloutEvent{corev1.EventTypeNormal, "RolloutStepsChanged", st.Message})
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
	pick := newPicker(st)
	for i := range gws {
		gw := &gws[i]
		if !pick.reached(gw, nsLabels[gw.Namespace]) {
			continue
		}
		switch verdict, why := gate(gw, bp.Name, latest, st.HealthBaseline); verdict {
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
	st.Taken = append(st.Taken, all[st.Step])
	st.Step++
	st.StepStartTime, st.WaitingSince = &now, &now
	st.Cutoff = cutoff(st.Taken, st.Cutoff, gws)
	pick = newPicker(st)
	n := 0
	for i := range gws {
		if pick.reached(&gws[i], nsLabels[gws[i].Namespace]) {
			n++
		}
	}
	st.Message = fmt.Sprintf("step %d of %d taken: %d of %d Gateways reached", st.Step, st.Steps, n, st.Gateways)
	evs = append(evs, rolloutEvent{corev1.EventTypeNormal, "RolloutStep", st.Message})
	return st, deadline, evs
}

// allNamespaces is the cutoff that reaches every namespace.
const allNamespaces = "ffffffffffffffff"

// countRevisions counts where the Gateways are into st.
func countRevisions(st *v1alpha1.RolloutStatus, gws []gwv1.Gateway, bp, latest string) {
	counts := map[string]int32{}
	st.Gateways, st.Updated, st.Healthy = int32(len(gws)), 0, 0
	for i := range gws {
		rev := revisionOf(&gws[i], bp)
		if rev == "" {
			continue
		}
		counts[rev]++
		if rev == latest {
			st.Updated++
			if healthy(&gws[i]) {
				st.Healthy++
			}
		}
	}
	st.Revisions = nil
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
}

// fleetRevision is the revision most of the Gateways are on, latest aside: where a rollout
// that begins with no earlier one to go by starts from. "" when every Gateway is on latest or
// names none.
func fleetRevision(gws []gwv1.Gateway, bp, latest string) string {
	counts := map[string]int{}
	for i := range gws {
		if rev := revisionOf(&gws[i], bp); rev != "" && rev != latest {
			counts[rev]++
		}
	}
	best := ""
	for rev, n := range counts {
		if n > counts[best] || n == counts[best] && rev < best {
			best = rev
		}
	}
	return best
}

// covered is how many of the steps, from the first, the taken ones already cover: a selector
// step taken as it is, a percentage no larger than one taken. It is len(taken) when the steps
// were not changed since.
func covered(taken, all []v1alpha1.RolloutStep) int {
	if len(taken) <= len(all) && equality.Semantic.DeepEqual(taken, all[:len(taken)]) {
		return len(taken)
	}
	pct := int32(0)
	for _, s := range taken {
		if s.Percent != nil {
			pct = max(pct, *s.Percent)
		}
	}
	k := 0
	for ; k < len(all)-1; k++ { // the last step (100%) is never taken by covering
		s := all[k]
		switch {
		case s.Percent != nil && *s.Percent <= pct:
		case s.Percent == nil && slices.ContainsFunc(taken, func(t v1alpha1.RolloutStep) bool { return equality.Semantic.DeepEqual(t, s) }):
		default:
			return k
		}
	}
	return k
}

// cutoff is the namespace key up to which the percentage steps taken reach: the largest
// percentage among them, of the namespaces holding the blueprint's Gateways, rounded up. It
// never goes below prev, so a namespace once reached stays reached when others come.
func cutoff(taken []v1alpha1.RolloutStep, prev string, gws []gwv1.Gateway) string {
	pct := int32(0)
	for _, s := range taken {
		if s.Percent != nil {
			pct = max(pct, *s.Percent)
		}
	}
	if pct >= 100 {
		return allNamespaces
	}
	keys := map[string]bool{}
	for i := range gws {
		keys[namespaceKey(gws[i].Namespace)] = true
	}
	want := (int(pct)*len(keys) + 99) / 100
	if want == 0 {
		return prev
	}
	sorted := slices.Sorted(maps.Keys(keys))
	return max(prev, sorted[want-1])
}

type gateVerdict int

const (
	gatePassed gateVerdict = iota
	gateWaiting
	gateFailed
)

// gate says whether a Gateway a taken step reached lets the rollout go on: it renders from
// latest, Programmed and Healthy. A condition False since before baseline (the rollout began,
// or was resumed) does not hold the rollout: the Gateway was broken before the revision could
// have broken it, or the platform accepted it so.
func gate(gw *gwv1.Gateway, bp, latest string, baseline *metav1.Time) (gateVerdict, string) {
	before := func(c *metav1.Condition) bool { return baseline != nil && c.LastTransitionTime.Before(baseline) }
	programmed := meta.FindStatusCondition(gw.Status.Conditions, string(gwv1.GatewayConditionProgrammed))
	switch {
	case programmed != nil && programmed.Status != metav1.ConditionTrue && before(programmed):
		return gatePassed, ""
	case programmed != nil && programmed.Status == metav1.ConditionFalse && programmed.Reason == desired.ReasonRenderFailed:
		return gateFailed, "Programmed False: " + programmed.Message
	case programmed == nil || programmed.Status != metav1.ConditionTrue || programmed.ObservedGeneration != gw.Generation:
		return gateWaiting, "not programmed yet"
	case revisionOf(gw, bp) != latest:
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
	latest, _, err := latestRevision(ctx, m.c, m.controllerNamespace, bp)
	if err != nil {
		return nil
	}
	nsLabels, err := namespaceLabels(ctx, m.c, bp.Spec.Rollout)
	if err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range gws {
		gw := &gws[i]
		if rolloutRevision(bp, latest, gw, nsLabels[gw.Namespace]) != revisionOf(gw, bp.Name) {
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
