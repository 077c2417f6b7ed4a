package render

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// memoryKey is a SHA-256 of a canonical encoding of a render's input (see inputHasher).
type memoryKey [sha256.Size]byte

// sized is a value a memory holds, counted against the memory's bound by its size in bytes.
type sized interface{ size() int }

// lru is a least-recently-used map from input hashes to outputs, bounded in bytes. The
// structure check's memory of B outputs and the controller's memory of whole render outputs
// are both one. Written by hand: it is forty lines, and the well-kept LRU libraries bound
// entries by count, not by the bytes each holds.
type lru[V sized] struct {
	mu      sync.Mutex
	entries map[memoryKey]*list.Element
	order   *list.List // front: most recently used
	bytes   int
	max     int
}

type lruEntry[V sized] struct {
	key memoryKey
	out V
}

func newLRU[V sized](max int) *lru[V] {
	return &lru[V]{entries: map[memoryKey]*list.Element{}, order: list.New(), max: max}
}

func (m *lru[V]) get(k memoryKey) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[k]
	if !ok {
		var zero V
		return zero, false
	}
	m.order.MoveToFront(e)
	return e.Value.(*lruEntry[V]).out, true
}

// put stores out under k. One output larger than a quarter of the bound is not stored: it
// would push out everything else.
func (m *lru[V]) put(k memoryKey, out V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.max <= 0 || out.size() > m.max/4 {
		return
	}
	if e, ok := m.entries[k]; ok {
		m.bytes -= e.Value.(*lruEntry[V]).out.size()
		e.Value.(*lruEntry[V]).out = out
		m.order.MoveToFront(e)
	} else {
		m.entries[k] = m.order.PushFront(&lruEntry[V]{key: k, out: out})
	}
	m.bytes += out.size()
	m.evict()
}

// replace stores with under k in place of old, if k still holds old; as put, it refuses an
// output too large.
func (m *lru[V]) replace(k memoryKey, old, with V, same func(a, b V) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[k]
	if !ok || !same(e.Value.(*lruEntry[V]).out, old) || with.size() > m.max/4 {
		return
	}
	e.Value.(*lruEntry[V]).out = with
	m.bytes += with.size() - old.size()
	m.evict()
}

// reset forgets everything and sets a new bound.
func (m *lru[V]) reset(max int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.entries)
	m.order.Init()
	m.bytes, m.max = 0, max
}

func (m *lru[V]) evict() {
	for m.bytes > m.max && m.order.Len() > 0 {
		e := m.order.Back()
		le := e.Value.(*lruEntry[V])
		m.order.Remove(e)
		delete(m.entries, le.key)
		m.bytes -= le.out.size()
	}
}
