package controllers

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"gantry.dev/gantry/precedence"
)

// TestLooksSpacedByReach: a policy whose outcomes reach many Gateways is looked at less often,
// one MinInterval more per perLook Gateways, so that its looks, each of which lists every
// Gateway it reaches, cost the same per Gateway at any N; a policy of a few Gateways keeps
// MinInterval.
func TestLooksSpacedByReach(t *testing.T) {
	for _, c := range []struct {
		reach     int
		atLeast   time.Duration
		butBefore time.Duration
	}{
		{0, 900 * time.Millisecond, 1100 * time.Millisecond},
		{perLook - 1, 900 * time.Millisecond, 1100 * time.Millisecond},
		{perLook, 1900 * time.Millisecond, 2100 * time.Millisecond},
		{10 * perLook, 10900 * time.Millisecond, 11100 * time.Millisecond},
	} {
		b := &board{}
		ref := precedence.Ref{Kind: precedence.KindGatewayClassConfig, Namespace: "gantry-system", Name: "global"}
		for i := range c.reach {
			b.record(types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("gw-%d", i)}, &precedence.Result{Outcomes: []precedence.Outcome{{Ref: ref, State: precedence.StateEnforced}}})
		}
		r := &PolicyReconciler{Kind: precedence.KindGatewayClassConfig, MinInterval: time.Second, board: b}
		key := types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
		if w := r.wait(key); w != 0 {
			t.Fatalf("a policy never looked at waits %v", w)
		}
		r.looked(key)
		if w := r.wait(key); w < c.atLeast || w >= c.butBefore {
			t.Errorf("reaching %d Gateways, the next look waits %v; want at least %v and less than %v", c.reach, w, c.atLeast, c.butBefore)
		}
	}
}

// TestLooksSpacedByBrokenReach: a policy whose values break every Gateway it reaches (values
// unknown, so no outcome) reaches them all the same: each look goes through its broken map of
// N Gateways, so its looks are spaced as for N outcomes. Found by a review (a helper session);
// seen failing before the fix.
func TestLooksSpacedByBrokenReach(t *testing.T) {
	b := &board{}
	ref := precedence.Ref{Kind: precedence.KindGatewayClassConfig, Name: "global"}
	for i := range 5 * perLook {
		b.breaks(types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("gw-%d", i)}, nil, map[precedence.Ref]string{ref: "breaks"})
	}
	r := &PolicyReconciler{Kind: precedence.KindGatewayClassConfig, MinInterval: time.Second, board: b}
	key := types.NamespacedName{Name: "global"}
	r.looked(key)
	if w := r.wait(key); w < 2*time.Second {
		t.Errorf("a policy breaking %d Gateways waits %v between looks, as one reaching none", 5*perLook, w)
	}
}
