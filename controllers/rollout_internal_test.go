package controllers

import (
	"fmt"
	"math/rand/v2"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestRolloutStepsReachWhatTheySay checks the steps against what they promise, counted apart
// from how they are computed: after a percentage step, max(p% of the fleet rounded up, the
// Gateways selectors picked) Gateways are reached, every one a selector step picked among them;
// each step reaches all the earlier one did; and Gateways created later do not take a Gateway
// out of the rollout.
func TestRolloutStepsReachWhatTheySay(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	canary := &metav1.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}
	ro := &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{{GatewaySelector: canary}, {Percent: ptr(int32(10))}, {Percent: ptr(int32(50))}}}
	for _, n := range []int{1, 2, 3, 7, 10, 99, 100, 101, 1000} {
		var gws []gwv1.Gateway
		picked := 0
		for i := range n {
			gw := gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("ns%d", rng.IntN(5)), Name: fmt.Sprintf("gw%d", i)}}
			if rng.IntN(20) == 0 {
				gw.Labels = map[string]string{"canary": "true"}
				picked++
			}
			gws = append(gws, gw)
		}
		st := &v1alpha1.RolloutStatus{}
		all := steps(ro)
		if len(all) != 4 {
			t.Fatalf("steps: %d, want the three and a last one of 100%%", len(all))
		}
		var before map[string]bool
		for k, want := range []int{picked, max(picked, (10*n+99)/100), max(picked, (50*n+99)/100), n} {
			st.Step = int32(k + 1)
			st.Cutoff = cutoff(all[:st.Step], st.Cutoff, gws, nil)
			now := map[string]bool{}
			for i := range gws {
				if reached(ro, st, &gws[i], nil) {
					now[gws[i].Name] = true
				} else if gws[i].Labels["canary"] == "true" {
					t.Errorf("n=%d step %d: canary %s not reached", n, k+1, gws[i].Name)
				}
			}
			if len(now) != want {
				t.Errorf("n=%d step %d: %d Gateways reached, want %d", n, k+1, len(now), want)
			}
			for name := range before {
				if !now[name] {
					t.Errorf("n=%d step %d: %s was reached by the step before and is not now", n, k+1, name)
				}
			}
			before = now
			// More Gateways come: none reached so far drops out.
			more := append(gws[:len(gws):len(gws)], gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "late", Name: fmt.Sprintf("late%d", k)}})
			st2 := *st
			st2.Cutoff = cutoff(all[:st.Step], st.Cutoff, more, nil)
			for name := range now {
				i := slicesIndex(gws, name)
				if !reached(ro, &st2, &gws[i], nil) {
					t.Errorf("n=%d step %d: %s dropped out when a Gateway was added", n, k+1, name)
				}
			}
		}
	}
}

func slicesIndex(gws []gwv1.Gateway, name string) int {
	for i := range gws {
		if gws[i].Name == name {
			return i
		}
	}
	return -1
}

// TestRolloutRevision: which revision a Gateway renders from, case by case.
func TestRolloutRevision(t *testing.T) {
	canary := &metav1.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}
	bp := &v1alpha1.GatewayClassBlueprint{Spec: v1alpha1.GatewayClassBlueprintSpec{Rollout: &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{{GatewaySelector: canary}}}}}
	on := func(rev string, labels map[string]string) *gwv1.Gateway {
		gw := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gw", Labels: labels}}
		if rev != "" {
			gw.Status.Conditions = []metav1.Condition{revisionCondition(0, "bp", rev, "whatever")}
		}
		return gw
	}
	yes := map[string]string{"canary": "true"}
	for _, c := range []struct {
		name string
		st   *v1alpha1.RolloutStatus
		gw   *gwv1.Gateway
		want string
	}{
		{"no rollout yet", nil, on("r1", nil), "r2"},
		{"not begun: stays", &v1alpha1.RolloutStatus{Revision: "r1", Phase: v1alpha1.RolloutComplete}, on("r1", yes), "r1"},
		{"not begun, new Gateway: the last rolled out", &v1alpha1.RolloutStatus{Revision: "r1", Phase: v1alpha1.RolloutComplete}, on("", nil), "r1"},
		{"step 0: nobody", &v1alpha1.RolloutStatus{Revision: "r2", From: "r1", Phase: v1alpha1.RolloutProgressing}, on("r1", yes), "r1"},
		{"step 1: the canary", &v1alpha1.RolloutStatus{Revision: "r2", From: "r1", Step: 1, Phase: v1alpha1.RolloutProgressing}, on("r1", yes), "r2"},
		{"step 1: not the others", &v1alpha1.RolloutStatus{Revision: "r2", From: "r1", Step: 1, Phase: v1alpha1.RolloutProgressing}, on("r1", nil), "r1"},
		{"step 1, new Gateway: where the fleet is", &v1alpha1.RolloutStatus{Revision: "r2", From: "r1", Step: 1, Phase: v1alpha1.RolloutStopped}, on("", nil), "r1"},
		{"on an abandoned revision: the latest at once", &v1alpha1.RolloutStatus{Revision: "r2", From: "r1", Phase: v1alpha1.RolloutProgressing}, on("r0", nil), "r2"},
		{"once on the latest, stays", &v1alpha1.RolloutStatus{Revision: "r2", From: "r1", Phase: v1alpha1.RolloutStopped}, on("r2", nil), "r2"},
		{"complete: all", &v1alpha1.RolloutStatus{Revision: "r2", From: "r1", Step: 2, Phase: v1alpha1.RolloutComplete}, on("r1", nil), "r2"},
		{"last step taken: all", &v1alpha1.RolloutStatus{Revision: "r2", From: "r1", Step: 2, Phase: v1alpha1.RolloutProgressing}, on("r1", nil), "r2"},
	} {
		b := bp.DeepCopy()
		b.Status.Rollout = c.st
		if got := rolloutRevision(b, "r2", c.gw, nil); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
