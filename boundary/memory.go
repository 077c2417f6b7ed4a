package boundary

import (
	"crypto/sha256"
	"encoding/binary"
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

// checkMemory is the LRU memory of B outputs.
type checkMemory struct{ *lru.Cache[*bOutput] }

// checkRendered and checkRemembered count the structure check's B outputs: rendered, or taken
// from memory.
var checkRendered, checkRemembered atomic.Int64

func newCheckMemory(max int) *checkMemory { return &checkMemory{lru.New[*bOutput](max)} }

// bMemory is the process's memory of B outputs. Keys include the blueprint's compile
// identity, so a recompiled blueprint never meets its predecessor's outputs.
var bMemory = newCheckMemory(checkMemoryBytes)

// Renders reports how many B outputs the structure check rendered and how many it took
// from its memory, since the process started.
func Renders() (rendered, remembered int64) { return checkRendered.Load(), checkRemembered.Load() }

// get returns the output stored under k, nil when there is none.
func (m *checkMemory) get(k lru.Key) *bOutput {
	out, _ := m.Cache.Get(k)
	return out
}

// parsed remembers the parse of the output stored under k, as a new output: one handed out
// is never written to, since other renders may be reading it. As put refuses, one render's
// parse must not push out everything else.
func (m *checkMemory) parsed(k lru.Key, out *bOutput, parsed []any, valid bool) {
	with := &bOutput{text: out.text, code: out.code, parsed: parsed, valid: valid, once: true}
	m.Replace(k, out, with, func(a, b *bOutput) bool { return a == b })
}

// MemoryHeld is what the memory of B outputs holds: bytes as counted, and entries.
func MemoryHeld() (bytes, entries int) {
	bytes, entries, _ = bMemory.Held()
	return bytes, entries
}

// MemoryOn reports whether the memory of B outputs may hold anything: with it off, a render
// need not key its input (a hash of every value it reads), since nothing is looked up.
func MemoryOn() bool {
	_, _, max := bMemory.Held()
	return max > 0
}

// DefaultMemory is the default bound of the structure check's memory, in bytes.
const DefaultMemory = checkMemoryBytes

// SetMemory bounds the structure check's memory of B outputs (all blueprints together)
// to maxBytes and forgets what it holds; 0 turns it off, so that every render renders B.
func SetMemory(maxBytes int) {
	bMemory.Reset(maxBytes)
}

// chainKey extends the key of what B ran so far with one more template and the decisions it
// replays: the key of that template's output.
func chainKey(prev lru.Key, t Template, log Decisions) lru.Key {
	w := hashers.Get().(*Hasher)
	defer func() {
		w.buf = w.buf[:0]
		hashers.Put(w)
	}()
	w.buf = append(w.buf, prev[:]...)
	w.Str('t', t.Name())
	w.Tag('d', len(log))
	for _, d := range log {
		w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(d))
	}
	return sha256.Sum256(w.buf)
}
