package render

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/internal/lru"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// OutputMemory remembers whole render outputs, so that a render whose input did not change is
// not run again: a resync, a controller's second look at a Gateway after its own status write,
// a global policy edit that leaves a Gateway's effective values as they were, a change to one
// route of a shared Gateway (its other routes render with the same input).
//
// A render is a function of its input: the function set is hermetic (no clock, environment,
// network or random source, see funcs.go), and a template reads nothing but its context. So the
// key is everything a render reads, hashed canonically (see boundary.Hasher): the blueprint's
// compile, the limits, .Values, .Gateway, the route and its kind, .Resources, .Hostnames, the namespace,
// the set of tenant strings, and the kinds' scopes offline. Of .Resources, only the entries the
// templates can read are in the key (see ReadableResources), so that an apply of an object no
// template reads is not a new input. What a template did
// not read is in the key too: being exact is cheaper than being clever. It holds whatever the
// templates do; no list of what they read is kept.
//
// Only successful renders are remembered: a failure renders afresh, and its error is found
// and explained as always. Outputs are stored as JSON and decoded afresh for each caller,
// which owns and may change what it gets; the decode keeps integers int64, as the render
// makes them.
//
// A nil *OutputMemory remembers nothing: every call renders.
type OutputMemory struct {
	m                    *lru.Cache[storedOutput]
	rendered, remembered atomic.Int64
}

// DefaultOutputMemory is the controller's default bound of the output memory, in bytes.
const DefaultOutputMemory = 32 << 20

// NewOutputMemory returns a memory of render outputs bounded to about maxBytes; 0 or less
// returns nil, which remembers nothing.
func NewOutputMemory(maxBytes int) *OutputMemory {
	if maxBytes <= 0 {
		return nil
	}
	return &OutputMemory{m: lru.New[storedOutput](maxBytes)}
}

// outputRendered and outputRemembered count every memory's renders, for the controller's metric.
var outputRendered, outputRemembered atomic.Int64

// OutputRenders reports how many renders all output memories ran and how many they answered
// from memory, since the process started.
func OutputRenders() (rendered, remembered int64) {
	return outputRendered.Load(), outputRemembered.Load()
}

// Renders reports how many renders the memory ran and how many it answered from memory.
func (m *OutputMemory) Renders() (rendered, remembered int64) {
	if m == nil {
		return 0, 0
	}
	return m.rendered.Load(), m.remembered.Load()
}

// RenderGateway is b.RenderGateway(in), from memory when the same input rendered before.
func (m *OutputMemory) RenderGateway(b *Blueprint, in *Input) (*Output, error) {
	return m.render(b, in, 'G', b.RenderGateway)
}

// RenderRoute is b.RenderRoute(in), from memory when the same input rendered before.
func (m *OutputMemory) RenderRoute(b *Blueprint, in *Input) (*Output, error) {
	return m.render(b, in, 'R', b.RenderRoute)
}

func (m *OutputMemory) render(b *Blueprint, in *Input, set byte, render func(*Input) (*Output, error)) (*Output, error) {
	if m == nil || in.KeepText {
		return render(in)
	}
	key, ok := outputKey(b, in, set)
	if ok {
		if stored, found := m.m.Get(key); found {
			if out, err := stored.decode(); err == nil {
				m.remembered.Add(1)
				outputRemembered.Add(1)
				return out, nil
			}
			// Cannot happen with what encode wrote; render afresh rather than fail.
		}
	}
	m.rendered.Add(1)
	outputRendered.Add(1)
	out, err := render(in)
	if err != nil || !ok {
		return out, err
	}
	if stored, err := encodeOutput(out); err == nil {
		m.m.Put(key, stored)
	}
	return out, nil
}

// outputKey hashes everything a render of set ('G' gateway, 'R' route) reads. It returns
// false when the input holds a value the encoding does not cover; such a render is not
// remembered.
func outputKey(b *Blueprint, in *Input, set byte) (lru.Key, bool) {
	w := boundary.NewHasher(boundary.Identity)
	defer w.Release()
	w.Tag('O', int(set))
	writeInput(w, b, in, b.ReadableResources(in.Resources))
	w.Str('k', "Namespace")
	w.Str('s', in.Namespace)
	// Which strings are the tenants' decides what the structure check refuses: the set of
	// them, in sorted order. Their origins only name the culprit of a refusal, and refusals
	// are not remembered.
	values := make([]string, len(in.Tainted))
	for i, t := range in.Tainted {
		values[i] = t.Value
		if t.Scalar != nil { // a number or a bool: not the string of the same text
			values[i] = fmt.Sprintf("\x00%T %s", t.Scalar, t.Value)
		}
	}
	slices.Sort(values)
	values = slices.Compact(values)
	w.Tag('T', len(values))
	for _, v := range values {
		w.Str('s', v)
	}
	// Where the tenant's keys are decides it too.
	w.KeyTree(in.TenantKeys)
	// A kind's scope comes from the API server when IsNamespaced is set (it does not change
	// while the kind is served; a kind no longer served fails the apply), from CustomKinds and
	// a table otherwise.
	if in.IsNamespaced != nil {
		w.Tag('N', 1)
	} else {
		w.Tag('N', 0)
		w.Tag('C', len(in.CustomKinds))
		for _, gk := range slices.SortedFunc(maps.Keys(in.CustomKinds), compareGroupKind) {
			w.Str('s', gk.Group)
			w.Str('s', gk.Kind)
			if in.CustomKinds[gk] {
				w.Tag('b', 1)
			} else {
				w.Tag('b', 0)
			}
		}
	}
	return w.Sum()
}

// ReadableResources is the part of live objects (.Resources) the blueprint's templates can
// read (see resourcesRead in reads.go): all of it when that is not known exactly. A render
// given only that part renders as with all of it, and its tenant strings are those of the
// objects a template can read.
func (b *Blueprint) ReadableResources(all map[string][]map[string]any) map[string][]map[string]any {
	if !b.resourcesExact || all == nil {
		return all
	}
	out := make(map[string][]map[string]any, len(b.resourceEntries))
	for _, k := range b.resourceEntries {
		if objs, ok := all[k]; ok {
			out[k] = objs
		}
	}
	return out
}

// storedOutput is an Output as JSON.
type storedOutput []byte

// size counts the JSON and about what its entry, list element and key cost besides.
func (s storedOutput) Size() int { return len(s) + 320 }

type wireOutput struct {
	Objects []wireObject   `json:"o"`
	Status  map[string]any `json:"s,omitempty"`
	Pending []Pending      `json:"p,omitempty"`
}

type wireObject struct {
	Template string         `json:"t"`
	Object   map[string]any `json:"v"`
}

func encodeOutput(out *Output) (storedOutput, error) {
	w := wireOutput{Status: out.Status, Pending: out.Pending, Objects: make([]wireObject, len(out.Objects))}
	for i, o := range out.Objects {
		w.Objects[i] = wireObject{Template: o.Template, Object: o.Object}
	}
	return json.Marshal(w)
}

func (s storedOutput) decode() (*Output, error) {
	var w wireOutput
	if err := utiljson.Unmarshal(s, &w); err != nil {
		return nil, fmt.Errorf("decode a remembered output: %w", err)
	}
	out := &Output{Status: w.Status, Pending: w.Pending}
	if len(w.Objects) > 0 {
		out.Objects = make([]Object, len(w.Objects))
		for i, o := range w.Objects {
			out.Objects[i] = Object{Template: o.Template, Object: o.Object}
		}
	}
	return out, nil
}

func compareGroupKind(a, b schema.GroupKind) int {
	return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Kind, b.Kind))
}

// bInputKey is the key of B's input for a render: the blueprint, the limits and B's data. It
// returns false when the input holds a value the encoding does not cover: such a render
// always renders B.
func bInputKey(b *Blueprint, in *Input, sub *boundary.Substitution) (lru.Key, bool) {
	w := boundary.NewHasher(sub)
	defer w.Release()
	writeInput(w, b, in, in.Resources)
	return w.Sum()
}

// writeInput writes what every template of a render may read: the blueprint's compile, the
// limits, and the data (with resources as .Resources), with w's stand-ins.
func writeInput(w *boundary.Hasher, b *Blueprint, in *Input, resources map[string][]map[string]any) {
	w.Tag('B', int(b.id))
	l := in.Limits.WithDefaults()
	w.Tag('L', int(l.Timeout))
	w.Tag('L', l.MaxBytes)
	w.Tag('L', l.MaxObjects)
	w.Tag('L', l.MaxLoop)
	w.Tag('L', l.MaxSteps)
	w.Str('k', "Values")
	if in.TenantKeys != nil {
		w.Tag('T', 1) // keys replaced where the tenant wrote them
		w.ValueAt(nilMap(in.Values), in.TenantKeys)
	} else {
		w.Value(nilMap(in.Values))
	}
	w.Str('k', "Gateway")
	w.Value(nilMap(in.Gateway))
	w.Str('k', "Route")
	if in.Route != nil {
		w.Str('K', in.routeKind())
		w.Value(in.Route)
		w.Str('k', "Backends")
		w.Value(in.Backends)
	} else {
		w.Tag('-', 0)
	}
	w.Str('k', "ListenerSets")
	w.Tag('l', len(in.ListenerSets))
	for _, ls := range in.ListenerSets {
		w.Value(nilMap(ls))
	}
	w.Str('k', "Resources")
	w.Tag('m', len(resources))
	for _, k := range slices.Sorted(maps.Keys(resources)) {
		w.Str('k', k)
		w.Tag('l', len(resources[k]))
		for _, o := range resources[k] {
			w.Value(nilMap(o))
		}
	}
	w.Str('k', "Routes")
	w.Value(routesOrEmpty(in.Routes))
	w.Str('k', "Hostnames")
	// Its keys are the engine's, not data: hashed as they are; its lists substituted as hashed.
	hostnames := hostnamesData(in.Hostnames, func(v any) any { return v })
	w.Tag('m', len(hostnames))
	for _, k := range slices.Sorted(maps.Keys(hostnames)) {
		w.Str('k', k)
		w.Value(hostnames[k])
	}
}

// nilMap is m, or an empty map for nil, as B's copy has it.
func nilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
} // blueprintIDs numbers compiled blueprints for the memory's keys.
var blueprintIDs atomic.Uint64

// routesOrEmpty is .Routes as templates see it: an empty list for none.
func routesOrEmpty(routes []any) []any {
	if routes == nil {
		return []any{}
	}
	return routes
}
