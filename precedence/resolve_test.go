package precedence

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestResolveLevelPairs puts one contributor at each level of the chain against one at every
// lower level, for every combination of stanzas. DESIGN.md "Precedence": defaults — lower beats
// higher; overrides — higher beats lower; any override beats any default.
func TestResolveLevelPairs(t *testing.T) {
	chains := []struct {
		name  string
		route *ObjectKey
		last  Level
	}{
		{"gateway", nil, LevelGateway},
		{"route", &ObjectKey{Namespace: routeNS, Name: routeName}, LevelRoute},
	}
	stanzas := []struct {
		hi, lo   Stanza
		hiWins   bool
		describe string
	}{
		{StanzaDefault, StanzaDefault, false, "lower default beats higher default"},
		{StanzaOverride, StanzaOverride, true, "higher override beats lower override"},
		{StanzaDefault, StanzaOverride, false, "lower override beats higher default"},
		{StanzaOverride, StanzaDefault, true, "higher override beats lower default"},
	}
	for _, c := range chains {
		for hi := LevelBlueprint; hi < c.last; hi++ {
			for lo := hi + 1; lo <= c.last; lo++ {
				for _, s := range stanzas {
					name := fmt.Sprintf("%s/%d-%s_vs_%d-%s", c.name, hi, s.hi, lo, s.lo)
					t.Run(name, func(t *testing.T) {
						var bp Blueprint
						var policies []Policy
						// Each contributor sets the contested key k and a key of its own.
						contribute := func(l Level, who string, stanza Stanza) Source {
							v := vals{"k": who, "only-" + who: who}
							if l == LevelBlueprint {
								if stanza == StanzaDefault {
									bp.Default = v
								} else {
									bp.Override = v
								}
								return srcOf(bpRef, stanza, l)
							}
							p := policyAt(l, who, epoch)
							if stanza == StanzaDefault {
								p = withDefault(p, v)
							} else {
								p = withOverride(p, v)
							}
							policies = append(policies, p)
							return srcOf(p.Ref, stanza, l)
						}
						hiSrc := contribute(hi, "hi", s.hi)
						loSrc := contribute(lo, "lo", s.lo)
						in := gatewayInput(bp, policies...)
						in.Route = c.route

						win, lose, winSrc, loseSrc := "lo", "hi", loSrc, hiSrc
						if s.hiWins {
							win, lose, winSrc, loseSrc = "hi", "lo", hiSrc, loSrc
						}
						want := &Result{
							Values: vals{"k": win, "only-hi": "hi", "only-lo": "lo"},
							Leaves: []Leaf{
								{Path: Path{"k"}, Value: win, Source: winSrc, Shadowed: []Shadow{{Path: Path{"k"}, Value: lose, Source: loseSrc}}},
								{Path: Path{"only-hi"}, Value: "hi", Source: hiSrc},
								{Path: Path{"only-lo"}, Value: "lo", Source: loSrc},
							},
							Chain: []Ref{bpRef},
						}
						for _, src := range []Source{hiSrc, loSrc} {
							if src.Ref == bpRef {
								continue
							}
							want.Chain = append(want.Chain, src.Ref)
							o := Outcome{Ref: src.Ref, Level: src.Level, State: StateEnforced}
							if src == loseSrc {
								o.State = StatePartiallyEnforced
								o.Superseded = []Superseded{{Path: Path{"k"}, Stanza: src.Stanza, By: winSrc}}
							}
							want.Outcomes = append(want.Outcomes, o)
						}
						// Documented order of Outcomes: kind, namespace, name.
						slices.SortFunc(want.Outcomes, func(a, b Outcome) int {
							return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
						})
						t.Log(s.describe)
						checkResult(t, Resolve(in), want)
					})
				}
			}
		}
	}
}

// TestResolveSameLevel checks GEP-713's order within one level: the older creationTimestamp is
// higher, then the first by namespace/name. So among defaults the newer (or later by name) wins,
// and among overrides the older (or earlier by name) wins.
func TestResolveSameLevel(t *testing.T) {
	pairs := []struct {
		name           string
		higher, lower  string // policy names: higher is higher in the chain
		hiTime, loTime int    // minutes after epoch
	}{
		{"older is higher", "old", "new", 0, 1},
		{"older is higher even when later by name", "z-old", "a-new", 0, 1},
		{"same timestamp: first by name is higher", "a", "b", 3, 3},
	}
	route := &ObjectKey{Namespace: routeNS, Name: routeName}
	for l := LevelGlobal; l <= LevelRoute; l++ {
		for _, pr := range pairs {
			for _, stanza := range []Stanza{StanzaDefault, StanzaOverride} {
				t.Run(fmt.Sprintf("level%d/%s/%s", l, pr.name, stanza), func(t *testing.T) {
					hi := policyAt(l, pr.higher, minute(pr.hiTime))
					lo := policyAt(l, pr.lower, minute(pr.loTime))
					set := withDefault
					if stanza == StanzaOverride {
						set = withOverride
					}
					hi, lo = set(hi, vals{"k": pr.higher}), set(lo, vals{"k": pr.lower})
					// Lower first in the input, so the order cannot come from the input.
					in := gatewayInput(Blueprint{}, lo, hi)
					in.Route = route

					winner, loser := lo, hi // defaults: lower beats higher
					if stanza == StanzaOverride {
						winner, loser = hi, lo // overrides: higher beats lower
					}
					winSrc, loseSrc := srcOf(winner.Ref, stanza, l), srcOf(loser.Ref, stanza, l)
					want := &Result{
						Values: vals{"k": winner.Name},
						Leaves: []Leaf{{Path: Path{"k"}, Value: winner.Name, Source: winSrc,
							Shadowed: []Shadow{{Path: Path{"k"}, Value: loser.Name, Source: loseSrc}}}},
						Chain: []Ref{bpRef, hi.Ref, lo.Ref},
					}
					outcomes := map[string]Outcome{
						winner.Name: {Ref: winner.Ref, Level: l, State: StateEnforced},
						loser.Name: {Ref: loser.Ref, Level: l, State: StateOverridden,
							Superseded: []Superseded{{Path: Path{"k"}, Stanza: stanza, By: winSrc}}},
					}
					// Both are in one namespace, so Outcomes are ordered by name.
					names := []string{pr.higher, pr.lower}
					slices.Sort(names)
					for _, n := range names {
						want.Outcomes = append(want.Outcomes, outcomes[n])
					}
					checkResult(t, Resolve(in), want)
				})
			}
		}
	}
}

// TestResolveSameLevelThree checks the total order with three policies at level 5, written out
// in full: c (oldest), then a and b (same age, by name). Each loser's Superseded names the one
// that holds k at the end, not the one that replaced it first (c's default lost to a's, then a's
// to b's; b's override lost to a's, then a's to c's).
func TestResolveSameLevelThree(t *testing.T) {
	a, b, c := gatewayGC("a", minute(1)), gatewayGC("b", minute(1)), gatewayGC("c", minute(0))
	srcA := func(s Stanza) Source { return srcOf(a.Ref, s, LevelGateway) }
	srcB := func(s Stanza) Source { return srcOf(b.Ref, s, LevelGateway) }
	srcC := func(s Stanza) Source { return srcOf(c.Ref, s, LevelGateway) }

	t.Run("defaults", func(t *testing.T) {
		in := gatewayInput(Blueprint{},
			withDefault(b, vals{"k": "b"}), withDefault(c, vals{"k": "c"}), withDefault(a, vals{"k": "a"}))
		checkResult(t, Resolve(in), &Result{
			Values: vals{"k": "b"},
			Leaves: []Leaf{{Path: Path{"k"}, Value: "b", Source: srcB(StanzaDefault), Shadowed: []Shadow{
				{Path: Path{"k"}, Value: "a", Source: srcA(StanzaDefault)},
				{Path: Path{"k"}, Value: "c", Source: srcC(StanzaDefault)},
			}}},
			Chain: []Ref{bpRef, c.Ref, a.Ref, b.Ref},
			Outcomes: []Outcome{
				{Ref: a.Ref, Level: LevelGateway, State: StateOverridden, Superseded: []Superseded{{Path: Path{"k"}, Stanza: StanzaDefault, By: srcB(StanzaDefault)}}},
				{Ref: b.Ref, Level: LevelGateway, State: StateEnforced},
				{Ref: c.Ref, Level: LevelGateway, State: StateOverridden, Superseded: []Superseded{{Path: Path{"k"}, Stanza: StanzaDefault, By: srcB(StanzaDefault)}}},
			},
		})
	})
	t.Run("overrides", func(t *testing.T) {
		in := gatewayInput(Blueprint{},
			withOverride(b, vals{"k": "b"}), withOverride(c, vals{"k": "c"}), withOverride(a, vals{"k": "a"}))
		checkResult(t, Resolve(in), &Result{
			Values: vals{"k": "c"},
			Leaves: []Leaf{{Path: Path{"k"}, Value: "c", Source: srcC(StanzaOverride), Shadowed: []Shadow{
				{Path: Path{"k"}, Value: "a", Source: srcA(StanzaOverride)},
				{Path: Path{"k"}, Value: "b", Source: srcB(StanzaOverride)},
			}}},
			Chain: []Ref{bpRef, c.Ref, a.Ref, b.Ref},
			Outcomes: []Outcome{
				{Ref: a.Ref, Level: LevelGateway, State: StateOverridden, Superseded: []Superseded{{Path: Path{"k"}, Stanza: StanzaOverride, By: srcC(StanzaOverride)}}},
				{Ref: b.Ref, Level: LevelGateway, State: StateOverridden, Superseded: []Superseded{{Path: Path{"k"}, Stanza: StanzaOverride, By: srcC(StanzaOverride)}}},
				{Ref: c.Ref, Level: LevelGateway, State: StateEnforced},
			},
		})
	})
}

// TestResolve covers the merge itself (RFC 7386 semantics and provenance), policies with both
// stanzas, the HTTPRoute chain and the command line. Every expectation is written out by hand.
func TestResolve(t *testing.T) {
	var (
		// Level 5 and 4 GatewayConfigs and level 3 and 1 GatewayClassConfigs.
		web     = gatewayGC("web", minute(0))
		nsBase  = namespaceGC("base", minute(0))
		sizing  = classGCC("sizing", minute(0))
		drop    = classGCC("drop", minute(0))
		global  = globalGCC("base", minute(0))
		limits  = globalGCC("limits", minute(0))
		sameNS  = gc(gwNS, "shop-cfg", minute(0), Target{Group: GatewayGroup, Kind: TargetHTTPRoute, Name: routeName})
		rNS     = routeNamespaceGC("ns", minute(0))
		rShop   = routeGC("shop", minute(0))
		nsPol   = namespaceGC("ns", minute(0))
		tlsPol  = namespaceGC("tls", minute(0))
		src     = srcOf
		d, o    = StanzaDefault, StanzaOverride
		removed = true
	)
	tests := []struct {
		name string
		in   Input
		want Result
	}{
		{
			name: "explicit null removes a key",
			in: gatewayInput(Blueprint{Default: vals{"replicas": 2, "logLevel": "info"}},
				withDefault(web, vals{"logLevel": nil})),
			want: Result{
				Values: vals{"replicas": 2},
				Leaves: []Leaf{
					{Path: Path{"logLevel"}, Removed: removed, Source: src(web.Ref, d, 5),
						Shadowed: []Shadow{{Path: Path{"logLevel"}, Value: "info", Source: src(bpRef, d, 0)}}},
					{Path: Path{"replicas"}, Value: 2, Source: src(bpRef, d, 0)},
				},
				Chain:    []Ref{bpRef, web.Ref},
				Outcomes: []Outcome{{Ref: web.Ref, Level: 5, State: StateEnforced}},
			},
		},
		{
			name: "explicit null removes a whole map",
			in: gatewayInput(Blueprint{Default: vals{"service": vals{"type": "LoadBalancer", "port": 80}}},
				withDefault(nsBase, vals{"service": nil})),
			want: Result{
				Values: vals{},
				Leaves: []Leaf{{Path: Path{"service"}, Removed: removed, Source: src(nsBase.Ref, d, 4), Shadowed: []Shadow{
					{Path: Path{"service", "port"}, Value: 80, Source: src(bpRef, d, 0)},
					{Path: Path{"service", "type"}, Value: "LoadBalancer", Source: src(bpRef, d, 0)},
				}}},
				Chain:    []Ref{bpRef, nsBase.Ref},
				Outcomes: []Outcome{{Ref: nsBase.Ref, Level: 4, State: StateEnforced}},
			},
		},
		{
			name: "explicit null inside a map removes only that key",
			in: gatewayInput(Blueprint{Default: vals{"service": vals{"type": "LoadBalancer", "port": 80}}},
				withDefault(web, vals{"service": vals{"type": nil}})),
			want: Result{
				Values: vals{"service": vals{"port": 80}},
				Leaves: []Leaf{
					{Path: Path{"service", "port"}, Value: 80, Source: src(bpRef, d, 0)},
					{Path: Path{"service", "type"}, Removed: removed, Source: src(web.Ref, d, 5),
						Shadowed: []Shadow{{Path: Path{"service", "type"}, Value: "LoadBalancer", Source: src(bpRef, d, 0)}}},
				},
				Chain:    []Ref{bpRef, web.Ref},
				Outcomes: []Outcome{{Ref: web.Ref, Level: 5, State: StateEnforced}},
			},
		},
		{
			name: "explicit null with nothing to remove has no effect",
			in:   gatewayInput(Blueprint{Default: vals{"a": 1}}, withDefault(web, vals{"b": nil})),
			want: Result{
				Values:   vals{"a": 1},
				Leaves:   []Leaf{{Path: Path{"a"}, Value: 1, Source: src(bpRef, d, 0)}},
				Chain:    []Ref{bpRef, web.Ref},
				Outcomes: []Outcome{{Ref: web.Ref, Level: 5, State: StateEnforced}},
			},
		},
		{
			name: "override null removes a lower default",
			in: gatewayInput(Blueprint{},
				withDefault(web, vals{"a": 1, "b": 1}), withOverride(global, vals{"a": nil})),
			want: Result{
				Values: vals{"b": 1},
				Leaves: []Leaf{
					{Path: Path{"a"}, Removed: removed, Source: src(global.Ref, o, 1),
						Shadowed: []Shadow{{Path: Path{"a"}, Value: 1, Source: src(web.Ref, d, 5)}}},
					{Path: Path{"b"}, Value: 1, Source: src(web.Ref, d, 5)},
				},
				Chain: []Ref{bpRef, global.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: global.Ref, Level: 1, State: StateEnforced},
					{Ref: web.Ref, Level: 5, State: StatePartiallyEnforced,
						Superseded: []Superseded{{Path: Path{"a"}, Stanza: d, By: src(global.Ref, o, 1)}}},
				},
			},
		},
		{
			name: "a value set after a removal shadows the removal",
			in: gatewayInput(Blueprint{Default: vals{"a": 1}},
				withDefault(web, vals{"a": 2}), withDefault(drop, vals{"a": nil})),
			want: Result{
				Values: vals{"a": 2},
				Leaves: []Leaf{{Path: Path{"a"}, Value: 2, Source: src(web.Ref, d, 5), Shadowed: []Shadow{
					{Path: Path{"a"}, Removed: removed, Source: src(drop.Ref, d, 3)},
					{Path: Path{"a"}, Value: 1, Source: src(bpRef, d, 0)},
				}}},
				Chain: []Ref{bpRef, drop.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: drop.Ref, Level: 3, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"a"}, Stanza: d, By: src(web.Ref, d, 5)}}},
					{Ref: web.Ref, Level: 5, State: StateEnforced},
				},
			},
		},
		{
			name: "lists are replaced whole, never merged",
			in: gatewayInput(Blueprint{Default: vals{
				"ports":     []any{80, 443},
				"listeners": []any{vals{"name": "http", "port": 80}},
				"hosts":     []any{"a.example"},
			}}, withDefault(web, vals{
				"ports":     []any{8080},
				"listeners": []any{vals{"name": "https"}},
				"hosts":     []any{},
			})),
			want: Result{
				Values: vals{"ports": []any{8080}, "listeners": []any{vals{"name": "https"}}, "hosts": []any{}},
				Leaves: []Leaf{
					{Path: Path{"hosts"}, Value: []any{}, Source: src(web.Ref, d, 5),
						Shadowed: []Shadow{{Path: Path{"hosts"}, Value: []any{"a.example"}, Source: src(bpRef, d, 0)}}},
					{Path: Path{"listeners"}, Value: []any{vals{"name": "https"}}, Source: src(web.Ref, d, 5),
						Shadowed: []Shadow{{Path: Path{"listeners"}, Value: []any{vals{"name": "http", "port": 80}}, Source: src(bpRef, d, 0)}}},
					{Path: Path{"ports"}, Value: []any{8080}, Source: src(web.Ref, d, 5),
						Shadowed: []Shadow{{Path: Path{"ports"}, Value: []any{80, 443}, Source: src(bpRef, d, 0)}}},
				},
				Chain:    []Ref{bpRef, web.Ref},
				Outcomes: []Outcome{{Ref: web.Ref, Level: 5, State: StateEnforced}},
			},
		},
		{
			name: "a map replaced by a scalar",
			in: gatewayInput(Blueprint{},
				withDefault(nsBase, vals{"tls": vals{"mode": "Terminate", "cert": vals{"name": "web-cert"}}}),
				withDefault(web, vals{"tls": "off"})),
			want: Result{
				Values: vals{"tls": "off"},
				Leaves: []Leaf{{Path: Path{"tls"}, Value: "off", Source: src(web.Ref, d, 5), Shadowed: []Shadow{
					{Path: Path{"tls", "cert", "name"}, Value: "web-cert", Source: src(nsBase.Ref, d, 4)},
					{Path: Path{"tls", "mode"}, Value: "Terminate", Source: src(nsBase.Ref, d, 4)},
				}}},
				Chain: []Ref{bpRef, nsBase.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: nsBase.Ref, Level: 4, State: StateOverridden, Superseded: []Superseded{
						{Path: Path{"tls", "cert", "name"}, Stanza: d, By: src(web.Ref, d, 5)},
						{Path: Path{"tls", "mode"}, Stanza: d, By: src(web.Ref, d, 5)},
					}},
					{Ref: web.Ref, Level: 5, State: StateEnforced},
				},
			},
		},
		{
			// The scalar the map replaced is history of every leaf of that map.
			name: "a scalar replaced by a map",
			in: gatewayInput(Blueprint{},
				withDefault(nsBase, vals{"tls": "off"}),
				withDefault(web, vals{"tls": vals{"mode": "Terminate", "port": 443}})),
			want: Result{
				Values: vals{"tls": vals{"mode": "Terminate", "port": 443}},
				Leaves: []Leaf{
					{Path: Path{"tls", "mode"}, Value: "Terminate", Source: src(web.Ref, d, 5),
						Shadowed: []Shadow{{Path: Path{"tls"}, Value: "off", Source: src(nsBase.Ref, d, 4)}}},
					{Path: Path{"tls", "port"}, Value: 443, Source: src(web.Ref, d, 5),
						Shadowed: []Shadow{{Path: Path{"tls"}, Value: "off", Source: src(nsBase.Ref, d, 4)}}},
				},
				Chain: []Ref{bpRef, nsBase.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: nsBase.Ref, Level: 4, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"tls"}, Stanza: d, By: src(web.Ref, d, 5)}}},
					{Ref: web.Ref, Level: 5, State: StateEnforced},
				},
			},
		},
		{
			// proxy.tls goes scalar → map → (with its parent) scalar: nothing of it is forgotten.
			// global's proxy.tls was first replaced by tlsPol's map, but web's proxy holds it now.
			name: "a replaced map keeps the history of the maps inside it",
			in: gatewayInput(Blueprint{},
				withDefault(global, vals{"proxy": vals{"tls": "off"}}),
				withDefault(tlsPol, vals{"proxy": vals{"tls": vals{"mode": "Terminate"}}}),
				withDefault(web, vals{"proxy": "none"})),
			want: Result{
				Values: vals{"proxy": "none"},
				Leaves: []Leaf{{Path: Path{"proxy"}, Value: "none", Source: src(web.Ref, d, 5), Shadowed: []Shadow{
					{Path: Path{"proxy", "tls", "mode"}, Value: "Terminate", Source: src(tlsPol.Ref, d, 4)},
					{Path: Path{"proxy", "tls"}, Value: "off", Source: src(global.Ref, d, 1)},
				}}},
				Chain: []Ref{bpRef, global.Ref, tlsPol.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: global.Ref, Level: 1, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"proxy", "tls"}, Stanza: d, By: src(web.Ref, d, 5)}}},
					{Ref: tlsPol.Ref, Level: 4, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"proxy", "tls", "mode"}, Stanza: d, By: src(web.Ref, d, 5)}}},
					{Ref: web.Ref, Level: 5, State: StateEnforced},
				},
			},
		},
		{
			// Why Superseded names the final holder: global's replicas was replaced first by
			// nsBase's, which then lost to web's; "superseded by nsBase" would name a loser.
			name: "superseded names who holds the path at the end, not who replaced it first",
			in: gatewayInput(Blueprint{},
				withDefault(global, vals{"replicas": 1}),
				withDefault(nsBase, vals{"replicas": 2}),
				withDefault(web, vals{"replicas": 3})),
			want: Result{
				Values: vals{"replicas": 3},
				Leaves: []Leaf{{Path: Path{"replicas"}, Value: 3, Source: src(web.Ref, d, 5), Shadowed: []Shadow{
					{Path: Path{"replicas"}, Value: 2, Source: src(nsBase.Ref, d, 4)},
					{Path: Path{"replicas"}, Value: 1, Source: src(global.Ref, d, 1)},
				}}},
				Chain: []Ref{bpRef, global.Ref, nsBase.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: global.Ref, Level: 1, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"replicas"}, Stanza: d, By: src(web.Ref, d, 5)}}},
					{Ref: nsBase.Ref, Level: 4, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"replicas"}, Stanza: d, By: src(web.Ref, d, 5)}}},
					{Ref: web.Ref, Level: 5, State: StateEnforced},
				},
			},
		},
		{
			// global's tls.mode went with its map when nsBase set tls to a scalar; web then made tls
			// a map again, without mode. No leaf is at or above tls.mode, and the map in effect
			// there is web's, so web is named, not nsBase, whose scalar is gone.
			name: "superseded under a map rebuilt since names the map's source",
			in: gatewayInput(Blueprint{},
				withDefault(global, vals{"tls": vals{"mode": "Terminate"}}),
				withDefault(nsBase, vals{"tls": "off"}),
				withDefault(web, vals{"tls": vals{"port": 443}})),
			want: Result{
				Values: vals{"tls": vals{"port": 443}},
				Leaves: []Leaf{{Path: Path{"tls", "port"}, Value: 443, Source: src(web.Ref, d, 5), Shadowed: []Shadow{
					{Path: Path{"tls"}, Value: "off", Source: src(nsBase.Ref, d, 4)},
					{Path: Path{"tls", "mode"}, Value: "Terminate", Source: src(global.Ref, d, 1)},
				}}},
				Chain: []Ref{bpRef, global.Ref, nsBase.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: global.Ref, Level: 1, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"tls", "mode"}, Stanza: d, By: src(web.Ref, d, 5)}}},
					{Ref: nsBase.Ref, Level: 4, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"tls"}, Stanza: d, By: src(web.Ref, d, 5)}}},
					{Ref: web.Ref, Level: 5, State: StateEnforced},
				},
			},
		},
		{
			// Sorted as Leaves are, key by key: a.b before a-b, though "a-b" < "a.b" as text.
			name: "superseded paths are sorted as leaves are",
			in: gatewayInput(Blueprint{},
				withDefault(global, vals{"a-b": 1, "a": vals{"b": 1}}),
				withDefault(web, vals{"a-b": 2, "a": vals{"b": 2}})),
			want: Result{
				Values: vals{"a-b": 2, "a": vals{"b": 2}},
				Leaves: []Leaf{
					{Path: Path{"a", "b"}, Value: 2, Source: src(web.Ref, d, 5),
						Shadowed: []Shadow{{Path: Path{"a", "b"}, Value: 1, Source: src(global.Ref, d, 1)}}},
					{Path: Path{"a-b"}, Value: 2, Source: src(web.Ref, d, 5),
						Shadowed: []Shadow{{Path: Path{"a-b"}, Value: 1, Source: src(global.Ref, d, 1)}}},
				},
				Chain: []Ref{bpRef, global.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: global.Ref, Level: 1, State: StateOverridden, Superseded: []Superseded{
						{Path: Path{"a", "b"}, Stanza: d, By: src(web.Ref, d, 5)},
						{Path: Path{"a-b"}, Stanza: d, By: src(web.Ref, d, 5)},
					}},
					{Ref: web.Ref, Level: 5, State: StateEnforced},
				},
			},
		},
		{
			name: "empty maps are values; merging {} changes nothing",
			in: gatewayInput(Blueprint{Default: vals{"annotations": vals{}, "labels": vals{"team": "a"}}},
				withDefault(global, vals{"extra": vals{}}),
				withDefault(web, vals{"annotations": vals{}, "labels": vals{}, "extra": "none"})),
			want: Result{
				Values: vals{"annotations": vals{}, "labels": vals{"team": "a"}, "extra": "none"},
				Leaves: []Leaf{
					{Path: Path{"annotations"}, Value: vals{}, Source: src(bpRef, d, 0)},
					{Path: Path{"extra"}, Value: "none", Source: src(web.Ref, d, 5),
						Shadowed: []Shadow{{Path: Path{"extra"}, Value: vals{}, Source: src(global.Ref, d, 1)}}},
					{Path: Path{"labels", "team"}, Value: "a", Source: src(bpRef, d, 0)},
				},
				Chain: []Ref{bpRef, global.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: global.Ref, Level: 1, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"extra"}, Stanza: d, By: src(web.Ref, d, 5)}}},
					{Ref: web.Ref, Level: 5, State: StateEnforced},
				},
			},
		},
		{
			// Found by FuzzResolve: the policy still sets extra, so it is not Overridden.
			name: "a map of only nulls leaves an empty map, which is a value",
			in: func() Input {
				in := gatewayInput(Blueprint{}, withOverride(global, vals{"extra": vals{"x": nil}, "replicas": 1}))
				in.CommandLine = vals{"replicas": 2}
				return in
			}(),
			want: Result{
				Values: vals{"extra": vals{}, "replicas": 2},
				Leaves: []Leaf{
					{Path: Path{"extra"}, Value: vals{}, Source: src(global.Ref, o, 1)},
					{Path: Path{"replicas"}, Value: 2, Source: src(cliRef, o, LevelCommandLine),
						Shadowed: []Shadow{{Path: Path{"replicas"}, Value: 1, Source: src(global.Ref, o, 1)}}},
				},
				Chain: []Ref{bpRef, global.Ref, cliRef},
				Outcomes: []Outcome{{Ref: global.Ref, Level: 1, State: StatePartiallyEnforced,
					Superseded: []Superseded{{Path: Path{"replicas"}, Stanza: o, By: src(cliRef, o, LevelCommandLine)}}}},
			},
		},
		{
			name: "an empty map merged into and then replaced is lost with what was merged",
			in: gatewayInput(Blueprint{},
				withDefault(global, vals{"extra": vals{}}),
				withDefault(nsBase, vals{"extra": vals{"k": "v"}}),
				withDefault(web, vals{"extra": "none"})),
			want: Result{
				Values: vals{"extra": "none"},
				Leaves: []Leaf{{Path: Path{"extra"}, Value: "none", Source: src(web.Ref, d, 5),
					Shadowed: []Shadow{{Path: Path{"extra", "k"}, Value: "v", Source: src(nsBase.Ref, d, 4)}}}},
				Chain: []Ref{bpRef, global.Ref, nsBase.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: global.Ref, Level: 1, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"extra"}, Stanza: d, By: src(web.Ref, d, 5)}}},
					{Ref: nsBase.Ref, Level: 4, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"extra", "k"}, Stanza: d, By: src(web.Ref, d, 5)}}},
					{Ref: web.Ref, Level: 5, State: StateEnforced},
				},
			},
		},
		{
			name: "a policy with both stanzas: its override over its own default is not a loss",
			in: gatewayInput(Blueprint{Default: vals{"replicas": 1}},
				withOverride(withDefault(web, vals{"replicas": 2}), vals{"replicas": 3})),
			want: Result{
				Values: vals{"replicas": 3},
				Leaves: []Leaf{{Path: Path{"replicas"}, Value: 3, Source: src(web.Ref, o, 5), Shadowed: []Shadow{
					{Path: Path{"replicas"}, Value: 2, Source: src(web.Ref, d, 5)},
					{Path: Path{"replicas"}, Value: 1, Source: src(bpRef, d, 0)},
				}}},
				Chain:    []Ref{bpRef, web.Ref},
				Outcomes: []Outcome{{Ref: web.Ref, Level: 5, State: StateEnforced}},
			},
		},
		{
			// sizing's default loses to web's, but sizing's own override then wins the key: sizing
			// got what it asked for.
			name: "a policy with both stanzas and a lower default on the same key",
			in: gatewayInput(Blueprint{},
				withDefault(web, vals{"replicas": 3}),
				withOverride(withDefault(sizing, vals{"replicas": 2}), vals{"replicas": 4})),
			want: Result{
				Values: vals{"replicas": 4},
				Leaves: []Leaf{{Path: Path{"replicas"}, Value: 4, Source: src(sizing.Ref, o, 3), Shadowed: []Shadow{
					{Path: Path{"replicas"}, Value: 3, Source: src(web.Ref, d, 5)},
					{Path: Path{"replicas"}, Value: 2, Source: src(sizing.Ref, d, 3)},
				}}},
				Chain: []Ref{bpRef, sizing.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: sizing.Ref, Level: 3, State: StateEnforced},
					{Ref: web.Ref, Level: 5, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"replicas"}, Stanza: d, By: src(sizing.Ref, o, 3)}}},
				},
			},
		},
		{
			// sizing's override sets tls.port, which does not reach its default's tls.mode. web's
			// scalar removed tls.mode; sizing's own override now holds tls, but a policy is never
			// superseded by itself, so web stays named.
			name: "a policy with both stanzas: an override elsewhere in the map does not excuse its default's loss",
			in: gatewayInput(Blueprint{},
				withOverride(withDefault(sizing, vals{"tls": vals{"mode": "Terminate"}}), vals{"tls": vals{"port": 443}}),
				withDefault(web, vals{"tls": "off"})),
			want: Result{
				Values: vals{"tls": vals{"port": 443}},
				Leaves: []Leaf{{Path: Path{"tls", "port"}, Value: 443, Source: src(sizing.Ref, o, 3), Shadowed: []Shadow{
					{Path: Path{"tls"}, Value: "off", Source: src(web.Ref, d, 5)},
					{Path: Path{"tls", "mode"}, Value: "Terminate", Source: src(sizing.Ref, d, 3)},
				}}},
				Chain: []Ref{bpRef, sizing.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: sizing.Ref, Level: 3, State: StatePartiallyEnforced,
						Superseded: []Superseded{{Path: Path{"tls", "mode"}, Stanza: d, By: src(web.Ref, d, 5)}}},
					{Ref: web.Ref, Level: 5, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"tls"}, Stanza: d, By: src(sizing.Ref, o, 3)}}},
				},
			},
		},
		{
			// Found while moving Superseded.By to the final holder: the nearest thing in effect
			// above tls.mode is sizing's own (empty) map, so web, which removed it, stays named.
			name: "a policy with both stanzas: its override's empty map does not excuse its default's loss",
			in: gatewayInput(Blueprint{},
				withOverride(withDefault(sizing, vals{"tls": vals{"mode": "Terminate"}}), vals{"tls": vals{}}),
				withDefault(web, vals{"tls": "off"})),
			want: Result{
				Values: vals{"tls": vals{}},
				Leaves: []Leaf{{Path: Path{"tls"}, Value: vals{}, Source: src(sizing.Ref, o, 3), Shadowed: []Shadow{
					{Path: Path{"tls"}, Value: "off", Source: src(web.Ref, d, 5)},
					{Path: Path{"tls", "mode"}, Value: "Terminate", Source: src(sizing.Ref, d, 3)},
				}}},
				Chain: []Ref{bpRef, sizing.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: sizing.Ref, Level: 3, State: StatePartiallyEnforced,
						Superseded: []Superseded{{Path: Path{"tls", "mode"}, Stanza: d, By: src(web.Ref, d, 5)}}},
					{Ref: web.Ref, Level: 5, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"tls"}, Stanza: d, By: src(sizing.Ref, o, 3)}}},
				},
			},
		},
		{
			// sizing's default a.x loses to web's scalar; sizing's override removes a.x itself, so
			// nothing sizing asked for is missing.
			name: "a policy with both stanzas: its override removing what its default lost",
			in: gatewayInput(Blueprint{},
				withOverride(withDefault(sizing, vals{"a": vals{"x": 1}}), vals{"a": vals{"x": nil}}),
				withDefault(web, vals{"a": 5})),
			want: Result{
				Values: vals{"a": vals{}},
				Leaves: []Leaf{{Path: Path{"a"}, Value: vals{}, Source: src(sizing.Ref, o, 3), Shadowed: []Shadow{
					{Path: Path{"a"}, Value: 5, Source: src(web.Ref, d, 5)},
					{Path: Path{"a", "x"}, Value: 1, Source: src(sizing.Ref, d, 3)},
				}}},
				Chain: []Ref{bpRef, sizing.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: sizing.Ref, Level: 3, State: StateEnforced},
					{Ref: web.Ref, Level: 5, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"a"}, Stanza: d, By: src(sizing.Ref, o, 3)}}},
				},
			},
		},
		{
			name: "a policy with both stanzas partially enforced",
			in: gatewayInput(Blueprint{},
				withOverride(withDefault(sizing, vals{"replicas": 2, "logLevel": "info"}), vals{"cpu": "500m"}),
				withDefault(web, vals{"replicas": 3}),
				withOverride(limits, vals{"cpu": "1"})),
			want: Result{
				Values: vals{"cpu": "1", "logLevel": "info", "replicas": 3},
				Leaves: []Leaf{
					{Path: Path{"cpu"}, Value: "1", Source: src(limits.Ref, o, 1),
						Shadowed: []Shadow{{Path: Path{"cpu"}, Value: "500m", Source: src(sizing.Ref, o, 3)}}},
					{Path: Path{"logLevel"}, Value: "info", Source: src(sizing.Ref, d, 3)},
					{Path: Path{"replicas"}, Value: 3, Source: src(web.Ref, d, 5),
						Shadowed: []Shadow{{Path: Path{"replicas"}, Value: 2, Source: src(sizing.Ref, d, 3)}}},
				},
				Chain: []Ref{bpRef, limits.Ref, sizing.Ref, web.Ref},
				Outcomes: []Outcome{
					{Ref: limits.Ref, Level: 1, State: StateEnforced},
					{Ref: sizing.Ref, Level: 3, State: StatePartiallyEnforced, Superseded: []Superseded{
						{Path: Path{"cpu"}, Stanza: o, By: src(limits.Ref, o, 1)},
						{Path: Path{"replicas"}, Stanza: d, By: src(web.Ref, d, 5)},
					}},
					{Ref: web.Ref, Level: 5, State: StateEnforced},
				},
			},
		},
		{
			name: "the blueprint's override beats every policy override",
			in:   gatewayInput(Blueprint{Override: vals{"a": 0}}, withOverride(global, vals{"a": 1})),
			want: Result{
				Values: vals{"a": 0},
				Leaves: []Leaf{{Path: Path{"a"}, Value: 0, Source: src(bpRef, o, 0),
					Shadowed: []Shadow{{Path: Path{"a"}, Value: 1, Source: src(global.Ref, o, 1)}}}},
				Chain: []Ref{bpRef, global.Ref},
				Outcomes: []Outcome{{Ref: global.Ref, Level: 1, State: StateOverridden,
					Superseded: []Superseded{{Path: Path{"a"}, Stanza: o, By: src(bpRef, o, 0)}}}},
			},
		},
		{
			name: "the command line beats the blueprint's override",
			in: func() Input {
				in := gatewayInput(Blueprint{Default: vals{"a": "default"}, Override: vals{"a": "blueprint"}},
					withOverride(global, vals{"a": "global"}))
				in.CommandLine = vals{"a": "cli", "b": "cli"}
				return in
			}(),
			want: Result{
				Values: vals{"a": "cli", "b": "cli"},
				Leaves: []Leaf{
					{Path: Path{"a"}, Value: "cli", Source: src(cliRef, o, LevelCommandLine), Shadowed: []Shadow{
						{Path: Path{"a"}, Value: "blueprint", Source: src(bpRef, o, 0)},
						{Path: Path{"a"}, Value: "global", Source: src(global.Ref, o, 1)},
						{Path: Path{"a"}, Value: "default", Source: src(bpRef, d, 0)},
					}},
					{Path: Path{"b"}, Value: "cli", Source: src(cliRef, o, LevelCommandLine)},
				},
				Chain: []Ref{bpRef, global.Ref, cliRef},
				Outcomes: []Outcome{{Ref: global.Ref, Level: 1, State: StateOverridden,
					Superseded: []Superseded{{Path: Path{"a"}, Stanza: o, By: src(cliRef, o, LevelCommandLine)}}}},
			},
		},
		{
			name: "HTTPRoute in another namespace: levels 6 and 7 follow the Gateway's chain",
			in: routeInput(ObjectKey{Namespace: routeNS, Name: routeName}, Blueprint{Default: vals{"a": "0"}},
				withDefault(rShop, vals{"a": "7"}),
				withDefault(rNS, vals{"a": "6", "rn": "6"}),
				withDefault(web, vals{"a": "5"}),
				withDefault(nsPol, vals{"a": "4", "n": "4"})),
			want: Result{
				Values: vals{"a": "7", "n": "4", "rn": "6"},
				Leaves: []Leaf{
					{Path: Path{"a"}, Value: "7", Source: src(rShop.Ref, d, 7), Shadowed: []Shadow{
						{Path: Path{"a"}, Value: "6", Source: src(rNS.Ref, d, 6)},
						{Path: Path{"a"}, Value: "5", Source: src(web.Ref, d, 5)},
						{Path: Path{"a"}, Value: "4", Source: src(nsPol.Ref, d, 4)},
						{Path: Path{"a"}, Value: "0", Source: src(bpRef, d, 0)},
					}},
					{Path: Path{"n"}, Value: "4", Source: src(nsPol.Ref, d, 4)},
					{Path: Path{"rn"}, Value: "6", Source: src(rNS.Ref, d, 6)},
				},
				Chain: []Ref{bpRef, nsPol.Ref, web.Ref, rNS.Ref, rShop.Ref},
				Outcomes: []Outcome{
					{Ref: nsPol.Ref, Level: 4, State: StatePartiallyEnforced,
						Superseded: []Superseded{{Path: Path{"a"}, Stanza: d, By: src(rShop.Ref, d, 7)}}},
					{Ref: web.Ref, Level: 5, State: StateOverridden,
						Superseded: []Superseded{{Path: Path{"a"}, Stanza: d, By: src(rShop.Ref, d, 7)}}},
					{Ref: rNS.Ref, Level: 6, State: StatePartiallyEnforced,
						Superseded: []Superseded{{Path: Path{"a"}, Stanza: d, By: src(rShop.Ref, d, 7)}}},
					{Ref: rShop.Ref, Level: 7, State: StateEnforced},
				},
			},
		},
		{
			// No level 6: the namespace's GatewayConfig stays at level 4, above the Gateway's, and
			// its override beats the route's.
			name: "HTTPRoute in the Gateway's namespace",
			in: routeInput(ObjectKey{Namespace: gwNS, Name: routeName}, Blueprint{},
				withOverride(withDefault(sameNS, vals{"a": "7", "b": "7-default"}), vals{"b": "7"}),
				withOverride(withDefault(nsPol, vals{"a": "4"}), vals{"b": "4"})),
			want: Result{
				Values: vals{"a": "7", "b": "4"},
				Leaves: []Leaf{
					{Path: Path{"a"}, Value: "7", Source: src(sameNS.Ref, d, 7),
						Shadowed: []Shadow{{Path: Path{"a"}, Value: "4", Source: src(nsPol.Ref, d, 4)}}},
					{Path: Path{"b"}, Value: "4", Source: src(nsPol.Ref, o, 4), Shadowed: []Shadow{
						{Path: Path{"b"}, Value: "7", Source: src(sameNS.Ref, o, 7)},
						{Path: Path{"b"}, Value: "7-default", Source: src(sameNS.Ref, d, 7)},
					}},
				},
				Chain: []Ref{bpRef, nsPol.Ref, sameNS.Ref},
				Outcomes: []Outcome{
					{Ref: nsPol.Ref, Level: 4, State: StatePartiallyEnforced,
						Superseded: []Superseded{{Path: Path{"a"}, Stanza: d, By: src(sameNS.Ref, d, 7)}}},
					{Ref: sameNS.Ref, Level: 7, State: StatePartiallyEnforced,
						Superseded: []Superseded{{Path: Path{"b"}, Stanza: o, By: src(nsPol.Ref, o, 4)}}},
				},
			},
		},
		{
			name: "no blueprint values and no policies",
			in:   gatewayInput(Blueprint{}),
			want: Result{Values: vals{}, Chain: []Ref{bpRef}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkResult(t, Resolve(tt.in), &tt.want)
		})
	}
}

// TestResolveNotApplicable feeds one policy that must not apply and checks it is reported with
// a reason naming what it got wrong, and that its values are nowhere.
func TestResolveNotApplicable(t *testing.T) {
	otherRoute := &ObjectKey{Namespace: routeNS, Name: routeName}
	sameNSRoute := &ObjectKey{Namespace: gwNS, Name: routeName}
	gwTarget := func(kind, name string) Target { return Target{Group: GatewayGroup, Kind: kind, Name: name} }
	nsTarget := func(name string) Target { return Target{Kind: TargetNamespace, Name: name} }
	tests := []struct {
		name   string
		policy Policy
		route  *ObjectKey
		reason string // a word the reason must contain
	}{
		{"GatewayClassConfig for another class", gcc(ctrlNS, "p", epoch, gwTarget(TargetGatewayClass, "internal")), nil, "internal"},
		{"GatewayClassConfig for the class in an unrelated namespace", gcc("team-z", "p", epoch, gwTarget(TargetGatewayClass, className)), nil, "team-z"},
		{"GatewayClassConfig for another namespace", gcc("team-z", "p", epoch, nsTarget("team-z")), nil, "team-z"},
		{"GatewayClassConfig naming a namespace not its own", gcc(gwNS, "p", epoch, nsTarget("team-z")), nil, "team-z"},
		{"global GatewayClassConfig naming the Gateway's namespace", gcc(ctrlNS, "p", epoch, nsTarget(gwNS)), nil, "own namespace"},
		{"GatewayClassConfig targeting a Gateway", gcc(gwNS, "p", epoch, gwTarget(TargetGateway, gwName)), nil, "cannot target"},
		{"GatewayConfig for another Gateway", gc(gwNS, "p", epoch, gwTarget(TargetGateway, "api")), nil, "api"},
		{"GatewayConfig for a same-named Gateway in another namespace", gc("team-z", "p", epoch, gwTarget(TargetGateway, gwName)), nil, "team-z"},
		{"GatewayConfig for another namespace", gc("team-z", "p", epoch, nsTarget("team-z")), nil, "team-z"},
		{"GatewayConfig naming a namespace not its own", gc(gwNS, "p", epoch, nsTarget("team-z")), nil, "own namespace"},
		{"GatewayConfig naming the route's namespace from the Gateway's", gc(gwNS, "p", epoch, nsTarget(routeNS)), otherRoute, "own namespace"},
		{"GatewayConfig for a route's namespace without a route", gc(routeNS, "p", epoch, nsTarget(routeNS)), nil, routeNS},
		{"GatewayConfig for another namespace with a route in the Gateway's", gc(routeNS, "p", epoch, nsTarget(routeNS)), sameNSRoute, routeNS},
		{"GatewayConfig for an HTTPRoute without a route", gc(routeNS, "p", epoch, gwTarget(TargetHTTPRoute, routeName)), nil, "HTTPRoute"},
		{"GatewayConfig for another HTTPRoute", gc(routeNS, "p", epoch, gwTarget(TargetHTTPRoute, "cart")), otherRoute, "cart"},
		{"GatewayConfig for a same-named HTTPRoute in another namespace", gc("team-z", "p", epoch, gwTarget(TargetHTTPRoute, routeName)), otherRoute, "team-z"},
		{"GatewayConfig targeting a GatewayClass", gc(gwNS, "p", epoch, gwTarget(TargetGatewayClass, className)), nil, "GatewayClass"},
		{"GatewayConfig targeting a Gateway in the core group", gc(gwNS, "p", epoch, Target{Kind: TargetGateway, Name: gwName}), nil, "core group"},
		{"GatewayConfig targeting a Namespace in the Gateway API group", gc(gwNS, "p", epoch, gwTarget(TargetNamespace, gwNS)), nil, "Namespace." + GatewayGroup},
		// bifrost's policies carry targetRef.namespace: only the policy's own is accepted.
		{"GatewayConfig whose targetRef names another namespace", gc(gwNS, "p", epoch, Target{Group: GatewayGroup, Kind: TargetGateway, Namespace: "team-z", Name: gwName}), nil, "spec.targetRef.namespace"},
		{"GatewayClassConfig whose targetRef names another namespace", gcc(gwNS, "p", epoch, Target{Kind: TargetNamespace, Namespace: "team-z", Name: gwNS}), nil, "spec.targetRef.namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := withOverride(withDefault(tt.policy, vals{"a": "policy"}), vals{"b": "policy"})
			in := gatewayInput(Blueprint{Default: vals{"a": "blueprint"}}, p)
			in.Route = tt.route
			got := Resolve(in)

			wantEqual(t, "Values", got.Values, vals{"a": "blueprint"})
			wantEqual(t, "Leaves", got.Leaves, []Leaf{{Path: Path{"a"}, Value: "blueprint", Source: srcOf(bpRef, StanzaDefault, 0)}})
			wantEqual(t, "Chain", got.Chain, []Ref{bpRef})
			if len(got.Outcomes) != 1 {
				t.Fatalf("got %d outcomes, want 1: %s", len(got.Outcomes), asJSON(got.Outcomes))
			}
			out := got.Outcomes[0]
			if out.Ref != p.Ref || out.State != StateNotApplicable || out.Superseded != nil {
				t.Errorf("outcome = %s, want %s NotApplicable with no superseded paths", asJSON(out), p.Ref)
			}
			if !strings.Contains(out.Reason, tt.reason) {
				t.Errorf("reason %q does not mention %q", out.Reason, tt.reason)
			}
		})
	}
}

// TestResolveOutcomeOrder checks that Outcomes has one entry per input policy, applicable or
// not, sorted by kind, namespace and name whatever the input order.
func TestResolveOutcomeOrder(t *testing.T) {
	in := gatewayInput(Blueprint{},
		gatewayGC("web", epoch),
		gc(gwNS, "api", epoch, Target{Group: GatewayGroup, Kind: TargetGateway, Name: "api"}),
		gc("team-z", "z", epoch, Target{Kind: TargetNamespace, Name: "team-z"}),
		classGCC("sizing", epoch),
		globalGCC("limits", epoch),
		globalGCC("base", minute(1)),
	)
	var got []string
	for _, o := range Resolve(in).Outcomes {
		got = append(got, fmt.Sprintf("%s %s", o.Ref, o.State))
	}
	want := []string{
		"GatewayClassConfig gantry-system/base Enforced",
		"GatewayClassConfig gantry-system/limits Enforced",
		"GatewayClassConfig team-a/sizing Enforced",
		"GatewayConfig team-a/api NotApplicable",
		"GatewayConfig team-a/web Enforced",
		"GatewayConfig team-z/z NotApplicable",
	}
	wantEqual(t, "Outcomes", got, want)
}

// TestResolveDoesNotShareInput checks that Resolve leaves its input alone and that a template
// changing the effective values cannot change a policy (which may be an informer's cache).
func TestResolveDoesNotShareInput(t *testing.T) {
	in := gatewayInput(Blueprint{Default: vals{"ports": []any{80}, "svc": vals{"type": "ClusterIP"}}},
		withDefault(gatewayGC("web", epoch), vals{"ports": []any{vals{"port": 8080}}, "svc": vals{"type": nil}}))
	got := Resolve(in)

	wantEqual(t, "blueprint after Resolve", in.Blueprint.Default, vals{"ports": []any{80}, "svc": vals{"type": "ClusterIP"}})
	wantEqual(t, "policy after Resolve", in.Policies[0].Default, vals{"ports": []any{vals{"port": 8080}}, "svc": vals{"type": nil}})

	ports := got.Values["ports"].([]any)
	ports[0].(map[string]any)["port"] = 1
	ports[0] = "changed"
	wantEqual(t, "policy after changing Values", in.Policies[0].Default["ports"], []any{vals{"port": 8080}})
	leaf, _ := got.SourceOf(Path{"ports"})
	wantEqual(t, "leaf after changing Values", leaf.Value, []any{vals{"port": 8080}})
}
