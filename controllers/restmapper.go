package controllers

import (
	"net/http"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// newRESTMapper is the manager's RESTMapper: controller-runtime's dynamic one, with its
// RESTMapping answers remembered (memoMapper). The mapper gets an HTTP client of its own
// that counts its requests: it changes what it knows only after asking the API server's
// discovery.
func newRESTMapper(cfg *rest.Config, httpClient *http.Client) (meta.RESTMapper, error) {
	var requests atomic.Uint64
	counted := *httpClient
	base := httpClient.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	counted.Transport = countingTransport{base: base, n: &requests}
	m, err := apiutil.NewDynamicRESTMapper(cfg, &counted)
	if err != nil {
		return nil, err
	}
	return newMemoMapper(m, requests.Load), nil
}

type countingTransport struct {
	base http.RoundTripper
	n    *atomic.Uint64
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	defer t.n.Add(1) // after the answer: what the mapper learns from it comes after too
	return t.base.RoundTrip(r)
}

// memoMapper remembers a RESTMapper's RESTMapping answers by kind and version. Every create,
// status patch and render asks for a kind's mapping, and controller-runtime's mapper builds each
// answer anew through three layers of mappers (priority, multi, default): 81 allocations per
// lookup on envtest, 10% of all the controller allocated in a first convergence at N=1,000
// (docs/performance.md), for an answer that does not change.
//
// It is exactly as fresh as the mapper it wraps, which changes what it knows only after asking
// the API server's discovery (discoveries counts those requests): when a call to the mapper,
// any method, saw a discovery request, every answer is forgotten once the call ends (the
// mapper may have learned something new), and an answer is remembered only if no discovery
// request was made while it was asked and nothing was forgotten since. Errors are not
// remembered.
//
// This rests on how controller-runtime's mapper works (v0.25): it changes what it knows only
// inside a call, after a request through the HTTP client it was given, and it has no Reset and
// no refresh in the background. Check again on an upgrade of controller-runtime;
// TestRESTMapperLearnsNewKinds runs the real one.
//
// A limit: a kind that is not served (a blueprint's kind whose CRD is missing) is asked of
// discovery at each lookup, by the wrapped mapper, and so forgets every answer each time: while
// some reconcile keeps looking such a kind up, the memo saves little. Such a lookup costs a
// request to the API server with or without the memo.
type memoMapper struct {
	meta.RESTMapper
	discoveries func() uint64

	mu       sync.RWMutex
	mappings map[memoKey]meta.RESTMapping
	// forgotten counts how often every answer was forgotten.
	forgotten uint64
}

type memoKey struct {
	gk      schema.GroupKind
	version string
}

func newMemoMapper(m meta.RESTMapper, discoveries func() uint64) *memoMapper {
	return &memoMapper{RESTMapper: m, discoveries: discoveries, mappings: map[memoKey]meta.RESTMapping{}}
}

// RESTMapping answers from memory when it can. The answer is a copy: a caller may change it.
func (m *memoMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	if len(versions) > 1 {
		defer m.watch()()
		return m.RESTMapper.RESTMapping(gk, versions...)
	}
	key := memoKey{gk: gk}
	if len(versions) == 1 {
		key.version = versions[0]
	}
	m.mu.RLock()
	got, ok := m.mappings[key]
	forgotten := m.forgotten
	m.mu.RUnlock()
	if ok {
		return &got, nil
	}
	before := m.discoveries()
	mapping, err := m.RESTMapper.RESTMapping(gk, versions...)
	discovered := m.discoveries() != before
	m.mu.Lock()
	defer m.mu.Unlock()
	if discovered {
		m.forgetLocked()
	} else if err == nil && m.forgotten == forgotten {
		m.mappings[key] = *mapping
	}
	return mapping, err
}

func (m *memoMapper) forgetLocked() {
	m.forgotten++
	clear(m.mappings)
}

// watch is called before a call to the wrapped mapper; the function it returns, after. If the
// mapper asked discovery meanwhile, every answer is forgotten.
func (m *memoMapper) watch() func() {
	before := m.discoveries()
	return func() {
		if m.discoveries() != before {
			m.mu.Lock()
			m.forgetLocked()
			m.mu.Unlock()
		}
	}
}

func (m *memoMapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	defer m.watch()()
	return m.RESTMapper.RESTMappings(gk, versions...)
}

func (m *memoMapper) KindFor(resource schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	defer m.watch()()
	return m.RESTMapper.KindFor(resource)
}

func (m *memoMapper) KindsFor(resource schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	defer m.watch()()
	return m.RESTMapper.KindsFor(resource)
}

func (m *memoMapper) ResourceFor(input schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	defer m.watch()()
	return m.RESTMapper.ResourceFor(input)
}

func (m *memoMapper) ResourcesFor(input schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	defer m.watch()()
	return m.RESTMapper.ResourcesFor(input)
}

func (m *memoMapper) ResourceSingularizer(resource string) (string, error) {
	defer m.watch()()
	return m.RESTMapper.ResourceSingularizer(resource)
}
