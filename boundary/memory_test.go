package boundary

import (
	"strings"
	"testing"

	"gantry.dev/gantry/internal/lru"
)

// TestCheckMemoryIsBounded: the memory holds at most its bound, evicting the least recently
// used outputs.
func TestCheckMemoryIsBounded(t *testing.T) {
	m := newCheckMemory(4096)
	for i := range 100 {
		m.Put(lru.Key{byte(i)}, &bOutput{text: strings.Repeat("x", 200)})
		if held, _, max := m.Held(); held > max {
			t.Fatalf("after %d outputs the memory holds %d bytes, over its %d", i+1, held, max)
		}
	}
	if m.get(lru.Key{99}) == nil || m.get(lru.Key{0}) != nil {
		t.Error("the newest output was evicted, or the oldest kept")
	}
	big := &bOutput{text: strings.Repeat("x", 2000)}
	m.Put(lru.Key{200}, big)
	if m.get(lru.Key{200}) != nil {
		t.Error("an output larger than a quarter of the memory was kept")
	}
}

// TestCheckMemoryParseWithinBound: put keeps no output larger than a quarter of the memory,
// but remembering its parse counts it five times over, with no such rule: one output of a
// quarter of the bound (a tenant list of some 300,000 entries, inserted with toYaml, next to
// one tenant string that is not a plain word) evicts every other blueprint's outputs, and
// then itself.
func TestCheckMemoryParseWithinBound(t *testing.T) {
	m := newCheckMemory(4096)
	for i := range 10 {
		m.Put(lru.Key{byte(i)}, &bOutput{text: strings.Repeat("x", 100)})
	}
	big := &bOutput{text: strings.Repeat("- {}\n", 120)} // 600 bytes and an entry's cost: within a quarter
	m.Put(lru.Key{100}, big)
	if m.get(lru.Key{100}) == nil {
		t.Fatal("the output was not kept at all")
	}
	m.parsed(lru.Key{100}, big, []any{}, true)
	kept := 0
	for i := range 10 {
		if m.get(lru.Key{byte(i)}) != nil {
			kept++
		}
	}
	if held, _, max := m.Held(); kept < 5 {
		t.Errorf("remembering one parse evicted %d of 10 other outputs (and itself: %v); the memory holds %d bytes of %d",
			10-kept, m.get(lru.Key{100}) == nil, held, max)
	}
}
