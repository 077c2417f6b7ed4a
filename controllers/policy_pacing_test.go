package controllers_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/precedence"
)

// TestPolicyLooksArePaced: every Gateway's reconcile asks the policy controller to look at its
// policies again, and each look lists every Gateway the policy may reach. Those looks are
// spaced out by the status interval — while a Gateway has not reported, and when a look finds
// nothing to change — and a look that waits is not lost. Unspaced, a first convergence or a
// global edit of N Gateways cost O(N²) (a quarter of the controller's CPU at N=4,000).
func TestPolicyLooksArePaced(t *testing.T) {
	ns := namespace(t, nil)
	p := gatewayClassConfig(ns, "paced", "Namespace", ns, `{"replicas": 2}`, "")
	create(t, p)
	gw := types.NamespacedName{Namespace: ns, Name: "not-reported"}
	var looks atomic.Int32
	reaches := func(context.Context, client.Object) []reconcile.Request {
		looks.Add(1)
		return []reconcile.Request{{NamespacedName: gw}}
	}
	const interval = 2 * time.Second
	r, report := controllers.NewPolicyReconcilerForTest(k8s, precedence.KindGatewayClassConfig, interval, reaches)
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)}

	// burst reconciles five times at once, as five Gateways' notices would, and returns the
	// looks they made and whether each asked to be requeued.
	burst := func(phase string) int32 {
		t.Helper()
		before, began := looks.Load(), time.Now()
		for i := range 5 {
			res, err := r.Reconcile(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 && res.RequeueAfter <= 0 {
				t.Fatalf("%s: notice %d inside the interval was dropped, not requeued", phase, i)
			}
		}
		if time.Since(began) >= interval {
			t.Skipf("%s: five reconciles took longer than the interval; the machine is too busy to tell", phase)
		}
		return looks.Load() - before
	}

	// A Gateway the board has never heard of: the policy must wait for it.
	if n := burst("not reported"); n != 1 {
		t.Errorf("not reported: five notices within %s made %d looks, want 1", interval, n)
	}
	report(gw)
	time.Sleep(interval)
	res, err := r.Reconcile(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if looks.Load() != 2 || res.RequeueAfter != 0 {
		t.Fatalf("after the Gateway reported and the interval passed: %d looks and requeue %v, want 2 looks and the status decided", looks.Load(), res.RequeueAfter)
	}
	// The status is now what a look computes: further looks find nothing to change, and are
	// spaced out too.
	time.Sleep(interval)
	if n := burst("nothing to change"); n != 1 {
		t.Errorf("nothing to change: five notices within %s made %d looks, want 1", interval, n)
	}
}
