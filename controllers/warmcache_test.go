package controllers_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/testenv"
)

// refusals counts the API server's 429 answers (Too Many Requests).
type refusals struct {
	base http.RoundTripper
	n    *atomic.Int64
}

func (r refusals) RoundTrip(q *http.Request) (*http.Response, error) {
	res, err := r.base.RoundTrip(q)
	if err == nil && res.StatusCode == http.StatusTooManyRequests {
		r.n.Add(1)
	}
	return res, err
}

// TestWarmStartIsNotTurnedAway: on an API server that has never served Gantry's and Gateway
// API's custom resources (a first install), the controller's informers sync without one 429.
// Their streaming lists, sent first, were each answered 429 with Retry-After: 1 while the API
// server built the kind's watch cache, and client-go waited that second (warmCache).
func TestWarmStartIsNotTurnedAway(t *testing.T) {
	env, fresh, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	var turnedAway atomic.Int64
	counted := rest.CopyConfig(fresh)
	counted.WrapTransport = func(b http.RoundTripper) http.RoundTripper { return refusals{base: b, n: &turnedAway} }

	mgr, err := controllers.NewManager(counted, controllers.ManagerOptions{MetricsAddress: "0", Restartable: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	if err := controllers.Setup(ctx, mgr, controllers.Options{ControllerNamespace: "default"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	go func() { done <- mgr.Start(ctx) }()
	syncCtx, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	if !mgr.GetCache().WaitForCacheSync(syncCtx) {
		t.Fatal("the cache did not sync")
	}
	t.Logf("informers synced %v after the start", time.Since(start).Round(time.Millisecond))
	if n := turnedAway.Load(); n > 0 {
		t.Errorf("the API server answered 429 %d times before the informers synced", n)
	}
}
