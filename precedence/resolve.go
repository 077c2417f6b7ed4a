package precedence

import (
	"cmp"
	"slices"
)

// Resolve merges the chain of in into the effective values, with the provenance of every leaf
// and the outcome of every policy. The same input in any order gives the same result.
//
// The merge is written here rather than taken from mergo or a JSON-merge-patch library because
// neither records, value by value, who set what and whom it beat — and that record is the
// point: it drives `render --explain`, policy status and the Affected conditions.
func Resolve(in Input) *Result {
	applicable, skipped := chain(&in)

	// One sequence of patches, each beating all before it: defaults from the highest to the
	// lowest (lower defaults win), then overrides from the lowest to the highest (higher
	// overrides win, and any override beats any default), then the command line.
	bp := Ref{Kind: KindBlueprint, Name: in.Blueprint.Name}
	var layers []layer
	add := func(ref Ref, level Level, stanza Stanza, values map[string]any) {
		if values != nil {
			layers = append(layers, layer{Source: Source{Ref: ref, Stanza: stanza, Level: level}, values: values})
		}
	}
	add(bp, LevelBlueprint, StanzaDefault, in.Blueprint.Default)
	for _, p := range applicable {
		add(p.Ref, p.level, StanzaDefault, p.Default)
	}
	for _, p := range slices.Backward(applicable) {
		add(p.Ref, p.level, StanzaOverride, p.Override)
	}
	add(bp, LevelBlueprint, StanzaOverride, in.Blueprint.Override)
	add(Ref{Kind: KindCommandLine}, LevelCommandLine, StanzaOverride, in.CommandLine)

	m := merger{root: newMap(Source{}), lost: map[Ref][]Superseded{}}
	path := make(Path, 0, MaxValuesDepth+1) // the buffer patch and leaves share
	for i := range layers {
		m.patch(m.root, path, layers[i].values, &layers[i].Source)
	}

	res := &Result{Values: m.root.values(), Chain: []Ref{bp}}
	m.root.leaves(path, nil, &res.Leaves)
	for _, p := range applicable {
		res.Chain = append(res.Chain, p.Ref)
		o := m.outcome(p)
		m.finalWinners(&o)
		res.Outcomes = append(res.Outcomes, o)
	}
	if in.CommandLine != nil {
		res.Chain = append(res.Chain, Ref{Kind: KindCommandLine})
	}
	res.Outcomes = append(res.Outcomes, skipped...)
	slices.SortFunc(res.Outcomes, func(a, b Outcome) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return res
}

type layer struct {
	Source
	values map[string]any
}

// node is one place in the provenance tree: a map (children != nil), a leaf value, or a
// tombstone left by an explicit null.
type node struct {
	children map[string]*node
	value    any
	removed  bool
	src      Source
	shadowed []Shadow
}

func newMap(src Source) *node { return &node{children: map[string]*node{}, src: src} }

type merger struct {
	root *node
	// contributed and lost are keyed by policy; a path a policy set and later replaced itself
	// (its override over its own default, even with another value set in between) is neither
	// lost nor counted twice.
	contributed map[Ref]map[string]bool
	lost        map[Ref][]Superseded
	// defaultLosses indexes, by path, each policy's lost entries of its default stanza, for
	// forgive: scanning them all for every value an override sets cost their product.
	defaultLosses map[Ref]*lossTrie
}

// lossTrie holds the indexes (in merger.lost) of the losses at one path, and the paths below.
type lossTrie struct {
	here     []int
	children map[string]*lossTrie
}

// scanLosses is how many losses forgive scans before it indexes them.
const scanLosses = 32

// forgiven marks a loss that forgive dropped; outcome leaves it out.
const forgiven Stanza = ""

// patch applies p at n as an RFC 7386 merge patch, recording who beat whom.
//
// path is n's path in a buffer that every level shares: at is path and k in the same buffer,
// overwritten by the next key, so whatever keeps a path clones it (copying the path at every
// level cost O(depth²)).
func (m *merger) patch(n *node, path Path, p map[string]any, by *Source) {
	for _, k := range sortedKeys(p) {
		v, old, at := p[k], n.children[k], append(path, k)
		switch v := v.(type) {
		case nil:
			m.forgive(by, at, true)
			if old == nil || old.removed {
				continue // nothing to remove: the null has no effect
			}
			n.children[k] = &node{removed: true, src: *by, shadowed: m.replace(old, at, by)}
			m.contribute(by, at)
		case map[string]any:
			fresh := old == nil || old.children == nil
			if fresh {
				m.forgive(by, at, false)
				created := newMap(*by)
				if old != nil {
					created.shadowed = m.replace(old, at, by)
				}
				n.children[k] = created
				old = created
			}
			m.patch(old, at, v, by)
			if fresh && len(old.children) == 0 {
				m.contribute(by, at) // an empty map is a value (v was {} or only nulls)
			}
		default:
			m.forgive(by, at, true)
			var shadowed []Shadow
			if old != nil {
				shadowed = m.replace(old, at, by)
			}
			n.children[k] = &node{value: v, src: *by, shadowed: shadowed}
			m.contribute(by, at)
		}
	}
}

func (m *merger) contribute(by *Source, at Path) {
	if m.contributed == nil {
		m.contributed = map[Ref]map[string]bool{}
	}
	set := m.contributed[by.Ref]
	if set == nil {
		set = map[string]bool{}
		m.contributed[by.Ref] = set
	}
	set[at.String()] = true
}

// forgive drops the losses of by's own default stanza that by's override, now patching at,
// would have caused anyway — at at and above it, and when below is set under it too — for a
// policy's override over its own default is not a loss, whoever replaced the default first.
//
// It costs the length of at plus the losses it drops: each loss is dropped once, and the index
// forgets what it dropped.
func (m *merger) forgive(by *Source, at Path, below bool) {
	lost := m.lost[by.Ref]
	if by.Stanza != StanzaOverride || len(lost) == 0 {
		return
	}
	t := m.defaultLosses[by.Ref]
	if t == nil && len(lost) <= scanLosses {
		for i, s := range lost {
			if s.Stanza == StanzaDefault && (at.hasPrefix(s.Path) || below && s.Path.hasPrefix(at)) {
				lost[i].Stanza = forgiven
			}
		}
		return
	}
	if t == nil {
		for i, s := range lost {
			if s.Stanza == StanzaDefault {
				m.indexLoss(by.Ref, s.Path, i)
			}
		}
		t = m.defaultLosses[by.Ref]
		if t == nil {
			return
		}
	}
	for _, k := range at {
		c := t.children[k]
		if c == nil {
			return
		}
		for _, i := range c.here {
			lost[i].Stanza = forgiven
		}
		c.here = nil
		t = c
	}
	if below {
		var drop func(t *lossTrie)
		drop = func(t *lossTrie) {
			for _, i := range t.here {
				lost[i].Stanza = forgiven
			}
			for _, c := range t.children {
				drop(c)
			}
		}
		drop(t)
		t.here, t.children = nil, nil
	}
}

// replace records that by replaced everything under old (at path at) and returns what it
// shadowed, most recent first: each value with its own history, in key order, then the
// history of the maps holding them — its first MaxShadowed entries. (Every replacement copied
// the whole history before it: a value replaced back and forth by many policies, or a map
// replaced by a scalar and rebuilt with many leaves, each inheriting it, cost the square of
// what the policies held.) at may be a shared buffer: replace clones what it keeps.
func (m *merger) replace(old *node, at Path, by *Source) []Shadow {
	var out []Shadow
	m.collect(old, at, by, &out)
	return out
}

func (m *merger) collect(n *node, at Path, by *Source, out *[]Shadow) {
	if len(n.children) > 0 {
		for _, k := range sortedKeys(n.children) {
			m.collect(n.children[k], append(at, k), by, out)
		}
		if set := m.contributed[n.src.Ref]; len(set) > 0 && set[at.String()] {
			m.supersede(n.src, at, by) // set as {} and merged into since
		}
		appendShadows(out, n.shadowed...)
		return
	}
	// Only leaves, empty maps and tombstones carry values.
	m.supersede(n.src, at, by)
	if len(*out) < MaxShadowed {
		appendShadows(out, Shadow{Path: slices.Clone(at), Value: n.leafValue(), Removed: n.removed, Source: n.src})
		appendShadows(out, n.shadowed...)
	}
}

// appendShadows appends to out what fits within MaxShadowed.
func appendShadows(out *[]Shadow, s ...Shadow) {
	if room := MaxShadowed - len(*out); room > 0 {
		*out = append(*out, s[:min(room, len(s))]...)
	}
}

// supersede records that by replaced what src had set at at.
func (m *merger) supersede(src Source, at Path, by *Source) {
	if src.Ref != by.Ref {
		m.lost[src.Ref] = append(m.lost[src.Ref], Superseded{Path: slices.Clone(at), Stanza: src.Stanza, By: *by})
		if src.Stanza == StanzaDefault && m.defaultLosses[src.Ref] != nil {
			m.indexLoss(src.Ref, at, len(m.lost[src.Ref])-1)
		}
	} else if set := m.contributed[by.Ref]; set != nil {
		delete(set, at.String()) // a policy's override over its own default
	}
}

// indexLoss records that m.lost[ref][i], a loss of ref's default stanza, is at path at.
func (m *merger) indexLoss(ref Ref, at Path, i int) {
	if m.defaultLosses == nil {
		m.defaultLosses = map[Ref]*lossTrie{}
	}
	t := m.defaultLosses[ref]
	if t == nil {
		t = &lossTrie{}
		m.defaultLosses[ref] = t
	}
	for _, k := range at {
		c := t.children[k]
		if c == nil {
			if t.children == nil {
				t.children = map[string]*lossTrie{}
			}
			c = &lossTrie{}
			t.children[k] = c
		}
		t = c
	}
	t.here = append(t.here, i)
}

// leafValue is the value a leaf node holds: an empty map is one.
func (n *node) leafValue() any {
	if n.children != nil {
		return map[string]any{}
	}
	return n.value
}

// values builds the effective tree, leaving tombstones out. Lists and maps are copied: a
// template that changes .Values must not change a policy (an informer's cache) or a Leaf.
func (n *node) values() map[string]any {
	out := make(map[string]any, len(n.children))
	for k, c := range n.children {
		switch {
		case c.removed:
		case c.children != nil:
			out[k] = c.values()
		default:
			out[k] = deepCopy(c.value)
		}
	}
	return out
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return v
		}
		c := make(map[string]any, len(v))
		for k, e := range v {
			c[k] = deepCopy(e)
		}
		return c
	case []any:
		if v == nil {
			return v
		}
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = deepCopy(e)
		}
		return c
	default:
		return v
	}
}

// leaves lists the leaves under n in path order. A map's history (what it replaced when it
// was created) belongs to every leaf inside it, after the leaf's own: it is older.
//
// at is a buffer shared by every level, as in patch. A leaf holds its first MaxShadowed entries
// of history; with none of its own, it shares the history of the maps holding it.
func (n *node) leaves(at Path, inherited []Shadow, out *[]Leaf) {
	for _, k := range sortedKeys(n.children) {
		c, p := n.children[k], append(at, k)
		shadowed := c.shadowed
		switch {
		case len(inherited) == 0:
		case len(c.shadowed) == 0:
			shadowed = inherited
		case len(c.shadowed) < MaxShadowed:
			shadowed = make([]Shadow, 0, min(len(c.shadowed)+len(inherited), MaxShadowed))
			appendShadows(&shadowed, c.shadowed...)
			appendShadows(&shadowed, inherited...)
		}
		if len(c.children) > 0 {
			c.leaves(p, shadowed, out)
			continue
		}
		*out = append(*out, Leaf{Path: slices.Clone(p), Value: c.leafValue(), Removed: c.removed, Source: c.src, Shadowed: slices.Clip(shadowed)})
	}
}

func (m *merger) outcome(p placed) Outcome {
	o := Outcome{Ref: p.Ref, Level: p.level, State: StateEnforced}
	for _, s := range m.lost[p.Ref] {
		if s.Stanza != forgiven {
			o.Superseded = append(o.Superseded, s)
		}
	}
	if len(o.Superseded) == 0 {
		return o
	}
	lost := map[string]bool{}
	for _, s := range o.Superseded {
		lost[s.Path.String()] = true
	}
	o.State = StateOverridden
	for path := range m.contributed[p.Ref] {
		if !lost[path] {
			o.State = StatePartiallyEnforced
			break
		}
	}
	return o
}

// finalWinners rewrites o.Superseded to the rule of Superseded.By: each entry names the source
// in effect at its path in the final tree (not whichever value replaced it first, which may
// itself have lost since), once per path and stanza, sorted by path (as Leaves are) then stanza.
func (m *merger) finalWinners(o *Outcome) {
	if len(o.Superseded) == 0 {
		return
	}
	type key struct {
		path   string
		stanza Stanza
	}
	seen := map[key]bool{}
	out := o.Superseded[:0]
	for _, s := range o.Superseded {
		k := key{s.Path.String(), s.Stanza}
		if seen[k] {
			continue
		}
		seen[k] = true
		// The policy's own override can hold the path only by having rebuilt an ancestor as a
		// fresh map without it (anything else forgave the loss): the loss is then still the
		// doing of what replaced the value, which stays named.
		if src, ok := m.holder(s.Path); ok && src.Ref != o.Ref {
			s.By = src
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b Superseded) int {
		return cmp.Or(slices.Compare(a.Path, b.Path), cmp.Compare(a.Stanza, b.Stanza))
	})
	o.Superseded = out
}

// holder is the source in effect at path in the final tree: the node at path or, when path is
// not there, its deepest ancestor that is — a value, a removal, or a map (an empty one or one
// holding other keys), whose source is whoever created it. A lost path always has such a node
// below the root: nodes are replaced, never deleted.
func (m *merger) holder(path Path) (Source, bool) {
	var held *node
	n := m.root
	for _, k := range path {
		c := n.children[k]
		if c == nil {
			break
		}
		held = c
		if c.children == nil { // a value or a removal: what is below belongs to it
			break
		}
		n = c
	}
	if held == nil {
		return Source{}, false
	}
	return held.src, true
}

// sortedKeys is slices.Sorted(maps.Keys(m)) in one allocation: Resolve sorts the keys of every
// map it merges, and the iterator's growing slice was a tenth of its allocations.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
