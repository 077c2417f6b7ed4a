package render

import (
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"gantry.dev/gantry/internal/lru"
)

// The structure check's memory: render B is a function of its input.
//
// B runs the blueprint's templates on data in which every tenant string is a placeholder,
// replaying A's decisions. What it outputs for a template depends only on the compiled
// templates, that data, the limits, and the templates B ran before it in the same render with
// their decisions (they may change the data or remember include outputs). So a render whose B
// input is one another render already had, byte for byte, would make B produce the same text:
// the text is taken from memory instead, and compared with the new A as always. This holds
// whatever the templates do, and whatever the tenant strings say: their content is not part of
// B's input, only where they are and which are equal. It is the common case in a controller:
// a resync, a change to one route of a shared Gateway (the other routes render again with the
// same input), a tenant editing a value's content, and a fleet of Gateways of one class that
// differ in names and hostnames only.
//
// The key is a SHA-256 of a canonical encoding of that input, so that no input a tenant
// crafts can collide with another. Only B renders that succeeded are remembered; the search
// for a culprit (blame) always renders afresh. Written by hand: no library hashes Go value
// trees canonically with the placeholder substitution applied on the way.

// checkMemoryBytes bounds what the memory holds by default, all blueprints together: a few
// thousand templates' outputs, small beside the chart's 512 MiB limit.
const checkMemoryBytes = 16 << 20

// bOutput is what B produced for one template: its text, the shapes of the texts it ran
// through tpl, and, once a comparison needed it, the text parsed.
type bOutput struct {
	text   string
	code   []string
	parsed []any // nil until parsed (the fast comparison needs no parse)
	valid  bool  // parsed without error; meaningful when once is set
	once   bool  // parsed and valid are set
	// An output is not changed once stored: its parse is stored as a new output.
}

// size is what an output is counted as against checkMemoryBytes: its text, and a parsed tree
// a few times larger.
func (o *bOutput) Size() int {
	// An entry costs about 300 bytes of heap besides its text: the output, its list element,
	// its map entry and key (measured by a review: counting 64 let the heap reach 4x the bound).
	n := len(o.text) + 320
	for _, c := range o.code {
		n += len(c)
	}
	if o.once {
		n += 4 * len(o.text)
	}
	return n
}

type checkKey = lru.Key

// checkMemory is the LRU memory of B outputs.
type checkMemory struct{ *lru.Cache[*bOutput] }

// checkRendered and checkRemembered count the structure check's B outputs: rendered, or taken
// from memory.
var checkRendered, checkRemembered atomic.Int64

func newCheckMemory(max int) *checkMemory { return &checkMemory{lru.New[*bOutput](max)} }

// bMemory is the process's memory of B outputs. Keys include the blueprint's compile
// identity, so a recompiled blueprint never meets its predecessor's outputs.
var bMemory = newCheckMemory(checkMemoryBytes)

// CheckRenders reports how many B outputs the structure check rendered and how many it took
// from its memory, since the process started.
func CheckRenders() (rendered, remembered int64) { return checkRendered.Load(), checkRemembered.Load() }

// get returns the output stored under k, nil when there is none.
func (m *checkMemory) get(k checkKey) *bOutput {
	out, _ := m.Cache.Get(k)
	return out
}

// parsed remembers the parse of the output stored under k, as a new output: one handed out
// is never written to, since other renders may be reading it. As put refuses, one render's
// parse must not push out everything else.
func (m *checkMemory) parsed(k checkKey, out *bOutput, parsed []any, valid bool) {
	with := &bOutput{text: out.text, code: out.code, parsed: parsed, valid: valid, once: true}
	m.Replace(k, out, with, func(a, b *bOutput) bool { return a == b })
}

// DefaultCheckMemory is the default bound of the structure check's memory, in bytes.
const DefaultCheckMemory = checkMemoryBytes

// SetCheckMemory bounds the structure check's memory of B outputs (all blueprints together)
// to maxBytes and forgets what it holds; 0 turns it off, so that every render renders B.
func SetCheckMemory(maxBytes int) {
	bMemory.Reset(maxBytes)
}

// blueprintIDs numbers compiled blueprints for the memory's keys.
var blueprintIDs atomic.Uint64

// inputHasher writes B's input in a canonical encoding, to be hashed: a tag per type, lengths
// before contents, map entries in key order, placeholders in place of tenant strings (the
// same substitution copyValue applies).
type inputHasher struct {
	buf  []byte
	sub  *substitution
	keys []string // map keys being visited, a stack of sorted runs
	ok   bool     // false once a value of a type the encoding does not cover was met
}

var hashers = sync.Pool{New: func() any { return &inputHasher{} }}

func (w *inputHasher) tag(t byte, n int) {
	w.buf = append(w.buf, t)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(n))
}

func (w *inputHasher) str(t byte, s string) {
	w.tag(t, len(s))
	w.buf = append(w.buf, s...)
}

func (w *inputHasher) value(v any) { w.valueAt(v, everywhere) }

// valueAt is value with map keys replaced only where t marks the tenant's, as copyAt does.
func (w *inputHasher) valueAt(v any, t *KeyTree) {
	switch v := v.(type) {
	case nil:
		w.tag('n', 0)
	case bool:
		if w.sub.boolean(v) {
			w.tag('b', 1)
		} else {
			w.tag('b', 0)
		}
	case int, int64, float64:
		switch v := w.sub.num(v).(type) {
		case int:
			w.tag('i', v)
		case int64:
			w.tag('I', int(v))
		case float64:
			w.tag('f', int(math.Float64bits(v)))
		}
	case string:
		w.str('s', w.sub.str(v))
	case []any:
		w.tag('l', len(v))
		for _, e := range v {
			w.valueAt(e, t)
		}
	case map[string]any:
		w.tag('m', len(v))
		from := len(w.keys)
		for k := range v {
			w.keys = append(w.keys, k)
		}
		to := len(w.keys)
		slices.Sort(w.keys[from:to])
		for i := from; i < to; i++ {
			k := w.keys[i] // w.keys may grow (and move) below: read it afresh
			// The key as B's copy has it: kept when a template spells it out. Two keys that
			// become one placeholder cannot both be in a map: substitution is one to one.
			sub := t.at(k)
			bk := k
			if sub != nil && !w.sub.keep[k] {
				bk = w.sub.str(k)
			}
			w.str('k', bk)
			w.valueAt(v[k], sub)
		}
		w.keys = w.keys[:from]
	default:
		w.ok = false // a type copyValue keeps as it is and this encoding does not know
	}
}

// bInputKey is the key of B's input for a render: the blueprint, the limits and B's data. It
// returns false when the input holds a value the encoding does not cover: such a render
// always renders B.
func bInputKey(b *Blueprint, in *Input, sub *substitution) (checkKey, bool) {
	w := hashers.Get().(*inputHasher)
	defer w.release()
	w.sub, w.ok = sub, true
	w.input(b, in, in.Resources)
	return sha256.Sum256(w.buf), w.ok
}

func (w *inputHasher) release() {
	w.sub, w.buf, w.keys = nil, w.buf[:0], w.keys[:0]
	hashers.Put(w)
}

// input writes what every template of a render may read: the blueprint's compile, the
// limits, and the data (with resources as .Resources), substituted as w.sub says.
func (w *inputHasher) input(b *Blueprint, in *Input, resources map[string][]map[string]any) {
	w.tag('B', int(b.id))
	l := in.Limits.WithDefaults()
	w.tag('L', int(l.Timeout))
	w.tag('L', l.MaxBytes)
	w.tag('L', l.MaxObjects)
	w.tag('L', l.MaxLoop)
	w.tag('L', l.MaxSteps)
	w.str('k', "Values")
	if in.TenantKeys != nil {
		w.tag('T', 1) // keys replaced where the tenant wrote them
		w.valueAt(nilMap(in.Values), in.TenantKeys)
	} else {
		w.value(nilMap(in.Values))
	}
	w.str('k', "Gateway")
	w.value(nilMap(in.Gateway))
	w.str('k', "HTTPRoute")
	if in.HTTPRoute != nil {
		w.value(in.HTTPRoute)
		w.str('k', "Backends")
		w.value(in.Backends)
	} else {
		w.tag('-', 0)
	}
	w.str('k', "ListenerSets")
	w.tag('l', len(in.ListenerSets))
	for _, ls := range in.ListenerSets {
		w.value(nilMap(ls))
	}
	w.str('k', "Resources")
	w.tag('m', len(resources))
	for _, k := range slices.Sorted(maps.Keys(resources)) {
		w.str('k', k)
		w.tag('l', len(resources[k]))
		for _, o := range resources[k] {
			w.value(nilMap(o))
		}
	}
	w.str('k', "Hostnames")
	// Its keys are the engine's, not data: hashed as they are; its lists substituted as hashed.
	hostnames := hostnamesData(in.Hostnames, func(v any) any { return v })
	w.tag('m', len(hostnames))
	for _, k := range slices.Sorted(maps.Keys(hostnames)) {
		w.str('k', k)
		w.value(hostnames[k])
	}
}

// nilMap is m, or an empty map for nil, as B's copy has it.
func nilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// chainKey extends the key of what B ran so far with one more template and the decisions it
// replays: the key of that template's output.
func chainKey(prev checkKey, c *compiled, log decisions) checkKey {
	w := hashers.Get().(*inputHasher)
	defer func() {
		w.buf = w.buf[:0]
		hashers.Put(w)
	}()
	w.buf = append(w.buf, prev[:]...)
	w.str('t', c.field)
	w.tag('d', len(log))
	for _, id := range sortedIDs(log) {
		w.tag('#', id)
		w.tag('l', len(log[id]))
		for _, d := range log[id] {
			w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(d))
		}
	}
	return sha256.Sum256(w.buf)
}

func sortedIDs(log decisions) []int {
	if len(log) == 1 {
		for id := range log {
			return []int{id}
		}
	}
	return slices.Sorted(maps.Keys(log))
}

// keyTree writes a KeyTree: nil, whole, or its keys in order with their trees.
func (w *inputHasher) keyTree(t *KeyTree) {
	switch {
	case t == nil:
		w.tag('n', 0)
	case t.All:
		w.tag('A', 1)
	default:
		w.tag('K', len(t.Keys))
		for _, k := range slices.Sorted(maps.Keys(t.Keys)) {
			w.str('k', k)
			w.keyTree(t.Keys[k])
		}
	}
}
