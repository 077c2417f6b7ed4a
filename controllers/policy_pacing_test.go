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

// TestPolicyLooksArePaced: while a Gateway the policy reaches has not reported, every other
// Gateway's reconcile asks the policy controller to look again, and each look lists every
// Gateway the policy may reach. Those looks are spaced out like status writes; unspaced, a
// first convergence of N Gateways cost O(N²) (a quarter of the controller's CPU at N=4,000).
func TestPolicyLooksArePaced(t *testing.T) {
	ns := namespace(t, nil)
	p := gatewayClassConfig(ns, "paced", "Namespace", ns, `{"replicas": 2}`, "")
	create(t, p)
	var looks atomic.Int32
	reaches := func(context.Context, client.Object) []reconcile.Request {
		looks.Add(1)
		// A Gateway the board has never heard of: the policy must wait for it.
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: "not-reported"}}}
	}
	const interval = 2 * time.Second
	r := controllers.NewPolicyReconcilerForTest(k8s, precedence.KindGatewayClassConfig, interval, reaches)
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)}
	began := time.Now()
	for i := range 5 {
		res, err := r.Reconcile(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if res.RequeueAfter <= 0 {
			t.Fatalf("look %d: no requeue while a Gateway has not reported", i)
		}
	}
	if time.Since(began) >= interval {
		t.Skip("five reconciles took longer than the interval; the machine is too busy to tell")
	}
	if n := looks.Load(); n != 1 {
		t.Errorf("five notices within %s looked at the policy's Gateways %d times, want 1", interval, n)
	}
	time.Sleep(interval)
	if _, err := r.Reconcile(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if n := looks.Load(); n != 2 {
		t.Errorf("after the interval: %d looks, want 2 (pacing must not stop the looks)", n)
	}
}
