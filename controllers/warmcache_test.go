package controllers_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"

	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/testenv"
)

// refusals counts the API server's 429 answers (Too Many Requests), and records the Secret
// lists sent without the Secret cache's field selector.
type refusals struct {
	base       http.RoundTripper
	n          *atomic.Int64
	mu         *sync.Mutex
	allSecrets *[]string
}

func (r refusals) RoundTrip(q *http.Request) (*http.Response, error) {
	if q.URL.Path == "/api/v1/secrets" && !strings.Contains(q.URL.Query().Get("fieldSelector"), "type=kubernetes.io/tls") {
		r.mu.Lock()
		*r.allSecrets = append(*r.allSecrets, q.URL.String())
		r.mu.Unlock()
	}
	res, err := r.base.RoundTrip(q)
	if err == nil && res.StatusCode == http.StatusTooManyRequests {
		r.n.Add(1)
	}
	return res, err
}

// TestWarmStartIsNotTurnedAway: on an API server that has never served Gantry's and Gateway
// API's custom resources (a first install), the controller's informers sync without one 429.
// Their streaming lists, sent first, were each answered 429 with Retry-After: 1 while the API
// server built the kind's watch cache, and client-go waited that second (warmCache): nine of
// them. The lists do not wait for the watch caches to be built, so on a starved machine an
// informer can still be turned away; two are allowed. No Secret is listed but the listener
// certificates the Secret cache holds.
func TestWarmStartIsNotTurnedAway(t *testing.T) {
	env, fresh, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	var (
		turnedAway atomic.Int64
		mu         sync.Mutex
		allSecrets []string
	)
	counted := rest.CopyConfig(fresh)
	counted.WrapTransport = func(b http.RoundTripper) http.RoundTripper {
		return refusals{base: b, n: &turnedAway, mu: &mu, allSecrets: &allSecrets}
	}

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
	mgr.GetCache().WaitForCacheSync(syncCtx) // true even past its deadline (boundedSync)
	took := time.Since(start)
	for _, o := range []client.Object{&gwv1.Gateway{}, &v1alpha1.GatewayConfig{}, &v1alpha1.GatewayClassBlueprint{}} {
		inf, err := mgr.GetCache().GetInformer(ctx, o, cache.BlockUntilSynced(false))
		if err != nil || !inf.HasSynced() {
			t.Fatalf("the informer of %T has not synced (%v)", o, err)
		}
	}
	t.Logf("informers synced %v after the start", took.Round(time.Millisecond))
	if n := turnedAway.Load(); n > 2 {
		t.Errorf("the API server answered 429 %d times before the informers synced", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(allSecrets) > 0 {
		t.Errorf("Secrets listed without the listener certificates' selector: %v", allSecrets)
	}
}
