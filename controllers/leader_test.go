package controllers_test

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/controllers"
)

// TestLeaderReleasesLeaseOnStop: a leader that is stopped (SIGTERM in a rolling update) hands its
// Lease back, so the standby takes over at once instead of waiting for the lease to expire
// (15 s by default). Before, the Lease kept the old holder and every rollout paused
// reconciliation for 16-20 s (issue 22).
func TestLeaderReleasesLeaseOnStop(t *testing.T) {
	ns := namespace(t, nil)
	if err := electManager(t, ns)(); err != nil {
		t.Errorf("manager: %v", err)
	}
	lease := &coordinationv1.Lease{}
	if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "gantry.gateway.gantry.dev"}, lease); err != nil {
		t.Fatal(err)
	}
	if h := lease.Spec.HolderIdentity; h != nil && *h != "" {
		t.Fatalf("the stopped leader still holds the Lease (holder %q): a standby waits for it to expire", *h)
	}
	start := time.Now()
	stop := electManager(t, ns)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	t.Logf("the next leader was elected %v after the first stopped", time.Since(start).Round(time.Millisecond))
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the next leader took %v; a released Lease is taken at once", d)
	}
}

// electManager starts a leader-electing manager (on a copy of the suite's config) and waits until
// it leads; stop cancels it and returns Start's error.
func electManager(t *testing.T, ns string) (stop func() error) {
	t.Helper()
	mgr, err := controllers.NewManager(rest.CopyConfig(cfg), controllers.ManagerOptions{MetricsAddress: "0",
		LeaderElection: true, LeaderElectionNamespace: ns, Restartable: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	select {
	case <-mgr.Elected():
	case err := <-done:
		t.Fatalf("manager stopped before it was elected: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("not elected within 30 s")
	}
	return func() error { cancel(); return <-done }
}
