package boundary

import (
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"math"
	"slices"
	"sync"

	"gantry.dev/gantry/internal/lru"
)

// Hasher writes B's input in a canonical encoding, to be hashed: a tag per type, lengths
// before contents, map entries in key order, placeholders in place of tenant strings (the
// same substitution CopyValue applies).
type Hasher struct {
	buf  []byte
	sub  *Substitution
	keys []string // map keys being visited, a stack of sorted runs
	ok   bool     // false once a value of a type the encoding does not cover was met
}

var hashers = sync.Pool{New: func() any { return &Hasher{} }}

// Tag writes a type tag and a length or number.
func (w *Hasher) Tag(t byte, n int) {
	w.buf = append(w.buf, t)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(n))
}

// Str writes a tag and a string as it is (substituted strings go through Value).
func (w *Hasher) Str(t byte, s string) {
	w.Tag(t, len(s))
	w.buf = append(w.buf, s...)
}

// Value writes a value tree with the stand-ins applied everywhere.
func (w *Hasher) Value(v any) { w.ValueAt(v, Everywhere) }

// ValueAt is value with map keys replaced only where t marks the tenant's, as copyAt does.
func (w *Hasher) ValueAt(v any, t *KeyTree) {
	switch v := v.(type) {
	case nil:
		w.Tag('n', 0)
	case bool:
		if w.sub.Boolean(v) {
			w.Tag('b', 1)
		} else {
			w.Tag('b', 0)
		}
	case int, int64, float64:
		switch v := w.sub.Num(v).(type) {
		case int:
			w.Tag('i', v)
		case int64:
			w.Tag('I', int(v))
		case float64:
			w.Tag('f', int(math.Float64bits(v)))
		}
	case string:
		w.Str('s', w.sub.Str(v))
	case []any:
		w.Tag('l', len(v))
		for _, e := range v {
			w.ValueAt(e, t)
		}
	case map[string]any:
		w.Tag('m', len(v))
		from := len(w.keys)
		for k := range v {
			w.keys = append(w.keys, k)
		}
		to := len(w.keys)
		slices.Sort(w.keys[from:to])
		for i := from; i < to; i++ {
			k := w.keys[i] // w.keys may grow (and move) below: read it afresh
			// The key as B's copy has it: kept when a template spells it out. Two keys that
			// become one placeholder cannot both be in a map: Substitution is one to one.
			sub := t.At(k)
			bk := k
			if sub != nil && !w.sub.keep[k] {
				bk = w.sub.Str(k)
			}
			w.Str('k', bk)
			w.ValueAt(v[k], sub)
		}
		w.keys = w.keys[:from]
	default:
		w.ok = false // a type CopyValue keeps as it is and this encoding does not know
	}
}

// Release returns w to the pool.
func (w *Hasher) Release() {
	w.sub, w.buf, w.keys = nil, w.buf[:0], w.keys[:0]
	hashers.Put(w)
}

// KeyTree writes a KeyTree: nil, whole, or its keys in order with their trees.
func (w *Hasher) KeyTree(t *KeyTree) {
	switch {
	case t == nil:
		w.Tag('n', 0)
	case t.All:
		w.Tag('A', 1)
	default:
		w.Tag('K', len(t.Keys))
		for _, k := range slices.Sorted(maps.Keys(t.Keys)) {
			w.Str('k', k)
			w.KeyTree(t.Keys[k])
		}
	}
}

// NewHasher returns a Hasher, from a pool, that writes values with sub's stand-ins (Identity:
// as they are). Release it when done.
func NewHasher(sub *Substitution) *Hasher {
	w := hashers.Get().(*Hasher)
	w.sub, w.ok = sub, true
	return w
}

// Sum is the key of what w wrote; ok is false when a value of a type the encoding does not
// cover was met, and then the key must not be used.
func (w *Hasher) Sum() (key lru.Key, ok bool) { return sha256.Sum256(w.buf), w.ok }

// Identity substitutes nothing: a Hasher with it writes tenant values as they are (the key of a
// whole render's output, which depends on their content).
var Identity = &Substitution{}
