package controllers_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"gantry.dev/gantry/controllers"
)

// informerLog wraps the manager's cache and records the kind of every informer asked for, and
// whether the cache had started by then.
type informerLog struct {
	mu      sync.Mutex
	started bool
	before  map[string]bool
	after   map[string]bool
	scheme  *runtime.Scheme
}

func (l *informerLog) newCache(cfg *rest.Config, o cache.Options) (cache.Cache, error) {
	c, err := cache.New(cfg, o)
	l.scheme = o.Scheme
	return &loggedCache{Cache: c, log: l}, err
}

func (l *informerLog) asked(o client.Object) {
	gvk, err := apiutil.GVKForObject(o, l.scheme)
	name := gvk.String()
	if err != nil {
		name = fmt.Sprintf("%T (%v)", o, err)
	}
	if _, ok := o.(*metav1.PartialObjectMetadata); ok {
		name = "metadata of " + name
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started {
		l.after[name] = true
	} else {
		l.before[name] = true
	}
}

// late is what was asked for only once the cache had started, and how many kinds were asked
// for after it started.
func (l *informerLog) late() (late []string, after int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k := range l.after {
		if !l.before[k] {
			late = append(late, k)
		}
	}
	slices.Sort(late)
	return late, len(l.after)
}

type loggedCache struct {
	cache.Cache
	log *informerLog
}

func (c *loggedCache) Start(ctx context.Context) error {
	c.log.mu.Lock()
	c.log.started = true
	c.log.mu.Unlock()
	return c.Cache.Start(ctx)
}

// IndexField makes the kind's informer too (setupIndexes).
func (c *loggedCache) IndexField(ctx context.Context, o client.Object, field string, extract client.IndexerFunc) error {
	c.log.asked(o)
	return c.Cache.IndexField(ctx, o, field, extract)
}

func (c *loggedCache) GetInformer(ctx context.Context, o client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	c.log.asked(o)
	return c.Cache.GetInformer(ctx, o, opts...)
}

// TestInformersStartTogether: every informer of the manager's cache exists before the manager
// starts, so that all of them are listed and waited for at once. A controller's watch of a kind
// nothing had asked for before starts its informer only when the controller starts, after the
// manager has waited for the others: on a fresh API server each such wait cost a second
// (informEarly).
func TestInformersStartTogether(t *testing.T) {
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("informers", `{"names":["a"]}`, map[string]string{"names": namesTemplate}))

	// This test's manager replaces the suite's controller, which comes back afterwards.
	stopMgr()
	stop := func() {}
	t.Cleanup(func() {
		stop()
		startOrFail(t)
	})
	l := &informerLog{before: map[string]bool{}, after: map[string]bool{}}
	mgr, err := controllers.NewManager(cfg, controllers.ManagerOptions{MetricsAddress: "0", Restartable: true, NewCache: l.newCache})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := controllers.Setup(ctx, mgr, controllers.Options{ControllerNamespace: controllerNS, PolicyStatusInterval: 100 * time.Millisecond}); err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	}

	// A Gateway rendered means the Gateway controller started, after its sources synced;
	// the others start at the same moment. Then wait until no kind has been asked for in a
	// second, so that every controller's sources have asked for theirs.
	create(t, gateway(ns, "web", class))
	waitConfigMaps(t, ns, "web", "web-n-a")
	for seen := -1; ; {
		_, n := l.late()
		if n == seen {
			break
		}
		seen = n
		time.Sleep(time.Second)
	}
	late, after := l.late()
	if after == 0 {
		t.Fatal("no informer was asked for after the cache started: the controllers' sources were not seen")
	}
	if len(late) > 0 {
		t.Errorf("informers first asked for after the manager's cache started (add them to informEarly): %v", late)
	}
}
