package controllers_test

import (
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/controllers"
)

// TestReview16ElectionLeavesTheManagersConfigAlone: with leader election on and no client-side
// limit (--kube-api-qps's default, -1, as the chart deploys it), the Lease lock must be built
// from a copy of the manager's config. controller-runtime's NewResourceLock sets the config's
// Timeout (RenewDeadline/2) and UserAgent in place; given the manager's own config, every client
// of the manager inherits a 5 s http.Client timeout, which cuts long lists and every watch.
func TestReview16ElectionLeavesTheManagersConfigAlone(t *testing.T) {
	for _, qps := range []float32{-1, 0} {
		own := rest.CopyConfig(cfg)
		own.QPS, own.Timeout, own.UserAgent = qps, 0, "review16"
		mgr, err := controllers.NewManager(own, controllers.ManagerOptions{LeaderElection: true, LeaderElectionNamespace: "default",
			MetricsAddress: "0", Restartable: true})
		if err != nil {
			t.Fatal(err)
		}
		if own.Timeout != 0 || own.UserAgent != "review16" {
			t.Errorf("qps %v: NewManager changed the caller's config: Timeout %v, UserAgent %q", qps, own.Timeout, own.UserAgent)
		}
		if got := mgr.GetConfig().Timeout; got != 0 {
			t.Errorf("qps %v: the manager's config has a Timeout of %v (the leader election's)", qps, got)
		}
		if got := mgr.GetHTTPClient().Timeout; got != 0 {
			t.Errorf("qps %v: the manager's HTTP client (its cache's lists and watches) has a Timeout of %v", qps, got)
		}
	}
}

// TestReview16ElectingManagersWatchLasts: the consequence of the above: a watch made with the
// electing manager's config and HTTP client (as its cache's informers are) is cut by the client
// after 5 s. The same manager without leader election is the control: its watch lasts.
func TestReview16ElectingManagersWatchLasts(t *testing.T) {
	for _, elect := range []bool{false, true} {
		own := rest.CopyConfig(cfg)
		own.QPS, own.Timeout = -1, 0
		mgr, err := controllers.NewManager(own, controllers.ManagerOptions{LeaderElection: elect, LeaderElectionNamespace: "default",
			MetricsAddress: "0", Restartable: true})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := kubernetes.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
		if err != nil {
			t.Fatal(err)
		}
		secs := int64(30)
		w, err := cs.CoreV1().ConfigMaps("default").Watch(t.Context(), metav1.ListOptions{TimeoutSeconds: &secs})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		func() {
			defer w.Stop()
			for {
				select {
				case _, ok := <-w.ResultChan():
					if ok {
						continue
					}
					t.Errorf("leader election %v: a watch asked for 30 s ended after %v", elect, time.Since(start).Round(100*time.Millisecond))
					return
				case <-time.After(6 * time.Second): // past the leader election's 5 s request timeout
					return
				}
			}
		}()
	}
}

// TestReview16LeaderEventsStillGoOut: the lock is built before the manager and given the
// manager's recorder afterwards; the "became leader" Event must still be written.
func TestReview16LeaderEventsStillGoOut(t *testing.T) {
	ns := namespace(t, nil)
	stop := electManager(t, ns)
	defer func() { _ = stop() }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		events := &corev1.EventList{}
		if err := k8s.List(t.Context(), events, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		for _, e := range events.Items {
			if e.Reason == "LeaderElection" && strings.Contains(e.Message, "became leader") && e.InvolvedObject.Kind == "Lease" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no \"became leader\" Event in %s within 15 s: %d events", ns, len(events.Items))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestReview16ReleaseLeavesAnothersLease: if another replica holds the Lease by the time the
// manager stopped cleanly (its elector had not yet noticed), the release must not touch it.
func TestReview16ReleaseLeavesAnothersLease(t *testing.T) {
	ns := namespace(t, nil)
	stop := electManager(t, ns)
	key := client.ObjectKey{Namespace: ns, Name: "gantry.gateway.gantry.dev"}
	other, d := "another-replica", int32(15)
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error { // the elector renews meanwhile
		lease := &coordinationv1.Lease{}
		if err := k8s.Get(t.Context(), key, lease); err != nil {
			return err
		}
		now := metav1.NewMicroTime(time.Now())
		lease.Spec.HolderIdentity, lease.Spec.RenewTime, lease.Spec.AcquireTime, lease.Spec.LeaseDurationSeconds = &other, &now, &now, &d
		return k8s.Update(t.Context(), lease)
	}); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatalf("a stop within the renew deadline: %v", err)
	}
	got := &coordinationv1.Lease{}
	if err := k8s.Get(t.Context(), key, got); err != nil {
		t.Fatal(err)
	}
	if h := got.Spec.HolderIdentity; h == nil || *h != other || *got.Spec.LeaseDurationSeconds != 15 {
		t.Fatalf("the stopped replica changed another's Lease: holder %v, duration %v", h, *got.Spec.LeaseDurationSeconds)
	}
}
