package precedence

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Issue 19 item 3: nothing a tenant sends costs the controller more than a small, bounded
// amount. The API server admits objects up to 1.5 MB; these tests hold Resolve to a few MiB
// of allocation for any policy within that, whatever its shape.

// allocated is the bytes f allocates (TotalAlloc only grows, so a GC in between cannot hide
// any of it).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// nested parses {"a":{"a":...{"a":1}...}}, depth maps deep: six bytes a level, so 9,000 levels
// is the 54 KB GatewayConfig of the issue.
func nested(t testing.TB, depth int) map[string]any {
	t.Helper()
	raw := strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
	v, err := ParseValues([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func outcomeOf(t *testing.T, res *Result, ref Ref) Outcome {
	t.Helper()
	for _, o := range res.Outcomes {
		if o.Ref == ref {
			return o
		}
	}
	t.Fatalf("no outcome for %s in %v", ref, res.Outcomes)
	return Outcome{}
}

// The 54 KB GatewayConfig nesting 9,000 maps deep: Resolve copied the path at every level
// (about 1 GiB, and an OOM kill under the chart's 512 MiB, again at every start). It is
// refused, and refusing it costs next to nothing.
func TestCostDeepPolicyIsRefused(t *testing.T) {
	deep := withDefault(gatewayGC("deep", minute(0)), nested(t, 9000))
	in := gatewayInput(Blueprint{Default: vals{"replicas": 2}}, deep)
	var res *Result
	got := allocated(func() { res = Resolve(in) })
	if got > 1<<20 {
		t.Errorf("Resolve of a 9,000-deep policy allocated %d MiB, want under 1 MiB", got>>20)
	}
	o := outcomeOf(t, res, deep.Ref)
	if o.State != StateNotApplicable {
		t.Errorf("state %s, want %s", o.State, StateNotApplicable)
	}
	wantPath := "spec.default" + strings.Repeat(".a", MaxValuesDepth+1)
	for _, want := range []string{wantPath + ":", fmt.Sprintf("deeper than %d levels", MaxValuesDepth)} {
		if !strings.Contains(o.Reason, want) {
			t.Errorf("reason %q does not say %q", o.Reason, want)
		}
	}
	// What else applies is merged as usual.
	wantEqual(t, "Values", res.Values, vals{"replicas": 2})
}

// The refusal names the policy and the path, and the error is CheckValues' own.
func TestCostCheckValues(t *testing.T) {
	if err := CheckValues(nested(t, MaxValuesDepth)); err != nil {
		t.Errorf("values %d deep refused: %v", MaxValuesDepth, err)
	}
	err := CheckValues(vals{"x": []any{nested(t, MaxValuesDepth)}})
	if err == nil || !strings.Contains(err.Error(), `x[0]`+strings.Repeat(".a", MaxValuesDepth-1)+":") {
		t.Errorf("a list counts as a level, and the path shows the index: %v", err)
	}
	wide := make(vals, MaxValuesSize+1)
	for i := range MaxValuesSize + 1 {
		wide[fmt.Sprintf("k%07d", i)] = i
	}
	err = CheckValues(vals{"hosts": wide})
	want := fmt.Sprintf("hosts.k%07d: values hold more than %d entries", MaxValuesSize-1, MaxValuesSize)
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q (the first entry past the bound, in key order)", err, want)
	}
	p := withOverride(gatewayGC("wide", minute(0)), vals{"hosts": wide})
	res := Resolve(gatewayInput(Blueprint{}, p))
	o := outcomeOf(t, res, p.Ref)
	if o.State != StateNotApplicable || !strings.Contains(o.Reason, "spec.override."+want) || !strings.Contains(o.Reason, "GatewayConfig team-a/wide") {
		t.Errorf("outcome %+v, want NotApplicable naming the policy and spec.override.%s", o, want)
	}
}

// wideAt is n leaves set to val, depth maps below the root.
func wideAt(depth, n int, val any) vals {
	leaves := make(vals, n)
	for i := range n {
		leaves[fmt.Sprintf("k%d", i)] = val
	}
	v := leaves
	for range depth {
		v = vals{"a": v}
	}
	return v
}

// The largest policies Resolve accepts, in the shapes that cost it most, stay within a few
// tens of MiB: every value keeps its path, and a value's history is bounded.

func TestCostLargestPolicies(t *testing.T) {
	n := MaxValuesSize - 100
	half := n / 2
	for _, c := range []struct {
		name string
		in   Input
	}{
		{"flat", gatewayInput(Blueprint{}, withDefault(gatewayGC("p", minute(0)), wideAt(0, n, 1)))},
		{"at the depth bound", gatewayInput(Blueprint{}, withDefault(gatewayGC("p", minute(0)), wideAt(MaxValuesDepth-1, n-MaxValuesDepth, 1)))},
		// A tenant's two GatewayConfigs, in four stanzas: x is a map, then a scalar that
		// shadows all of it, then a map again whose every leaf inherits that history, then
		// each leaf is replaced once more, so it has history of its own too. Each leaf
		// copied its maps' whole history: the square of the values, and an OOM kill.
		{"histories", gatewayInput(Blueprint{},
			withOverride(withDefault(namespaceGC("ns", minute(0)), vals{"x": wideAt(0, half, 1)}), vals{"x": wideAt(0, half, 3)}),
			withOverride(withDefault(gatewayGC("gw", minute(0)), vals{"x": "s"}), vals{"x": wideAt(0, half, 2)}))},
		// The same value replaced back and forth by many policies: each replacement copied
		// the whole history before it.
		{"many policies", gatewayInput(Blueprint{}, flipping(100, 100)...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var res *Result
			got := allocated(func() { res = Resolve(c.in) })
			t.Logf("%d KiB", got>>10)
			if got > 32<<20 {
				t.Errorf("Resolve allocated %d MiB, want under 32 MiB", got>>20)
			}
			for _, o := range res.Outcomes {
				if o.State == StateNotApplicable {
					t.Errorf("%s: %s", o.Ref, o.Reason)
				}
			}
			for _, l := range res.Leaves {
				if len(l.Shadowed) > MaxShadowed {
					t.Fatalf("%s shadows %d values, more than %d", l.Path, len(l.Shadowed), MaxShadowed)
				}
			}
		})
	}
}

// flipping is n GatewayConfigs for the Gateway, each setting x in turn to a map of size
// leaves and to a scalar.
func flipping(n, size int) []Policy {
	var out []Policy
	for i := range n {
		var v any = "s"
		if i%2 == 0 {
			v = wideAt(0, size, i)
		}
		out = append(out, withDefault(gatewayGC(fmt.Sprintf("p%03d", i), minute(i)), vals{"x": v}))
	}
	return out
}

// Merging is linear in the values, however deep: the blueprint's values (trusted, so not
// refused) 9,000 maps deep cost a bounded amount a level, and three times as deep costs three
// times as much, where copying the path at every level cost 1.3 GiB at 9,000 levels.
func TestCostMergeIsLinearInDepth(t *testing.T) {
	cost := func(depth int) uint64 {
		in := gatewayInput(Blueprint{Default: nested(t, depth), Override: vals{"b": 1}})
		var res *Result
		got := allocated(func() { res = Resolve(in) })
		if len(res.Leaves) != 2 || len(res.Leaves[0].Path) != depth {
			t.Fatalf("want the deep leaf and b, got %d leaves", len(res.Leaves))
		}
		return got
	}
	shallow, deep := cost(3000), cost(9000)
	t.Logf("3,000 levels: %d KiB; 9,000 levels: %d KiB", shallow>>10, deep>>10)
	if deep > 9000*2048 {
		t.Errorf("Resolve of 9,000-deep values allocated %d KiB, more than 2 KiB a level", deep>>10)
	}
	if deep > 4*shallow {
		t.Errorf("three times as deep cost %.1f times as much: not linear", float64(deep)/float64(shallow))
	}
}
