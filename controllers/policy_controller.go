package controllers

import (
	"cmp"
	"context"
	"errors"
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
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/precedence"
)

// ConditionEnforced is Gantry's condition on each policy ancestor: how much of the policy's
// values are in effect on that Gateway. Reasons: Enforced, PartiallyEnforced, Overridden.
const ConditionEnforced = "gateway.gantry.dev/Enforced"

// errNotReported: a Gateway the policy may reach has not reconciled since the process started.
var errNotReported = errors.New("a Gateway the policy may reach has not reported yet")

// maxAncestors is the API's limit on status.ancestors; past it Gantry lists the first
// maxAncestors-1 Gateways and one aggregated entry for the rest.
const maxAncestors = 16

// PolicyReconciler writes GEP-713 status for one policy kind.
type PolicyReconciler struct {
	Client client.Client
	// Kind is precedence.KindGatewayClassConfig or precedence.KindGatewayConfig.
	Kind string
	// MinInterval spaces out the looks at one policy, and so its status writes: while many
	// Gateways converge, a global policy's ancestors change with each one, and writing each
	// change would cost one write per Gateway. Each look lists every Gateway the policy may
	// reach, and every Gateway's reconcile asks for one, so unspaced looks cost O(N²) in a
	// first convergence or a global edit — at N=4,000, a quarter of the controller's CPU went
	// to a global policy's looks. A notice inside the interval waits for its end. A policy
	// whose outcomes reach more than perLook Gateways waits one MinInterval more per perLook
	// (lookInterval).
	MinInterval time.Duration

	board *board
	// reaches lists the Gateways the policy may apply to (the same mapping that sends its
	// changes to the Gateway reconciler).
	reaches func(context.Context, client.Object) []reconcile.Request
	// routeKinds are the route kinds beside HTTPRoute the API server serves.
	routeKinds []routeKind
	// controllerNamespace is where a GatewayClassConfig targeting a class reaches every
	// Gateway of it, not only those in its own namespace (see reachesDirectly).
	controllerNamespace string
	mu                  sync.Mutex
	// lastLook is when a policy was last looked at (its status computed, and written if it
	// changed, or found not ready to be), and how many Gateways its outcomes reached then.
	lastLook map[types.NamespacedName]look
	// waiting is, by policy, the Gateway its last look waited for (see waitingFor).
	waiting map[types.NamespacedName]waitingFor
	// refused is, by policy, valuesRefused's answer for one generation of it: a look at a
	// policy reaching many Gateways comes once a MinInterval all through a convergence, and
	// deciding again each time whether its values keep the bounds decoded them every time.
	refused      map[types.NamespacedName]refusal
	statusWrites statusWrites
}

// refusal is valuesRefused's answer for one generation of a policy.
type refusal struct {
	uid        types.UID
	generation int64
	why        string
}

func (r *PolicyReconciler) newObject() policyObject {
	if r.Kind == precedence.KindGatewayClassConfig {
		return &v1alpha1.GatewayClassConfig{}
	}
	return &v1alpha1.GatewayConfig{}
}

type policyObject interface {
	client.Object
	v1alpha1.Policy
}

// Reconcile computes the policy's ancestors: one per Gateway it applies to, with Accepted and
// Enforced conditions, or one for its target when that is missing or not allowed.
func (r *PolicyReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	defer observe(strings.ToLower(r.Kind), time.Now())
	// The policy is read before its wait is: a policy deleted inside its interval must forget
	// its last look, or one re-created under its name would wait out the old one's interval
	// (found by a review; TestReview15RecreatedPolicyIsLookedAtOnce).
	p := r.newObject()
	if err := r.Client.Get(ctx, req.NamespacedName, p); err != nil {
		if apierrors.IsNotFound(err) {
			r.mu.Lock()
			delete(r.lastLook, req.NamespacedName)
			delete(r.waiting, req.NamespacedName)
			delete(r.refused, req.NamespacedName)
			r.mu.Unlock()
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if wait := r.wait(req.NamespacedName); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	ancestors, err := r.ancestors(ctx, p)
	if errors.Is(err, errNotReported) {
		// The Gateway's reconcile notifies the policy once it has reported (a notice inside
		// MinInterval waits for its end, above). The requeue only guards against waiting
		// forever.
		r.looked(req.NamespacedName)
		return ctrl.Result{RequeueAfter: max(r.MinInterval, 5*time.Second)}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	old := p.DeepCopyObject().(policyObject)
	st := p.GetPolicyStatus()
	// Keep other controllers' entries; ours are recomputed whole.
	var merged []gwv1.PolicyAncestorStatus
	for _, a := range st.Ancestors {
		if a.ControllerName != v1alpha1.ControllerName {
			merged = append(merged, a)
		}
	}
	for _, a := range ancestors {
		// Exactly the conditions computed now (an ancestor that was a Gateway and is now the
		// missing target has no Enforced condition any more), each keeping lastTransitionTime
		// when it did not change: SetStatusCondition sets it only when the status changes (the
		// API requires one on every condition).
		var conds []metav1.Condition
		prev := findAncestor(st.Ancestors, a.AncestorRef)
		for _, c := range a.Conditions {
			if prev != nil {
				if old := meta.FindStatusCondition(prev.Conditions, c.Type); old != nil {
					conds = append(conds, *old)
				}
			}
			meta.SetStatusCondition(&conds, c)
		}
		a.Conditions = conds
		merged = append(merged, a)
	}
	if len(merged) > maxAncestors {
		merged = merged[:maxAncestors]
	}
	st.Ancestors = merged
	if equality.Semantic.DeepEqual(old.GetPolicyStatus(), st) {
		r.looked(req.NamespacedName)
		return ctrl.Result{}, nil
	}
	if err := r.statusWrites.patch(ctx, r.Client, old, p); err != nil {
		return requeueIfBehind(ctrl.Result{}, err)
	}
	r.looked(req.NamespacedName)
	return ctrl.Result{}, nil
}

// look is a look at a policy: when, and how many Gateways its outcomes reached.
type look struct {
	at    time.Time
	reach int
}

// perLook is how many Gateways a policy's outcomes may reach before its looks are spaced out
// further: every look lists them all (the Gateways it reaches, and its outcomes on the board),
// and a class-wide policy is looked at once a MinInterval all through a first convergence, whose
// length grows with N, so the looks grew as N². They were 0.28 ms of CPU per Gateway at
// N=10,000 (a profile of the scale harness, docs/performance.md). One more MinInterval per
// perLook Gateways keeps a look's cost per second, and so per Gateway, the same at any N: at
// 10,000 Gateways a class-wide policy's status is rewritten at most every 11 s by default.
const perLook = 1000

// lookInterval is the least time between two looks at a policy whose outcomes reached reach
// Gateways.
func (r *PolicyReconciler) lookInterval(reach int) time.Duration {
	return r.MinInterval * time.Duration(1+reach/perLook)
}

func (r *PolicyReconciler) looked(key types.NamespacedName) {
	self := precedence.Ref{Kind: r.Kind, Namespace: key.Namespace, Name: key.Name}
	reach := r.board.reach(self)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastLook == nil {
		r.lastLook = map[types.NamespacedName]look{}
	}
	r.lastLook[key] = look{at: time.Now(), reach: reach}
}

func (r *PolicyReconciler) wait(key types.NamespacedName) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if last, ok := r.lastLook[key]; ok {
		if left := r.lookInterval(last.reach) - time.Since(last.at); left > 0 {
			return left
		}
	}
	return 0
}

// waitingFor is the Gateway a look at a policy last found unreported, so that the looks after it
// need not list every Gateway the policy may reach while that one has still not reported. In a
// first convergence of N Gateways a class-wide policy is looked at once a MinInterval, and each
// look that listed its N Gateways made the convergence's CPU grow as N² (the PolicyReconciler
// was 11% of the controller's CPU in the harness's N=10,000 run). The cache lists in no set
// order, so the Gateway waited for is about a random one of those the queue has not reached;
// by the time it has, about half of them have been reconciled too: about ln N full lists in a
// convergence.
type waitingFor struct {
	gw types.NamespacedName
	// uid and generation are the policy's when the Gateway was found: a policy re-created
	// under its name, or changed, looks again.
	uid        types.UID
	generation int64
	// direct: the policy reached the Gateway by the Gateway's own fields (reachesDirectly),
	// and each look checks that it still does. Otherwise (a route between them) only a full
	// look sees the Gateway leave the policy's reach, and until bounds the wait: one full look
	// each waitForAtMost. Bounding every wait so made the looks at a namespace's policies
	// grow as N² again: a full list of the namespace's Gateways every 30 s of a convergence
	// whose length grows with N (docs/performance.md, fifteenth session).
	direct bool
	until  time.Time
}

// waitForAtMost is how long looks trust a waitingFor that is not direct.
const waitForAtMost = 30 * time.Second

func (r *PolicyReconciler) waitFor(p policyObject, gw *gwv1.Gateway) {
	w := waitingFor{gw: client.ObjectKeyFromObject(gw), uid: p.GetUID(), generation: p.GetGeneration(),
		direct: reachesDirectly(p, gw, r.controllerNamespace), until: time.Now().Add(waitForAtMost)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.waiting == nil {
		r.waiting = map[types.NamespacedName]waitingFor{}
	}
	r.waiting[client.ObjectKeyFromObject(p)] = w
}

// stillWaiting returns the Gateway the policy's last look found unreported, if it still exists
// and has still not reported, the policy is the same object at the same generation, and it
// still reaches the Gateway (direct) or the wait is younger than waitForAtMost.
func (r *PolicyReconciler) stillWaiting(ctx context.Context, p policyObject) (types.NamespacedName, bool) {
	key := client.ObjectKeyFromObject(p)
	r.mu.Lock()
	w, ok := r.waiting[key]
	r.mu.Unlock()
	if !ok {
		return types.NamespacedName{}, false
	}
	still := w.uid == p.GetUID() && w.generation == p.GetGeneration() && (w.direct || time.Now().Before(w.until)) && !r.board.known(w.gw)
	if still {
		gw, err := r.gateway(ctx, w.gw)
		still = err != nil || gw != nil && (!w.direct || reachesDirectly(p, gw, r.controllerNamespace))
	}
	if !still {
		r.mu.Lock()
		delete(r.waiting, key)
		r.mu.Unlock()
		return types.NamespacedName{}, false
	}
	return w.gw, true
}

// gateway reads a Gateway the policy may reach: nil when it does not exist, for one that does
// not exist never reports (a route's parentRef naming no Gateway, or one deleted before it
// reported). An error reading it is returned with a Gateway of that name: waiting is the safe
// side.
func (r *PolicyReconciler) gateway(ctx context.Context, key types.NamespacedName) (*gwv1.Gateway, error) {
	gw := &gwv1.Gateway{}
	err := r.Client.Get(ctx, key, gw)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		gw.Namespace, gw.Name = key.Namespace, key.Name
	}
	return gw, err
}

// reachesDirectly reports whether a policy reaches a Gateway by what the two objects say
// alone, as mapper.policyGateways lists it and precedence.Applies places it: the Gateway is the
// policy's target, of its target class, in its target namespace, or names it in
// spec.infrastructure.parametersRef. False is "not known this way": a Gateway reached through
// a route is only found by listing.
func reachesDirectly(p policyObject, gw *gwv1.Gateway, controllerNamespace string) bool {
	ref, ns := p.GetTargetRef(), p.GetNamespace()
	_, gc := p.(*v1alpha1.GatewayConfig)
	if gc && gw.Namespace == ns {
		if pr := desired.ParametersRef(gw); pr != nil && string(pr.Group) == v1alpha1.GroupName && pr.Kind == "GatewayConfig" && pr.Name == p.GetName() {
			return true
		}
	}
	if ref.Namespace != nil && string(*ref.Namespace) != ns {
		return false // refused: the policy reaches nothing through its target
	}
	switch {
	case ref.Group == "" && ref.Kind == "Namespace":
		return string(ref.Name) == ns && gw.Namespace == ns
	case ref.Group == gwv1.GroupName && ref.Kind == "GatewayClass" && !gc:
		return string(gw.Spec.GatewayClassName) == string(ref.Name) && (ns == controllerNamespace || gw.Namespace == ns)
	case ref.Group == gwv1.GroupName && ref.Kind == "Gateway" && gc:
		return gw.Namespace == ns && gw.Name == string(ref.Name)
	}
	return false
}

func (r *PolicyReconciler) ancestors(ctx context.Context, p policyObject) ([]gwv1.PolicyAncestorStatus, error) {
	ref := p.GetTargetRef()
	gen := p.GetGeneration()
	target := gwv1.ParentReference{Group: ptr(ref.Group), Kind: ptr(ref.Kind), Name: ref.Name}
	if ref.Kind != "GatewayClass" && ref.Kind != "Namespace" {
		target.Namespace = ptr(gwv1.Namespace(p.GetNamespace()))
	}
	one := func(status metav1.ConditionStatus, reason gwv1.PolicyConditionReason, msg string) []gwv1.PolicyAncestorStatus {
		return []gwv1.PolicyAncestorStatus{{AncestorRef: target, ControllerName: v1alpha1.ControllerName, Conditions: []metav1.Condition{{
			Type: string(gwv1.PolicyConditionAccepted), Status: status, Reason: string(reason), Message: msg, ObservedGeneration: gen,
		}}}}
	}
	// A GatewayConfig that Gateways name in spec.infrastructure.parametersRef is their level-5
	// policy whatever its targetRef says: it has an ancestor for each of them even when its
	// own target is wrong, and then an entry for the target that says what is wrong with it.
	named, err := r.parametersOf(ctx, p)
	if err != nil {
		return nil, err
	}
	var problem []gwv1.PolicyAncestorStatus
	switch {
	case ref.Namespace != nil && string(*ref.Namespace) != p.GetNamespace():
		problem = one(metav1.ConditionFalse, gwv1.PolicyReasonInvalid, fmt.Sprintf("spec.targetRef.namespace is %s, but a policy can only target objects in its own namespace (%s)", *ref.Namespace, p.GetNamespace()))
	case ref.Kind == "Namespace" && string(ref.Name) != p.GetNamespace():
		problem = one(metav1.ConditionFalse, gwv1.PolicyReasonInvalid, fmt.Sprintf("a policy can only target its own namespace (%s), not %s", p.GetNamespace(), ref.Name))
	case r.valuesRefused(p) != "":
		problem = one(metav1.ConditionFalse, gwv1.PolicyReasonInvalid, r.valuesRefused(p))
	default:
		exists, err := r.targetExists(ctx, p.GetNamespace(), ref)
		if err != nil {
			return nil, err
		}
		if !exists {
			problem = one(metav1.ConditionFalse, gwv1.PolicyReasonTargetNotFound, fmt.Sprintf("%s %s does not exist", ref.Kind, ref.Name))
		}
	}
	if problem != nil && len(named) == 0 {
		return problem, nil
	}
	// After a restart the board fills up as Gateways reconcile; until every Gateway the policy
	// may reach has reported, its outcomes are half the picture, and writing them would write
	// a status that is about to change back.
	if r.reaches != nil {
		// Through its broken target the policy reaches nothing but the Gateways naming it.
		skip := func(gw types.NamespacedName) bool { return problem != nil && !named[gw] }
		if gw, ok := r.stillWaiting(ctx, p); ok && !skip(gw) {
			return nil, errNotReported
		}
		for _, req := range r.reaches(ctx, p) {
			if skip(req.NamespacedName) || r.board.known(req.NamespacedName) {
				continue
			}
			if gw, _ := r.gateway(ctx, req.NamespacedName); gw != nil {
				r.waitFor(p, gw)
				return nil, errNotReported
			}
		}
	}
	self := precedence.Ref{Kind: r.Kind, Namespace: p.GetNamespace(), Name: p.GetName()}
	outcomes := r.board.policy(self)
	broken := r.board.brokenBy(self)
	for gw := range broken {
		if _, ok := outcomes[gw]; !ok {
			outcomes[gw] = precedence.Outcome{Ref: self} // it broke the Gateway before any outcome
		}
	}
	if len(outcomes) == 0 && problem != nil {
		return problem, nil // the Gateways naming it have not rendered with it (their class is not Gantry's, say)
	}
	if len(outcomes) == 0 {
		// Outcomes come only from Gateways Gantry renders, so with none the target may be
		// another controller's: then its status is not Gantry's to write, and an entry
		// written while it was Gantry's goes.
		if mine, err := r.servesTarget(ctx, p.GetNamespace(), ref); err != nil || !mine {
			return nil, err
		}
		return one(metav1.ConditionTrue, gwv1.PolicyReasonAccepted, "no Gateway of a Gantry class is affected yet"), nil
	}
	gws := slices.SortedFunc(maps.Keys(outcomes), func(a, b types.NamespacedName) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	var out []gwv1.PolicyAncestorStatus
	for i, gw := range gws {
		if i == maxAncestors-1 && len(gws) > maxAncestors {
			out = append(out, aggregate(target, gen, gws[i:], outcomes))
			break
		}
		o := outcomes[gw]
		accepted := metav1.Condition{Type: string(gwv1.PolicyConditionAccepted), Status: metav1.ConditionTrue, Reason: string(gwv1.PolicyReasonAccepted), ObservedGeneration: gen,
			Message: fmt.Sprintf("applies at level %s", o.Level)}
		if named[gw] {
			accepted.Message += fmt.Sprintf(", as spec.infrastructure.parametersRef of Gateway %s", gw)
		}
		if sibling := conflictedBy(o); sibling != "" {
			accepted.Status, accepted.Reason = metav1.ConditionFalse, string(gwv1.PolicyReasonConflicted)
			accepted.Message = fmt.Sprintf("every value is superseded by %s at the same level, which GEP-713 orders higher", sibling)
		}
		if why := broken[gw]; why != "" {
			// The Gateway is InvalidValues because of this policy: not accepted there.
			accepted.Status, accepted.Reason = metav1.ConditionFalse, string(gwv1.PolicyReasonInvalid)
			accepted.Message = truncate(fmt.Sprintf("%s; Gateway %s is InvalidValues and renders nothing", why, gw))
		}
		effect := enforced(o, gen)
		if broken[gw] != "" {
			effect.Status, effect.Reason, effect.Message = metav1.ConditionFalse, desired.ReasonInvalidValues, "no value is in effect: the Gateway renders nothing while its values break the schema"
		}
		out = append(out, gwv1.PolicyAncestorStatus{
			AncestorRef:    gwv1.ParentReference{Group: ptr(gwv1.Group(gwv1.GroupName)), Kind: ptr(gwv1.Kind("Gateway")), Namespace: ptr(gwv1.Namespace(gw.Namespace)), Name: gwv1.ObjectName(gw.Name)},
			ControllerName: v1alpha1.ControllerName,
			Conditions:     []metav1.Condition{accepted, effect},
		})
	}
	return append(out, problem...), nil
}

// parametersOf lists the Gateways that name a GatewayConfig in spec.infrastructure.parametersRef.
func (r *PolicyReconciler) parametersOf(ctx context.Context, p policyObject) (map[types.NamespacedName]bool, error) {
	if r.Kind != precedence.KindGatewayConfig {
		return nil, nil
	}
	l := &gwv1.GatewayList{}
	if err := r.Client.List(ctx, l, client.InNamespace(p.GetNamespace()), client.MatchingFields{indexParameters: p.GetName()}); err != nil {
		return nil, fmt.Errorf("list the Gateways naming GatewayConfig %s/%s in spec.infrastructure.parametersRef: %w", p.GetNamespace(), p.GetName(), err)
	}
	out := map[types.NamespacedName]bool{}
	for _, gw := range l.Items {
		out[types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}] = true
	}
	return out, nil
}

// conflictedBy names the one same-level policy that superseded every value of an Overridden
// policy: two policies on the same target fighting, which GEP-713 calls a conflict.
func conflictedBy(o precedence.Outcome) string {
	if o.State != precedence.StateOverridden || len(o.Superseded) == 0 {
		return ""
	}
	by := o.Superseded[0].By
	for _, s := range o.Superseded {
		if s.By.Ref != by.Ref || s.By.Level != o.Level {
			return ""
		}
	}
	return by.Ref.String()
}

func enforced(o precedence.Outcome, gen int64) metav1.Condition {
	c := metav1.Condition{Type: ConditionEnforced, Status: metav1.ConditionTrue, Reason: string(o.State), ObservedGeneration: gen}
	switch o.State {
	case precedence.StateEnforced:
		c.Message = "every value is in effect"
	case precedence.StateOverridden:
		c.Status = metav1.ConditionFalse
		c.Message = truncate("no value is in effect: " + superseded(o))
	default:
		c.Message = truncate("superseded: " + superseded(o))
	}
	return c
}

func superseded(o precedence.Outcome) string {
	parts := make([]string, len(o.Superseded))
	for i, s := range o.Superseded {
		parts[i] = fmt.Sprintf("%s (%s) by %s %s", s.Path, s.Stanza, s.By.Ref, s.By.Stanza)
	}
	return strings.Join(parts, "; ")
}

// aggregate summarises the Gateways past the ancestor limit in one entry for the target.
func aggregate(target gwv1.ParentReference, gen int64, rest []types.NamespacedName, outcomes map[types.NamespacedName]precedence.Outcome) gwv1.PolicyAncestorStatus {
	count := map[precedence.State]int{}
	for _, gw := range rest {
		count[outcomes[gw].State]++
	}
	msg := fmt.Sprintf("and %d more Gateways: %d Enforced, %d PartiallyEnforced, %d Overridden", len(rest),
		count[precedence.StateEnforced], count[precedence.StatePartiallyEnforced], count[precedence.StateOverridden])
	return gwv1.PolicyAncestorStatus{AncestorRef: target, ControllerName: v1alpha1.ControllerName, Conditions: []metav1.Condition{
		{Type: string(gwv1.PolicyConditionAccepted), Status: metav1.ConditionTrue, Reason: string(gwv1.PolicyReasonAccepted), Message: msg, ObservedGeneration: gen},
	}}
}

func (r *PolicyReconciler) targetExists(ctx context.Context, ns string, ref v1alpha1.PolicyTargetReference) (bool, error) {
	var obj client.Object
	key := client.ObjectKey{Namespace: ns, Name: string(ref.Name)}
	switch ref.Kind {
	case "GatewayClass":
		obj, key.Namespace = &gwv1.GatewayClass{}, ""
	case "Namespace":
		obj, key.Namespace = &corev1.Namespace{}, ""
	case "Gateway":
		obj = &gwv1.Gateway{}
	default:
		if obj = servedRoute(r.routeKinds, string(ref.Kind)); obj == nil {
			return false, nil
		}
	}
	err := r.Client.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// servesTarget reports whether a policy's (existing) target is Gantry's: a GatewayClass naming
// Gantry's controller, a Gateway of such a class, a route with such a Gateway among its
// parents, or a Namespace (which any controller's policies may target). A Gateway whose class
// is missing is not known to be Gantry's.
func (r *PolicyReconciler) servesTarget(ctx context.Context, ns string, ref v1alpha1.PolicyTargetReference) (bool, error) {
	ours := func(className string) (bool, error) {
		class := &gwv1.GatewayClass{}
		if err := r.Client.Get(ctx, client.ObjectKey{Name: className}, class); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return class.Spec.ControllerName == v1alpha1.ControllerName, nil
	}
	gateway := func(key client.ObjectKey) (bool, error) {
		gw := &gwv1.Gateway{}
		if err := r.Client.Get(ctx, key, gw); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return ours(string(gw.Spec.GatewayClassName))
	}
	switch ref.Kind {
	case "GatewayClass":
		return ours(string(ref.Name))
	case "Gateway":
		return gateway(client.ObjectKey{Namespace: ns, Name: string(ref.Name)})
	case "HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute":
		route := servedRoute(r.routeKinds, string(ref.Kind))
		if route == nil {
			return false, nil
		}
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: string(ref.Name)}, route); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		for _, k := range parentKeys(route) {
			pns, name, _ := strings.Cut(k, "/")
			if mine, err := gateway(client.ObjectKey{Namespace: pns, Name: name}); err != nil || mine {
				return mine, err
			}
		}
		return false, nil
	}
	return true, nil
}

func findAncestor(as []gwv1.PolicyAncestorStatus, ref gwv1.ParentReference) *gwv1.PolicyAncestorStatus {
	for i := range as {
		if as[i].ControllerName == v1alpha1.ControllerName && equality.Semantic.DeepEqual(as[i].AncestorRef, ref) {
			return &as[i]
		}
	}
	return nil
}

// valuesRefused is valuesRefused(p), remembered for the policy's generation.
func (r *PolicyReconciler) valuesRefused(p policyObject) string {
	key := client.ObjectKeyFromObject(p)
	r.mu.Lock()
	got, ok := r.refused[key]
	r.mu.Unlock()
	if ok && got.uid == p.GetUID() && got.generation == p.GetGeneration() {
		return got.why
	}
	why := valuesRefused(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refused == nil {
		r.refused = map[types.NamespacedName]refusal{}
	}
	r.refused[key] = refusal{uid: p.GetUID(), generation: p.GetGeneration(), why: why}
	return why
}

// valuesRefused says why the policy's values are past the bounds every policy must keep
// (precedence.CheckValues: depth and size), or "". Such a policy applies nowhere; this is
// where its owner reads why.
func valuesRefused(p policyObject) string {
	var pols []precedence.Policy
	var err error
	switch o := p.(type) {
	case *v1alpha1.GatewayConfig:
		pols, err = desired.Policies(nil, []*v1alpha1.GatewayConfig{o})
	case *v1alpha1.GatewayClassConfig:
		pols, err = desired.Policies([]*v1alpha1.GatewayClassConfig{o}, nil)
	}
	if err != nil || len(pols) != 1 {
		return ""
	}
	return precedence.Refused(&pols[0])
}
