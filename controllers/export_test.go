package controllers

import (
	"context"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// NewPolicyReconcilerForTest is a policy status reconciler of one kind with an empty board and
// the given reach, for tests of its pacing.
func NewPolicyReconcilerForTest(c client.Client, kind string, interval time.Duration, reaches func(context.Context, client.Object) []reconcile.Request) reconcile.Reconciler {
	return &PolicyReconciler{Client: c, Kind: kind, MinInterval: interval, board: &board{}, reaches: reaches}
}
