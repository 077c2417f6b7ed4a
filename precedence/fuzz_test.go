package precedence

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// FuzzResolve builds an input from three JSON documents (the values pool) and a string of
// picks, resolves it, and checks what must hold for any input: no panic, the effective values
// equal a plain RFC 7386 merge of the chain in DESIGN.md's order, Leaves agree with Values,
// outcomes are consistent, the input is left alone and its order does not matter.
//
//	go test -run='^$' -fuzz=FuzzResolve -fuzztime=60s ./precedence
func FuzzResolve(f *testing.F) {
	f.Add([]byte(`{"a":1,"m":{"x":1}}`), []byte(`{"a":{"b":null},"m":"s"}`), []byte(`{"a":[1,2],"m":{"y":2}}`),
		[]byte{0x2b, 0x00, 0x41, 0x82, 0xc3, 0x04, 0x45, 0x86})
	f.Add([]byte(`{"a":null,"l":[{"k":1}]}`), []byte(`{"a":{"b":{"c":1}}}`), []byte(`{}`),
		[]byte{0x01, 0x16, 0x57, 0x98, 0xd9, 0x1a, 0x5b, 0x9c, 0xdd, 0x0e, 0x4f})
	f.Add([]byte(`{"x":{"y":{"z":null}},"n":1.5}`), []byte(`{"x":"flat","":{"k":true}}`), []byte(`{"x":{"y":{}}}`),
		[]byte{0x3e, 0x4c, 0x4c, 0x84, 0x84, 0xc0, 0x00, 0x33})
	f.Add([]byte(`not json`), []byte(``), []byte(`[1]`), []byte{0x07})

	f.Fuzz(func(t *testing.T, raw0, raw1, raw2, picks []byte) {
		pool := [4]map[string]any{}
		for i, raw := range [][]byte{raw0, raw1, raw2} {
			pool[i], _ = ParseValues(raw) // not a values object: no values
		}
		in, levels := fuzzInput(pool, picks)
		before, err := json.Marshal(in)
		if err != nil {
			t.Skip("input cannot be marshalled:", err)
		}

		res := Resolve(in)

		got, err := json.Marshal(res)
		if err != nil {
			t.Fatalf("marshal result: %v", err)
		}
		if after, _ := json.Marshal(in); !bytes.Equal(before, after) {
			t.Fatalf("Resolve changed its input:\nbefore: %s\n after: %s", before, after)
		}
		if !reflect.DeepEqual(res.Values, referenceMerge(in, levels)) {
			t.Fatalf("Values = %s, want %s", asJSON(res.Values), asJSON(referenceMerge(in, levels)))
		}
		checkLeaves(t, res)
		checkOutcomes(t, in, levels, res)

		reversed := in
		reversed.Policies = slices.Clone(in.Policies)
		slices.Reverse(reversed.Policies)
		if again, _ := json.Marshal(Resolve(reversed)); !bytes.Equal(got, again) {
			t.Fatalf("reversing the policies changed the result:\n got: %s\nwant: %s", again, got)
		}
	})
}

// fuzzInput turns picks into an input and the level each policy must get (-1: not applicable).
// picks[0] chooses the route and the blueprint's and command line's values; every further byte
// is one policy: low nibble its target, then two bits each for its default and override (an
// index into pool, whose fourth entry is nil).
func fuzzInput(pool [4]map[string]any, picks []byte) (Input, []Level) {
	var cfg byte
	if len(picks) > 0 {
		cfg, picks = picks[0], picks[1:]
	}
	if len(picks) > 16 {
		picks = picks[:16]
	}
	in := gatewayInput(Blueprint{Default: pool[cfg>>2&3], Override: pool[cfg>>4&3]})
	switch cfg & 3 {
	case 1:
		in.Route = &ObjectKey{Namespace: routeNS, Name: routeName}
	case 2:
		in.Route = &ObjectKey{Namespace: gwNS, Name: routeName}
	}
	if cfg&0x40 != 0 {
		in.CommandLine = pool[cfg>>7]
	}
	routeIn := func(ns string) bool { return in.Route != nil && in.Route.Namespace == ns }

	var levels []Level
	for i, b := range picks {
		name, created := fmt.Sprintf("p%d", i), minute(int(b)%3)
		var p Policy
		level := Level(-1)
		switch b & 0xf {
		case 0, 14:
			p, level = globalGCC(name, created), LevelGlobal
		case 1:
			p, level = namespaceGCC(name, created), LevelNamespaceClassConfig
		case 2, 15:
			p, level = classGCC(name, created), LevelClass
		case 3, 13:
			p, level = namespaceGC(name, created), LevelNamespace
		case 4, 12:
			p, level = gatewayGC(name, created), LevelGateway
		case 5:
			p = routeNamespaceGC(name, created)
			if routeIn(routeNS) {
				level = LevelRouteNamespace
			}
		case 6:
			p = routeGC(name, created)
			if routeIn(routeNS) {
				level = LevelRoute
			}
		case 7:
			p = gc(gwNS, name, created, Target{Group: GatewayGroup, Kind: TargetHTTPRoute, Name: routeName})
			if routeIn(gwNS) {
				level = LevelRoute
			}
		case 8:
			p = gcc(ctrlNS, name, created, Target{Group: GatewayGroup, Kind: TargetGatewayClass, Name: "other"})
		case 9:
			p = gc(gwNS, name, created, Target{Group: GatewayGroup, Kind: TargetGateway, Name: "other"})
		case 10:
			p = gc("team-z", name, created, Target{Kind: TargetNamespace, Name: "team-z"})
		case 11:
			p = gcc(gwNS, name, created, Target{Kind: TargetNamespace, Name: routeNS})
		}
		p.Default, p.Override = pool[b>>4&3], pool[b>>6&3]
		in.Policies = append(in.Policies, p)
		levels = append(levels, level)
	}
	return in, levels
}

// referenceMerge is RFC 7386's MergePatch applied to the chain, written from DESIGN.md alone:
// defaults from the highest to the lowest, then overrides from the lowest to the highest, the
// blueprint's override, and the command line.
func referenceMerge(in Input, levels []Level) map[string]any {
	type ranked struct {
		p     Policy
		level Level
	}
	var chain []ranked // highest first
	for i, p := range in.Policies {
		if levels[i] >= 0 {
			chain = append(chain, ranked{p, levels[i]})
		}
	}
	slices.SortFunc(chain, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.level, b.level), a.p.CreationTimestamp.Compare(b.p.CreationTimestamp),
			cmp.Compare(a.p.Namespace+"/"+a.p.Name, b.p.Namespace+"/"+b.p.Name))
	})
	patches := []map[string]any{in.Blueprint.Default}
	for _, r := range chain {
		patches = append(patches, r.p.Default)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		patches = append(patches, chain[i].p.Override)
	}
	patches = append(patches, in.Blueprint.Override, in.CommandLine)

	var target any = map[string]any{}
	for _, p := range patches {
		if p != nil {
			target = mergePatch(target, p)
		}
	}
	return target.(map[string]any)
}

// mergePatch is the pseudo-code of RFC 7386 section 2, never changing its arguments.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	out := make(map[string]any, len(t))
	for k, v := range t {
		out[k] = v
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = mergePatch(out[k], v)
		}
	}
	return out
}

// checkLeaves: Leaves are sorted and unique, each present leaf holds the value Values has at its
// path, each removed path is absent, and every scalar and list of Values is a leaf.
func checkLeaves(t *testing.T, res *Result) {
	t.Helper()
	byPath := map[string]Leaf{}
	for i, l := range res.Leaves {
		if i > 0 && slices.Compare(res.Leaves[i-1].Path, l.Path) >= 0 {
			t.Fatalf("leaves out of order: %s then %s", res.Leaves[i-1].Path, l.Path)
		}
		byPath[l.Path.String()] = l
		v, found := lookup(res.Values, l.Path)
		switch {
		case l.Removed && (found || l.Value != nil):
			t.Fatalf("removed leaf %s: Values has %v (found %v), leaf value %v", l.Path, v, found, l.Value)
		case !l.Removed && (!found || !reflect.DeepEqual(v, l.Value)):
			t.Fatalf("leaf %s = %v, but Values has %v (found %v)", l.Path, l.Value, v, found)
		}
		if !slices.Contains(res.Chain, l.Source.Ref) {
			t.Fatalf("leaf %s is set by %s, which is not in the chain %v", l.Path, l.Source, res.Chain)
		}
		if got, ok := res.SourceOf(l.Path); !l.Removed && (!ok || !reflect.DeepEqual(got, l)) {
			t.Fatalf("SourceOf(%s) = %v, %v; want the leaf itself", l.Path, got, ok)
		}
	}
	var walk func(Path, map[string]any)
	walk = func(at Path, m map[string]any) {
		for k, v := range m {
			p := at.child(k)
			if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
				walk(p, sub)
				continue
			}
			if _, ok := byPath[p.String()]; ok {
				continue
			}
			// An empty map left by removing all it held has only its removals as leaves.
			if _, ok := v.(map[string]any); ok && slices.ContainsFunc(res.Leaves, func(l Leaf) bool { return l.Removed && l.Path.hasPrefix(p) }) {
				continue
			}
			t.Fatalf("Values has %s = %v but no leaf says who set it", p, v)
		}
	}
	walk(nil, res.Values)
}

func lookup(m map[string]any, p Path) (any, bool) {
	var v any = m
	for _, k := range p {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// checkOutcomes: one outcome per policy, at the level fuzzInput expected, with a state that
// agrees with its reason and superseded paths, and a chain of exactly the applicable policies.
func checkOutcomes(t *testing.T, in Input, levels []Level, res *Result) {
	t.Helper()
	if len(res.Outcomes) != len(in.Policies) {
		t.Fatalf("%d outcomes for %d policies", len(res.Outcomes), len(in.Policies))
	}
	want := map[Ref]Level{}
	applicable := 0
	for i, p := range in.Policies {
		want[p.Ref] = levels[i]
		if levels[i] >= 0 {
			applicable++
		}
	}
	chain := 1 + applicable
	if in.CommandLine != nil {
		chain++
	}
	if len(res.Chain) != chain || res.Chain[0] != bpRef {
		t.Fatalf("chain %v: want the blueprint and %d more", res.Chain, chain-1)
	}
	// Who holds each effective value or removal: a policy that holds one is not Overridden, and
	// does not hold a path it lost.
	holds := map[Ref]map[string]bool{}
	for _, l := range res.Leaves {
		if holds[l.Source.Ref] == nil {
			holds[l.Source.Ref] = map[string]bool{}
		}
		holds[l.Source.Ref][l.Path.String()] = true
	}
	for _, o := range res.Outcomes {
		if o.State == StateOverridden && len(holds[o.Ref]) > 0 {
			t.Fatalf("%s is Overridden but still sets %v: %s", o.Ref, holds[o.Ref], asJSON(o))
		}
		level, ok := want[o.Ref]
		switch {
		case !ok:
			t.Fatalf("outcome for unknown policy %s", o.Ref)
		case level < 0 && (o.State != StateNotApplicable || o.Reason == "" || o.Superseded != nil):
			t.Fatalf("%s should not apply: %s", o.Ref, asJSON(o))
		case level >= 0 && (o.State == StateNotApplicable || o.Reason != "" || o.Level != level):
			t.Fatalf("%s should apply at level %d: %s", o.Ref, level, asJSON(o))
		case o.State == StateEnforced && len(o.Superseded) > 0,
			(o.State == StateOverridden || o.State == StatePartiallyEnforced) && len(o.Superseded) == 0:
			t.Fatalf("%s: state does not match superseded paths: %s", o.Ref, asJSON(o))
		}
		for i, s := range o.Superseded {
			if s.By.Ref == o.Ref || !slices.Contains(res.Chain, s.By.Ref) || holds[o.Ref][s.Path.String()] {
				t.Fatalf("%s superseded at %s by %s: %s", o.Ref, s.Path, s.By, asJSON(o))
			}
			// One entry per path and stanza, sorted by path as Leaves are, then stanza.
			if i > 0 {
				prev := o.Superseded[i-1]
				if c := cmp.Or(slices.Compare(prev.Path, s.Path), cmp.Compare(prev.Stanza, s.Stanza)); c >= 0 {
					t.Fatalf("%s: superseded entries out of order or repeated at %s (%s): %s", o.Ref, s.Path, s.Stanza, asJSON(o))
				}
			}
			// By is who is in effect at the path: a leaf (value or removal) there or above it,
			// when there is one and it is not the policy itself.
			if l, ok := leafAtOrAbove(res, s.Path); ok && l.Source.Ref != o.Ref && s.By != l.Source {
				t.Fatalf("%s superseded at %s by %s, but %s holds %s: %s", o.Ref, s.Path, s.By, l.Source, l.Path, asJSON(o))
			}
		}
	}
}

// leafAtOrAbove is the leaf, removals included, at p or at its nearest ancestor.
func leafAtOrAbove(res *Result, p Path) (Leaf, bool) {
	for n := len(p); n > 0; n-- {
		for _, l := range res.Leaves {
			if slices.Equal(l.Path, p[:n]) {
				return l, true
			}
		}
	}
	return Leaf{}, false
}
