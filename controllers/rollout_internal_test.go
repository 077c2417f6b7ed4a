package controllers

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// rev is revision n of blueprint "b", named as RevisionName names them.
func rev(n int) string { return fmt.Sprintf("b-%010d", n) }

// onRevision is a Gateway whose status says it was rendered from revision r ("" for none).
func onRevision(ns, name, r string, labels map[string]string) gwv1.Gateway {
	gw := gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
	if r != "" {
		gw.Status.Conditions = []metav1.Condition{revisionCondition(0, "b", r, "whatever")}
	}
	return gw
}

func reachedCount(st *v1alpha1.RolloutStatus, gws []gwv1.Gateway) (gateways int, namespaces map[string]bool) {
	p := newPicker(st)
	namespaces = map[string]bool{}
	for i := range gws {
		if p.reached(&gws[i], nil) {
			gateways++
			namespaces[gws[i].Namespace] = true
		}
	}
	return gateways, namespaces
}

// take takes the steps of ro one after another as evaluate does, returning the status after k.
func take(ro *v1alpha1.Rollout, k int, gws []gwv1.Gateway) *v1alpha1.RolloutStatus {
	st := &v1alpha1.RolloutStatus{}
	all := steps(ro)
	for i := range k {
		st.Taken = append(st.Taken, all[i])
		st.Step++
		st.Cutoff = cutoff(st.Taken, st.Cutoff, gws)
	}
	return st
}

// TestRolloutStepsReachWhatTheySay checks the steps against what they promise, counted apart
// from how they are computed: a percentage step reaches every Gateway of p% of the namespaces
// (rounded up) and no other namespace's but those selectors pick; each step reaches all the
// earlier one did; more Gateways or namespaces do not take one out of the rollout.
func TestRolloutStepsReachWhatTheySay(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	canary := &metav1.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}
	ro := &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{{GatewaySelector: canary}, {Percent: ptr(int32(10))}, {Percent: ptr(int32(50))}}}
	if len(steps(ro)) != 4 {
		t.Fatalf("steps: %d, want the three and a last one of 100%%", len(steps(ro)))
	}
	for _, n := range []int{1, 2, 3, 7, 10, 99, 100, 1000} {
		namespaces := 1 + rng.IntN(n)
		var gws []gwv1.Gateway
		for i := range n {
			var labels map[string]string
			if rng.IntN(20) == 0 {
				labels = map[string]string{"canary": "true"}
			}
			gws = append(gws, onRevision(fmt.Sprintf("ns%d", rng.IntN(namespaces)), fmt.Sprintf("gw%d", i), "", labels))
		}
		inUse := map[string]bool{}
		for _, gw := range gws {
			inUse[gw.Namespace] = true
		}
		var before map[string]bool
		for k, pct := range []int{0, 10, 50, 100} {
			st := take(ro, k+1, gws)
			p := newPicker(st)
			now, byPercent := map[string]bool{}, map[string]int{}
			for i := range gws {
				gw := &gws[i]
				if p.reached(gw, nil) {
					now[gw.Name] = true
				} else if gw.Labels["canary"] == "true" {
					t.Errorf("n=%d step %d: canary %s not reached", n, k+1, gw.Name)
				}
				if gw.Labels["canary"] != "true" && p.reached(gw, nil) {
					byPercent[gw.Namespace]++
				}
			}
			// Every non-canary Gateway of a namespace reached by percentage is reached.
			whole := 0
			for ns := range inUse {
				all := 0
				for _, gw := range gws {
					if gw.Namespace == ns && gw.Labels["canary"] != "true" {
						all++
					}
				}
				if byPercent[ns] > 0 && byPercent[ns] != all {
					t.Errorf("n=%d step %d: %d of namespace %s's %d Gateways reached: a namespace moves whole", n, k+1, byPercent[ns], ns, all)
				}
			}
			_, reachedNS := reachedCount(&v1alpha1.RolloutStatus{Cutoff: st.Cutoff}, gws)
			whole = len(reachedNS)
			if want := (pct*len(inUse) + 99) / 100; whole != want {
				t.Errorf("n=%d step %d: %d of %d namespaces reached by percentage, want %d", n, k+1, whole, len(inUse), want)
			}
			for name := range before {
				if !now[name] {
					t.Errorf("n=%d step %d: %s was reached by the step before and is not now", n, k+1, name)
				}
			}
			before = now
		}
	}
}

// tenantGateways are n Gateways a tenant makes in its one namespace, their names brute-forced so
// that their namespace-and-name hashes are as low or as high as it likes (it cannot choose its
// namespace's).
func tenantGateways(n int) []gwv1.Gateway {
	var gws []gwv1.Gateway
	for i := range n {
		gws = append(gws, onRevision("tenant", fmt.Sprintf("d%d", i), "", nil))
	}
	return gws
}

// TestRolloutTenantGatewaysDoNotMoveAPercentStep: adding Gateways in its own namespace, however
// many, changes which of the other tenants' Gateways a percentage step reaches by at most its
// own namespace's place: percentages count namespaces (review finding: 900 Gateways made a 10%
// step reach 95 of 100 others, 100 of them made the 10% and 50% steps reach none).
func TestRolloutTenantGatewaysDoNotMoveAPercentStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var fleet []gwv1.Gateway
	for range 100 {
		fleet = append(fleet, onRevision(fmt.Sprintf("team%d", rng.IntN(20)), fmt.Sprintf("gw-%x", rng.Uint64()), "", nil))
	}
	ro := &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{{Percent: ptr(int32(10))}, {Percent: ptr(int32(50))}}}
	for k := 1; k <= 2; k++ {
		alone, _ := reachedCount(take(ro, k, fleet), fleet)
		attacked, _ := reachedCount(take(ro, k, append(append([]gwv1.Gateway{}, fleet...), tenantGateways(900)...)), fleet)
		if alone == 0 || attacked == 0 || attacked > alone*3/2+10 || attacked < alone*2/3-10 {
			t.Errorf("step %d reaches %d of the 100 other Gateways, %d once a tenant made 900 of its own", k, alone, attacked)
		}
	}
}

// TestRolloutRevision: which revision a Gateway renders from, case by case.
func TestRolloutRevision(t *testing.T) {
	canary := &metav1.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}
	bp := &v1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: v1alpha1.GatewayClassBlueprintSpec{Rollout: &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{{GatewaySelector: canary}}}}}
	taken := []v1alpha1.RolloutStep{{GatewaySelector: canary}}
	yes := map[string]string{"canary": "true"}
	on := func(r string, labels map[string]string) *gwv1.Gateway {
		gw := onRevision("ns", "gw", r, labels)
		return &gw
	}
	fromA := on("", yes)
	fromA.Status.Conditions = []metav1.Condition{revisionCondition(0, "a", "a-0000000001", "a-0000000001")}
	for _, c := range []struct {
		name string
		st   *v1alpha1.RolloutStatus
		gw   *gwv1.Gateway
		want string
	}{
		{"no rollout status yet: stays", nil, on(rev(1), yes), rev(1)},
		{"no rollout status yet, new Gateway: the latest", nil, on("", nil), rev(2)},
		{"not begun: stays", &v1alpha1.RolloutStatus{Revision: rev(1), Phase: v1alpha1.RolloutComplete}, on(rev(1), yes), rev(1)},
		{"not begun, new Gateway: the last rolled out", &v1alpha1.RolloutStatus{Revision: rev(1), Phase: v1alpha1.RolloutComplete}, on("", nil), rev(1)},
		{"step 0: nobody", &v1alpha1.RolloutStatus{Revision: rev(2), From: rev(1), Phase: v1alpha1.RolloutProgressing}, on(rev(1), yes), rev(1)},
		{"step 1: the canary", &v1alpha1.RolloutStatus{Revision: rev(2), From: rev(1), Step: 1, Taken: taken, Phase: v1alpha1.RolloutProgressing}, on(rev(1), yes), rev(2)},
		{"step 1: not the others", &v1alpha1.RolloutStatus{Revision: rev(2), From: rev(1), Step: 1, Taken: taken, Phase: v1alpha1.RolloutProgressing}, on(rev(1), nil), rev(1)},
		{"stopped: a canary labelled since stays", &v1alpha1.RolloutStatus{Revision: rev(2), From: rev(1), Step: 1, Taken: taken, Phase: v1alpha1.RolloutStopped}, on(rev(1), yes), rev(1)},
		{"paused: a canary labelled since stays", &v1alpha1.RolloutStatus{Revision: rev(2), From: rev(1), Step: 1, Taken: taken, Phase: v1alpha1.RolloutPaused}, on(rev(1), yes), rev(1)},
		{"stopped, new Gateway: where the fleet is", &v1alpha1.RolloutStatus{Revision: rev(2), From: rev(1), Step: 1, Taken: taken, Phase: v1alpha1.RolloutStopped}, on("", yes), rev(1)},
		{"on an abandoned revision: the latest at once", &v1alpha1.RolloutStatus{Revision: rev(2), From: rev(1), Phase: v1alpha1.RolloutProgressing}, on(rev(0), nil), rev(2)},
		{"once on the latest, stays", &v1alpha1.RolloutStatus{Revision: rev(2), From: rev(1), Phase: v1alpha1.RolloutStopped}, on(rev(2), nil), rev(2)},
		{"complete: all", &v1alpha1.RolloutStatus{Revision: rev(2), From: rev(1), Step: 2, Phase: v1alpha1.RolloutComplete}, on(rev(1), nil), rev(2)},
		{"last step taken: all", &v1alpha1.RolloutStatus{Revision: rev(2), From: rev(1), Step: 2, Taken: append(taken, v1alpha1.RolloutStep{Percent: ptr(int32(100))}), Cutoff: allNamespaces, Phase: v1alpha1.RolloutProgressing}, on(rev(1), nil), rev(2)},
		// Review finding: a Gateway moved from blueprint a's class skipped the rollout.
		{"from another blueprint's class, mid-rollout: where the fleet is", &v1alpha1.RolloutStatus{Revision: rev(2), From: rev(1), Phase: v1alpha1.RolloutProgressing}, fromA, rev(1)},
		{"from another blueprint's class, not begun: where the fleet is", &v1alpha1.RolloutStatus{Revision: rev(1), From: rev(0), Phase: v1alpha1.RolloutComplete}, fromA, rev(1)},
	} {
		b := bp.DeepCopy()
		b.Status.Rollout = c.st
		if got := rolloutRevision(b, rev(2), c.gw, nil); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestRolloutBegins: where a rollout begins when there is no earlier one to go by (spec.rollout
// just added): from the revision the fleet is on, or nowhere when it is on the latest (review
// finding: it began from the highest older revision, one the fleet had left long ago).
func TestRolloutBegins(t *testing.T) {
	bp := &v1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: v1alpha1.GatewayClassBlueprintSpec{
		Rollout: &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{{Percent: ptr(int32(10))}}}}}
	r := &rolloutReconciler{now: func() time.Time { return time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC) }}
	st, _, _ := r.evaluate(bp, rev(2), nil, []gwv1.Gateway{onRevision("ns", "a", rev(2), nil), onRevision("ns", "b", "", nil)}, nil)
	if st.Phase != v1alpha1.RolloutComplete || st.From != "" {
		t.Errorf("spec.rollout added with the fleet on the latest: %s from %q, want Complete from nowhere", st.Phase, st.From)
	}
	st, _, _ = r.evaluate(bp, rev(2), nil, []gwv1.Gateway{onRevision("ns", "a", rev(1), nil), onRevision("ns", "b", rev(1), nil), onRevision("ns", "c", rev(0), nil)}, nil)
	if st.Phase != v1alpha1.RolloutProgressing || st.From != rev(1) {
		t.Errorf("spec.rollout added with a change, the fleet on %s: %s from %q", rev(1), st.Phase, st.From)
	}
}

// TestRolloutStepsEditedMidRollout: editing spec.rollout.steps never widens what is reached by
// itself, and the rollout goes on from the first new step not covered (review finding: cutting
// the steps below status.step reached every Gateway at once).
func TestRolloutStepsEditedMidRollout(t *testing.T) {
	canary := &metav1.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}
	var fleet []gwv1.Gateway
	for i := range 100 {
		fleet = append(fleet, onRevision(fmt.Sprintf("ns%d", i%40), fmt.Sprintf("gw%d", i), rev(1), nil))
	}
	old := &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{{GatewaySelector: canary}, {Percent: ptr(int32(10))}, {Percent: ptr(int32(25))}, {Percent: ptr(int32(50))}}}
	st := take(old, 3, fleet)
	st.Revision, st.From, st.Phase, st.Steps = rev(2), rev(1), v1alpha1.RolloutProgressing, 5
	before, _ := reachedCount(st, fleet)

	bp := &v1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: v1alpha1.GatewayClassBlueprintSpec{
		Rollout: &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{{GatewaySelector: canary}, {Percent: ptr(int32(50))}}}}}
	bp.Status.Rollout = st
	n := 0
	for i := range fleet {
		if rolloutRevision(bp, rev(2), &fleet[i], nil) == rev(2) {
			n++
		}
	}
	if n != before {
		t.Errorf("the steps edited: %d Gateways render the new revision, %d did before, with no step taken", n, before)
	}
	r := &rolloutReconciler{now: func() time.Time { return time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC) }}
	next, _, _ := r.evaluate(bp, rev(2), st.DeepCopy(), fleet, nil)
	if next.Step != 1 || next.Phase != v1alpha1.RolloutProgressing {
		t.Errorf("after the edit: step %d (%s, %s), want step 1 (the canary), the 50%% step still to take", next.Step, next.Phase, next.Message)
	}
	if after, _ := reachedCount(next, fleet); after != before {
		t.Errorf("after the edit: %d Gateways reached, %d before", after, before)
	}
}

// TestRolloutGateAtALaterStepRemembersAFailure: the canary, reached at step 1, fails on the new
// revision; the evaluation that takes step 2 had not seen it yet. Its failure still stops the
// rollout: what a Gateway is judged against is when the rollout began, not when the current
// step did (review finding).
func TestRolloutGateAtALaterStepRemembersAFailure(t *testing.T) {
	canary := &metav1.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}
	bp := &v1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: v1alpha1.GatewayClassBlueprintSpec{Rollout: &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{{GatewaySelector: canary}}}}}
	t0 := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) metav1.Time { return metav1.NewTime(t0.Add(d).Truncate(time.Second)) }
	gw := func(ok bool, since time.Duration) gwv1.Gateway {
		g := onRevision("ns", "canary", rev(2), map[string]string{"canary": "true"})
		h := metav1.Condition{Type: ConditionHealthy, Status: metav1.ConditionTrue, Reason: ReasonCurrent, LastTransitionTime: at(since)}
		if !ok {
			h.Status, h.Reason, h.Message = metav1.ConditionFalse, ReasonFailed, "Deployment ns/canary-proxy: Progress deadline exceeded"
		}
		g.Status.Conditions = append(g.Status.Conditions, h,
			metav1.Condition{Type: string(gwv1.GatewayConditionProgrammed), Status: metav1.ConditionTrue, Reason: "Programmed", LastTransitionTime: at(-time.Hour)})
		return g
	}
	start := at(0)
	st := &v1alpha1.RolloutStatus{Revision: rev(2), From: rev(1), Step: 1, Steps: 2, Taken: []v1alpha1.RolloutStep{{GatewaySelector: canary}}, Phase: v1alpha1.RolloutProgressing, StepStartTime: &start, WaitingSince: &start, HealthBaseline: &start}
	now := t0.Add(10*time.Second + 400*time.Millisecond)
	r := &rolloutReconciler{now: func() time.Time { return now }}
	st, _, _ = r.evaluate(bp, rev(2), st, []gwv1.Gateway{gw(true, 5*time.Second)}, nil)
	if st.Step != 2 {
		t.Fatalf("setup: step %d (%s), want step 2 taken", st.Step, st.Message)
	}
	now = t0.Add(12 * time.Second)
	st, _, _ = r.evaluate(bp, rev(2), st, []gwv1.Gateway{gw(false, 9*time.Second+900*time.Millisecond)}, nil)
	if st.Phase != v1alpha1.RolloutStopped {
		t.Errorf("a canary Failed on the revision after the rollout began: %s (%s), want Stopped", st.Phase, st.Message)
	}
}
