package controllers

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// warmTimeout bounds warmCache's requests: past it the informers start anyway. The most the
// lists can save is the second of Retry-After; an API server that answers them 429 itself (API
// Priority and Fairness turning requests away) has client-go retry them, and they must not hold
// the start longer than they can save.
const warmTimeout = time.Second

// warmCache asks the API server for one object of each custom resource kind the cache will
// watch (a list with limit 1, metadata only) before it starts the informers. An API server
// builds its watch cache of a custom resource on the first request for it, and until that cache
// is built it answers a watch that asks for the initial objects (client-go's streaming list) with
// 429 and Retry-After: 1, and client-go waits that second. On a first install (the CRDs and the
// controller installed together) the informers were those first requests: the controller
// started a second late (1.1 s before the informers synced, 0.17 s after a plain list of each
// kind first; TestWarmStartIsNotTurnedAway). A plain list without selectors is served from etcd
// whether the watch cache is built or not, and it starts the building. The requests go out
// together and cost a few milliseconds on an API server that has served the kinds before; their
// errors are only logged, since the informers meet the same ones and report them.
//
// Best effort: the lists start the building but do not wait for it; a watch cache that takes
// longer to build than the lists take to answer (a large kind on an API server that has just
// restarted) still turns the informers away for a second, as before.
//
// Built-in kinds are left out: the API server builds their watch caches when it starts, and a
// list without the cache's own selectors would read what the cache does not (the Secret cache
// holds kubernetes.io/tls Secrets only; a list of one Secret could be any Secret, and its
// last-applied annotation can hold its data).
//
// It sees the kinds asked for before the cache starts: every informer is created before then
// (informEarly, TestInformersStartTogether).
type warmCache struct {
	cache.Cache
	scheme *runtime.Scheme
	reader client.Reader

	mu      sync.Mutex
	started bool
	kinds   map[schema.GroupVersionKind]bool
}

func newWarmCache(c cache.Cache, scheme *runtime.Scheme, reader client.Reader) *warmCache {
	return &warmCache{Cache: c, scheme: scheme, reader: reader, kinds: map[schema.GroupVersionKind]bool{}}
}

func (c *warmCache) note(o client.Object) {
	gvk, err := apiutil.GVKForObject(o, c.scheme)
	if err != nil {
		return // the cache itself reports it
	}
	c.noteKind(gvk)
}

func (c *warmCache) noteKind(gvk schema.GroupVersionKind) {
	if clientgoscheme.Scheme.Recognizes(gvk) {
		return // built in: its watch cache is built when the API server starts
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		c.kinds[gvk] = true
	}
}

func (c *warmCache) GetInformer(ctx context.Context, o client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	c.note(o)
	return c.Cache.GetInformer(ctx, o, opts...)
}

func (c *warmCache) GetInformerForKind(ctx context.Context, gvk schema.GroupVersionKind, opts ...cache.InformerGetOption) (cache.Informer, error) {
	c.noteKind(gvk)
	return c.Cache.GetInformerForKind(ctx, gvk, opts...)
}

// IndexField makes the kind's informer too.
func (c *warmCache) IndexField(ctx context.Context, o client.Object, field string, extract client.IndexerFunc) error {
	c.note(o)
	return c.Cache.IndexField(ctx, o, field, extract)
}

func (c *warmCache) Start(ctx context.Context) error {
	c.mu.Lock()
	c.started = true
	kinds := c.kinds
	c.mu.Unlock()
	c.warm(ctx, kinds)
	return c.Cache.Start(ctx)
}

func (c *warmCache) warm(ctx context.Context, kinds map[schema.GroupVersionKind]bool) {
	ctx, cancel := context.WithTimeout(ctx, warmTimeout)
	defer cancel()
	logger := log.FromContext(ctx).WithName("cache")
	start := time.Now()
	var wg sync.WaitGroup
	for gvk := range kinds {
		wg.Go(func() {
			l := &metav1.PartialObjectMetadataList{}
			l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			if err := c.reader.List(ctx, l, client.Limit(1)); err != nil {
				logger.V(1).Info("a first list before the informers failed", "kind", gvk.String(), "error", err.Error())
			}
		})
	}
	wg.Wait()
	logger.V(1).Info("listed each watched custom resource kind once before the informers", "kinds", len(kinds), "took", time.Since(start).String())
}
