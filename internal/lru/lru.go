// Package lru is a least-recently-used memory bounded in bytes, keyed by SHA-256 hashes of
// canonical encodings of render inputs.
package lru

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// Key is a SHA-256 of a canonical encoding of a render's input (see the hashers of render and boundary).
type Key [sha256.Size]byte

// Sized is a value a memory holds, counted against the memory's bound by its size in bytes.
type Sized interface{ Size() int }

// Cache is a least-recently-used map from input hashes to outputs, bounded in bytes. The
// tenant boundary's memory of B outputs and the controller's memory of whole render outputs
// are both one. Written by hand: it is forty lines, and the well-kept LRU libraries bound
// entries by count, not by the bytes each holds.
type Cache[V Sized] struct {
	mu      sync.Mutex
	entries map[Key]*list.Element
	order   *list.List // front: most recently used
	bytes   int
	max     int
}

type lruEntry[V Sized] struct {
	key Key
	out V
}

// New returns an empty memory bounded to max bytes.
func New[V Sized](max int) *Cache[V] {
	return &Cache[V]{entries: map[Key]*list.Element{}, order: list.New(), max: max}
}

// Get returns the value stored under k and marks it most recently used.
func (m *Cache[V]) Get(k Key) (V, bool) {
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

// Put stores out under k. One output larger than a quarter of the bound is not stored: it
// would push out everything else.
func (m *Cache[V]) Put(k Key, out V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.max <= 0 || out.Size() > m.max/4 {
		return
	}
	if e, ok := m.entries[k]; ok {
		m.bytes -= e.Value.(*lruEntry[V]).out.Size()
		e.Value.(*lruEntry[V]).out = out
		m.order.MoveToFront(e)
	} else {
		m.entries[k] = m.order.PushFront(&lruEntry[V]{key: k, out: out})
	}
	m.bytes += out.Size()
	m.evict()
}

// Replace stores with under k in place of old, if k still holds old; as Put, it refuses an
// output too large.
func (m *Cache[V]) Replace(k Key, old, with V, same func(a, b V) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[k]
	if !ok || !same(e.Value.(*lruEntry[V]).out, old) || with.Size() > m.max/4 {
		return
	}
	e.Value.(*lruEntry[V]).out = with
	m.bytes += with.Size() - old.Size()
	m.evict()
}

// Reset forgets everything and sets a new bound.
func (m *Cache[V]) Reset(max int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.entries)
	m.order.Init()
	m.bytes, m.max = 0, max
}

func (m *Cache[V]) evict() {
	for m.bytes > m.max && m.order.Len() > 0 {
		e := m.order.Back()
		le := e.Value.(*lruEntry[V])
		m.order.Remove(e)
		delete(m.entries, le.key)
		m.bytes -= le.out.Size()
	}
}

// Held reports what the memory holds: its bytes as counted, its entries, and its bound.
func (m *Cache[V]) Held() (bytes, entries, max int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes, len(m.entries), m.max
}
