package controllers

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// TestLeaderElectionHasItsOwnBucket: with the controller's clients sharing one rate limiter, a
// convergence can spend its whole bucket; renewing the Lease must still go out at once.
func TestLeaderElectionHasItsOwnBucket(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1", QPS: 0.001, Burst: 1}
	if got := leaderElectionConfig(cfg); got != nil {
		t.Errorf("no shared limiter: got a config of its own, want nil (the manager's)")
	}
	cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	if !cfg.RateLimiter.TryAccept() || cfg.RateLimiter.TryAccept() {
		t.Fatal("the shared bucket should let one request through, then none")
	}
	own := leaderElectionConfig(cfg)
	if own == nil {
		t.Fatal("a shared limiter: the election got the controller's config")
	}
	own.GroupVersion = &corev1.SchemeGroupVersion
	own.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientFor(own)
	if err != nil {
		t.Fatal(err)
	}
	if rc.GetRateLimiter() == nil || !rc.GetRateLimiter().TryAccept() {
		t.Error("the election's client waits on the controller's spent bucket")
	}
	if own.QPS != cfg.QPS || own.Burst != cfg.Burst {
		t.Errorf("the election's limit is %v/%d; want the controller's %v/%d", own.QPS, own.Burst, cfg.QPS, cfg.Burst)
	}
}
