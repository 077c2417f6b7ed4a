package controllers

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// NewPolicyReconcilerForTest is a policy status reconciler of one kind with an empty board and
// the given reach, for tests of its pacing; report records a Gateway on its board as having
// reported.
func NewPolicyReconcilerForTest(c client.Client, kind string, interval time.Duration, reaches func(context.Context, client.Object) []reconcile.Request) (r reconcile.Reconciler, report func(types.NamespacedName)) {
	pr := &PolicyReconciler{Client: c, Kind: kind, MinInterval: interval, board: &board{}, reaches: reaches}
	return pr, pr.board.attempted
}

// AgeWaitsForTest makes every wait of a PolicyReconciler from NewPolicyReconcilerForTest older
// than waitForAtMost, as if that much time had passed since each began.
func AgeWaitsForTest(r reconcile.Reconciler) {
	pr := r.(*PolicyReconciler)
	pr.mu.Lock()
	defer pr.mu.Unlock()
	for k, w := range pr.waiting {
		w.until = time.Now().Add(-time.Second)
		pr.waiting[k] = w
	}
}

// NewRESTMapper is the manager's RESTMapper, for tests of it on the suite's API server.
var NewRESTMapper = newRESTMapper
