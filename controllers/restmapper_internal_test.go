package controllers

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// discoveringMapper stands for controller-runtime's dynamic mapper: it keeps what it learned
// and asks "discovery" (the cluster's current kinds) again only when asked for a kind it does
// not know, or through its other methods. The cluster can change between calls.
type discoveringMapper struct {
	meta.RESTMapper // methods the test does not call

	mu      sync.Mutex
	cluster map[schema.GroupKind]meta.RESTScope // what the API server serves now
	known   map[schema.GroupKind]meta.RESTScope // what the mapper learned
	calls   int
	// requests counts requests to discovery; a reader may look at it while the mapper works.
	requests atomic.Uint64
}

func (d *discoveringMapper) rediscover() {
	d.requests.Add(1)
	d.known = map[schema.GroupKind]meta.RESTScope{}
	for gk, s := range d.cluster {
		d.known[gk] = s
	}
}

func (d *discoveringMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls++
	s, ok := d.known[gk]
	if !ok {
		d.rediscover()
		if s, ok = d.known[gk]; !ok {
			return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: versions}
		}
	}
	gvk := gk.WithVersion(versions[0])
	return &meta.RESTMapping{GroupVersionKind: gvk, Resource: gvk.GroupVersion().WithResource(gk.Kind + "s"), Scope: s}, nil
}

func (d *discoveringMapper) KindFor(resource schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls++
	d.rediscover()
	return schema.GroupVersionKind{}, nil
}

func describe(m *meta.RESTMapping, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%s %s %s", m.GroupVersionKind, m.Resource, m.Scope.Name())
}

// TestMemoMapperAnswersAsItsMapper asks a memoMapper and, separately, a second copy of the
// mapper it wraps the same questions while the cluster's kinds change (created, deleted,
// recreated with the other scope), and requires the same answers. The oracle is the mapper
// itself, asked every time: the memo may save work, never change an answer.
func TestMemoMapperAnswersAsItsMapper(t *testing.T) {
	kinds := []schema.GroupKind{{Group: "a.example", Kind: "One"}, {Group: "a.example", Kind: "Two"}, {Group: "b.example", Kind: "Three"}, {Group: "", Kind: "Four"}}
	scopes := []meta.RESTScope{meta.RESTScopeNamespace, meta.RESTScopeRoot}
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 1))
		cluster := map[schema.GroupKind]meta.RESTScope{}
		wrapped := &discoveringMapper{cluster: cluster, known: map[schema.GroupKind]meta.RESTScope{}}
		oracle := &discoveringMapper{cluster: cluster, known: map[schema.GroupKind]meta.RESTScope{}}
		memo := newMemoMapper(wrapped, wrapped.requests.Load)
		for step := range 300 {
			gk := kinds[rng.IntN(len(kinds))]
			switch rng.IntN(6) {
			case 0: // the cluster changes: a CRD created, deleted or recreated with another scope
				if rng.IntN(3) == 0 {
					delete(cluster, gk)
				} else {
					cluster[gk] = scopes[rng.IntN(2)]
				}
			case 1: // another method, which rediscovers
				_, _ = memo.KindFor(schema.GroupVersionResource{})
				_, _ = oracle.KindFor(schema.GroupVersionResource{})
			default:
				got, want := describe(memo.RESTMapping(gk, "v1")), describe(oracle.RESTMapping(gk, "v1"))
				if got != want {
					t.Fatalf("seed %d, step %d, %s: memo answered %q, the mapper %q", seed, step, gk, got, want)
				}
			}
		}
		if wrapped.calls >= oracle.calls {
			t.Errorf("seed %d: the memo asked its mapper %d times, as often as without it (%d)", seed, wrapped.calls, oracle.calls)
		}
	}
}

// TestMemoMapperAnswerIsACopy: a caller changing its answer changes nobody else's.
func TestMemoMapperAnswerIsACopy(t *testing.T) {
	gk := schema.GroupKind{Group: "a.example", Kind: "One"}
	d := &discoveringMapper{cluster: map[schema.GroupKind]meta.RESTScope{gk: meta.RESTScopeNamespace}, known: map[schema.GroupKind]meta.RESTScope{}}
	memo := newMemoMapper(d, d.requests.Load)
	for range 2 {
		m, err := memo.RESTMapping(gk, "v1")
		if err != nil {
			t.Fatal(err)
		}
		if m.Resource.Resource != "Ones" {
			t.Fatalf("resource %q, want Ones", m.Resource.Resource)
		}
		m.Resource.Resource = "changed"
	}
}

// TestMemoMapperConcurrent: lookups from many goroutines while the mapper rediscovers end
// with every remembered answer the mapper's current one.
func TestMemoMapperConcurrent(t *testing.T) {
	gk := schema.GroupKind{Group: "a.example", Kind: "One"}
	other := schema.GroupKind{Group: "a.example", Kind: "Two"}
	d := &discoveringMapper{cluster: map[schema.GroupKind]meta.RESTScope{gk: meta.RESTScopeNamespace, other: meta.RESTScopeRoot}, known: map[schema.GroupKind]meta.RESTScope{}}
	memo := newMemoMapper(d, d.requests.Load)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				if i == 0 && j == 100 {
					d.mu.Lock()
					d.cluster[gk] = meta.RESTScopeRoot
					d.mu.Unlock()
					_, _ = memo.KindFor(schema.GroupVersionResource{})
				}
				_, _ = memo.RESTMapping(gk, "v1")
				_, _ = memo.RESTMapping(other, "v1")
			}
		})
	}
	wg.Wait()
	m, err := memo.RESTMapping(gk, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if m.Scope.Name() != meta.RESTScopeNameRoot {
		t.Fatalf("after the rediscovery the memo still answers scope %s", m.Scope.Name())
	}
}

// TestMemoMapperRemembers: asked for the same kinds again and again, as reconciles ask, the
// memo stops asking its mapper once it has learned them.
func TestMemoMapperRemembers(t *testing.T) {
	kinds := []schema.GroupKind{{Group: "apps", Kind: "Deployment"}, {Kind: "Service"}, {Kind: "ServiceAccount"}, {Group: "policy", Kind: "PodDisruptionBudget"}}
	d := &discoveringMapper{cluster: map[schema.GroupKind]meta.RESTScope{}, known: map[schema.GroupKind]meta.RESTScope{}}
	for _, gk := range kinds {
		d.cluster[gk] = meta.RESTScopeNamespace
	}
	memo := newMemoMapper(d, d.requests.Load)
	for range 100 {
		for _, gk := range kinds {
			if _, err := memo.RESTMapping(gk, "v1"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if d.calls > 2*len(kinds) {
		t.Errorf("400 lookups of %d kinds asked the mapper %d times", len(kinds), d.calls)
	}
}
