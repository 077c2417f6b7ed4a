package boundary

import (
	"fmt"
	"slices"
	"strings"

	"gantry.dev/gantry/internal/yamltext"
	yamlv2 "go.yaml.in/yaml/v2"
)

// Exact identity: what the template wrote comes out exactly as written.
//
// A comparison of shapes (node kinds, key counts) is not enough: a tenant string can open a
// quoted scalar that swallows the template's next lines and another can close it and write keys
// of its own, leaving as many keys as before; YAML 1.1 reads a tenant's `on` as the key true,
// which lands on the template's "true"; a tenant number used as an indentation moves the
// template's keys under another parent. So the check compares A, the real render, with B, the
// render with inert stand-ins for every tenant value, node by node, in the order YAML read them
// and with the types it gave them:
//
//   - a node of B that holds a placeholder depends on tenant content: A must have a scalar of
//     the same type there (a string stays a string: `yes`, `~` and `9_090` do not turn into a
//     bool, a null or a number), or the same collection where B has one;
//   - any other node of B is the template's, unless a third render C, with other stand-ins,
//     has something else there (the template transformed a tenant value past recognition:
//     upper, a hash, trunc); the template's nodes must be in A as they are in B: the same
//     type, the same value, the same keys;
//   - a map's keys pair up by name (a key of B holding a placeholder pairs with the key of A it
//     restores to), and the keys left over pair up in the order YAML read them, never sorted;
//   - no two keys of a map of A may read as the same JSON key (`true` and "true").
//
// No list of functions or of dangerous characters is involved: C is rendered only where A and
// B differ and B shows no placeholder, so that the common case costs one comparison. That
// comparison is first made on the parses the objects are made of (JSON types, keys unordered),
// which the render has anyway; only where keys do not pair by name (a tenant key YAML read as
// a bool, or one transformed past recognition) are A and B parsed again in YAML's order.

// orderedDocuments parses a template's output as kind parses it, keeping each mapping's keys in
// the order YAML read them and with the types it gave them (yaml.MapSlice): the applied object
// is decoded by the same parser, yaml/v2, so the types are the ones the API server gets.
func orderedDocuments(text string, status bool) ([]any, error) {
	var docs []string
	if status {
		if yamltext.Blank(text) {
			return nil, nil
		}
		docs = []string{text}
	} else {
		docs, _ = yamltext.SplitDocuments(text)
	}
	out := make([]any, len(docs))
	for i, d := range docs {
		v, err := orderedDocument(d)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func orderedDocument(doc string) (any, error) {
	var m yamlv2.MapSlice
	if err := yamlv2.Unmarshal([]byte(doc), &m); err == nil {
		if m == nil {
			return nil, nil
		}
		return m, nil
	}
	// Not a mapping: a list, a scalar, or not YAML at all. Maps inside come as Go maps, put in
	// a fixed order here (such a document is no object and fails anyway; the order only keeps
	// the comparison deterministic).
	var v any
	if err := yamlv2.Unmarshal([]byte(doc), &v); err != nil {
		return nil, err
	}
	return ordered(v), nil
}

func ordered(v any) any {
	switch v := v.(type) {
	case map[any]any:
		m := make(yamlv2.MapSlice, 0, len(v))
		for k, e := range v {
			m = append(m, yamlv2.MapItem{Key: k, Value: ordered(e)})
		}
		slices.SortFunc(m, func(a, b yamlv2.MapItem) int {
			return strings.Compare(fmt.Sprintf("%T %v", a.Key, a.Key), fmt.Sprintf("%T %v", b.Key, b.Key))
		})
		return m
	case []any:
		for i := range v {
			v[i] = ordered(v[i])
		}
	}
	return v
}

// identityCheck compares A's parse with B's, first as the objects are parsed (JSON types, keys
// unordered; sameJSON), and where that cannot decide, in YAML's order and types (same).
// cText renders C's text for the same template, on first use; ok false when C could not be
// rendered.
type identityCheck struct {
	sub   *Substitution
	cText func() (text string, ok bool)
	out   Output // how the template's output is parsed, and whether it is the status
	c     struct {
		done, ok         bool
		text             string
		json, ordered    []any
		jsonOK, orderOK  bool
		jsonDone, orDone bool
	}
	// path is where the ordered walk is in B, as positions: a document's, a list element's,
	// and for a map pair p, 2p for its key and 2p+1 for its value. C is walked by it.
	path []int
	// jpath is where the JSON walk is in B: a document's position, then keys and list
	// positions; tenantKeys counts the keys on it that hold a placeholder (C's keys differ
	// there, so C cannot be walked by it).
	jpath      []any
	tenantKeys int
}

// verdict is what the JSON comparison found.
type verdict uint8

const (
	alike verdict = iota
	unlike
	undecided // keys that do not pair by name, or C needed under a tenant key
)

// sameJSON compares A's and B's documents as parseDocuments gives them. Keys pair by name (a
// key of B holding a placeholder with the key it restores to); a key that does not pair, or a
// scalar under a tenant key that only C could classify, leaves it undecided.
func (m *identityCheck) sameJSON(a, b []any) verdict {
	if len(a) != len(b) {
		return unlike
	}
	for i := range b {
		m.jpath, m.tenantKeys = append(m.jpath[:0], i), 0
		if v := m.jnode(a[i], b[i]); v != alike {
			return v
		}
	}
	return alike
}

func (m *identityCheck) jnode(a, b any) verdict {
	switch bv := b.(type) {
	case map[string]any:
		av, ok := a.(map[string]any)
		if !ok || len(av) != len(bv) {
			return unlike
		}
		var matched map[string]bool // A's keys B's tenant keys restored to
		for k, be := range bv {
			key, tenant := k, m.sub.Holds(k)
			if tenant {
				key, _ = m.sub.Restore(k)
				// Two keys of B that restore to one name are one key in A (a tenant's
				// "metrics" set into a map that has the template's "metrics"): B's map is
				// not A's, though a key the tenant injected elsewhere may even the count.
				if _, template := bv[key]; template || matched[key] {
					return unlike
				}
				if matched == nil {
					matched = map[string]bool{}
				}
				matched[key] = true
			}
			ae, ok := av[key]
			if !ok {
				return undecided
			}
			m.jpath = append(m.jpath, k)
			if tenant {
				m.tenantKeys++
			}
			v := m.jnode(ae, be)
			m.jpath = m.jpath[:len(m.jpath)-1]
			if tenant {
				m.tenantKeys--
			}
			if v != alike {
				return v
			}
		}
		return alike
	case []any:
		av, ok := a.([]any)
		if !ok || len(av) != len(bv) {
			return unlike
		}
		for i := range bv {
			m.jpath = append(m.jpath, i)
			v := m.jnode(av[i], bv[i])
			m.jpath = m.jpath[:len(m.jpath)-1]
			if v != alike {
				return v
			}
		}
		return alike
	}
	switch {
	case collection(a):
		return unlike
	case m.tenant(b):
		if m.tenantScalar(a, b) {
			return alike
		}
		return unlike
	case a == b:
		return alike
	case m.tenantKeys > 0:
		return undecided
	}
	cv, ok := m.atCJSON()
	if !ok || collection(cv) || cv == b || !sameType(a, b) || !sameType(cv, b) {
		return unlike
	}
	return alike
}

// tenantScalar decides a scalar of B that holds a placeholder: A's is of the same type, and
// what the template wrote after a tenant string in the same scalar is still there.
func (m *identityCheck) tenantScalar(a, b any) bool {
	if !sameType(a, b) {
		return false
	}
	bs, isString := b.(string)
	if !isString {
		return true
	}
	restored, _ := m.sub.Restore(bs)
	return !cutShort(a.(string), restored)
}

// render returns C's text, rendered on first use.
func (m *identityCheck) render() (string, bool) {
	if !m.c.done {
		m.c.done = true
		if m.cText != nil {
			m.c.text, m.c.ok = m.cText()
		}
	}
	return m.c.text, m.c.ok
}

// atCJSON returns C's node where the JSON walk is in B.
func (m *identityCheck) atCJSON() (any, bool) {
	if !m.c.jsonDone {
		m.c.jsonDone = true
		if text, ok := m.render(); ok {
			docs, _, err := m.out.Parse(text)
			m.c.json, m.c.jsonOK = docs, err == nil
		}
	}
	if !m.c.jsonOK || m.jpath[0].(int) >= len(m.c.json) {
		return nil, false
	}
	v := m.c.json[m.jpath[0].(int)]
	for _, p := range m.jpath[1:] {
		switch p := p.(type) {
		case string:
			c, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = c[p]; !ok {
				return nil, false
			}
		case int:
			c, ok := v.([]any)
			if !ok || p >= len(c) {
				return nil, false
			}
			v = c[p]
		}
	}
	return v, true
}

// same reports whether A's documents are B's, exactly but for what depends on tenant content.
func (m *identityCheck) same(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range b {
		m.path = append(m.path[:0], i)
		if !m.node(a[i], b[i]) {
			return false
		}
	}
	return true
}

func (m *identityCheck) node(a, b any) bool {
	switch bv := b.(type) {
	case yamlv2.MapSlice:
		av, ok := a.(yamlv2.MapSlice)
		return ok && len(av) == len(bv) && m.mapping(av, bv)
	case []any:
		av, ok := a.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range bv {
			m.path = append(m.path, i)
			same := m.node(av[i], bv[i])
			m.path = m.path[:len(m.path)-1]
			if !same {
				return false
			}
		}
		return true
	}
	return m.scalar(a, b)
}

// scalar compares a scalar of B with A's node at the same place.
func (m *identityCheck) scalar(a, b any) bool {
	if collection(a) {
		return false
	}
	if m.tenant(b) {
		return m.tenantScalar(a, b)
	}
	if a == b {
		return true
	}
	cv, ok := m.atC()
	if !ok || collection(cv) || cv == b {
		return false // the template's scalar, and A has another
	}
	return sameType(a, b) && sameType(cv, b)
}

// mapping compares maps of the same size. Keys of B pair with A's by name, a key holding a
// placeholder with the key it restores to; those left over pair in order.
func (m *identityCheck) mapping(a, b yamlv2.MapSlice) bool {
	at := make(map[any]int, len(a))
	seen := make(map[string]bool, len(a))
	for i, p := range a {
		if collection(p.Key) {
			return false // a complex key: no object has one
		}
		if k := yamltext.JSONKey(p.Key); seen[k] {
			return false // two keys that read as one JSON key: which one wins is chance
		} else {
			seen[k] = true
		}
		at[p.Key] = i
	}
	pairedA := make([]int, len(b)) // B's pair j goes with A's pairedA[j]; -1: left over
	used := make([]bool, len(a))
	names := make(map[string]bool, len(b)) // B's keys, restored, as JSON keys
	var leftA, leftB []int
	for j, p := range b {
		pairedA[j] = -1
		k := p.Key
		if s, ok := k.(string); ok && m.sub.Holds(s) {
			k, _ = m.sub.Restore(s)
		}
		if !collection(k) {
			// Two keys of B that restore to one name are one key in A (see jnode), by the
			// name the object gets: the template's 80 and a tenant's "80" are one.
			name := yamltext.JSONKey(k)
			if names[name] {
				return false
			}
			names[name] = true
		}
		if i, ok := at[k]; ok && !used[i] {
			pairedA[j], used[i] = i, true
			continue
		}
		leftB = append(leftB, j)
	}
	for i := range a {
		if !used[i] {
			leftA = append(leftA, i)
		}
	}
	if len(leftA) != len(leftB) {
		return false
	}
	for n, j := range leftB {
		i := leftA[n]
		pairedA[j] = i
		m.path = append(m.path, 2*j)
		same := m.leftoverKey(a[i].Key, b[j].Key)
		m.path = m.path[:len(m.path)-1]
		if !same {
			return false
		}
	}
	for j, p := range b {
		m.path = append(m.path, 2*j+1)
		same := m.node(a[pairedA[j]].Value, p.Value)
		m.path = m.path[:len(m.path)-1]
		if !same {
			return false
		}
	}
	return true
}

// leftoverKey decides a pair of keys that did not pair by name: B's must be the tenant's, and
// A's a string (a tenant key YAML reads as a bool, a null or a number is not one).
func (m *identityCheck) leftoverKey(a, b any) bool {
	if _, isString := a.(string); !isString {
		return false
	}
	if m.tenant(b) {
		_, isString := b.(string)
		return isString
	}
	cv, ok := m.atC()
	if !ok || collection(cv) || cv == b {
		return false // a key the template wrote is missing from A
	}
	_, bs := b.(string)
	_, cs := cv.(string)
	return bs && cs
}

// tenant reports whether a scalar of B holds a placeholder: a string with one in it, or a
// number that is one.
func (m *identityCheck) tenant(b any) bool {
	var n int64
	switch b := b.(type) {
	case string:
		return m.sub.Holds(b)
	case int:
		n = int64(b)
	case int64:
		n = b
	case uint64:
		n = int64(b)
	case float64:
		// An int's stand-in that went through a float (fromJson), or a float's.
		if b != float64(int64(b)) && b != float64(int64(b))+0.5 {
			return false
		}
		n = int64(b)
	default:
		return false
	}
	_, ok := m.sub.numberPlaceholder(n)
	return ok
}

// atC returns C's node where the ordered walk is in B.
func (m *identityCheck) atC() (any, bool) {
	if !m.c.orDone {
		m.c.orDone = true
		if text, ok := m.render(); ok {
			docs, err := orderedDocuments(text, m.out.Status)
			m.c.ordered, m.c.orderOK = docs, err == nil
		}
	}
	if !m.c.orderOK || len(m.path) == 0 || m.path[0] >= len(m.c.ordered) {
		return nil, false
	}
	v := m.c.ordered[m.path[0]]
	for _, p := range m.path[1:] {
		switch c := v.(type) {
		case yamlv2.MapSlice:
			if p/2 >= len(c) {
				return nil, false
			}
			if p%2 == 0 {
				v = c[p/2].Key
			} else {
				v = c[p/2].Value
			}
		case []any:
			if p >= len(c) {
				return nil, false
			}
			v = c[p]
		default:
			return nil, false
		}
	}
	return v, true
}

func collection(v any) bool {
	switch v.(type) {
	case yamlv2.MapSlice, []any, map[any]any:
		return true
	}
	return false
}

// sameType reports whether two scalars have one JSON type: string, number, bool or null.
func sameType(a, b any) bool { return jsonType(a) == jsonType(b) }

func jsonType(v any) byte {
	switch v.(type) {
	case string:
		return 's'
	case bool:
		return 'b'
	case nil:
		return 'n'
	case int, int64, uint64, float64, float32, int32, uint, uint32:
		return '0'
	}
	return '?'
}
