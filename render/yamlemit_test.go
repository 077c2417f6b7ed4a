package render

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/internal/yamltext"
)

// TestAppendYAMLIsYAMLv2: where appendYAML writes a tree itself, it writes yaml/v2's bytes, and
// MarshalYAML always writes sigs.k8s.io/yaml's: for random trees of keys and strings that sort,
// quote, fold and resolve in yaml/v2's ways, at every depth, and for every object of the
// blueprints' and samples' golden outputs.
func TestAppendYAMLIsYAMLv2(t *testing.T) {
	strs := []string{"", "a", "web", "gw-0001", "team-a", "a2", "a10", "A", "1", "10", "2", "0", "01", "a01", "a1", "b", "é", "ü1",
		"true", "True", "tRue", "yes", "Y", "n", "NO", "on", "Off", "null", "Null", "~", "y1", "no-x",
		"100m", "128Mi", "0x1F", "1e3", "012", ".5", "1:20", "2001-12-14", "+1", "-", "-1", "- x", "--x", "---", "...", "a...",
		"docker.io/envoyproxy/envoy:v1.33.0", "a:", "a:b", "a: b", "*.example.com", "&a", "!t", "%x", "@x", "`x", "'q'", `"d"`,
		"#c", "x #c", "x#c", "a b", " lead", "tail ", "tab\tin", "multi\nline", "trailing\n", "é", "\u00a0", "<>&", "a,b", "[x]", "{x}",
		"?x", "|x", ">x", "a/b/c", "_x", ".x", "x.", "x-", strings.Repeat("x", 130), strings.Repeat("long words ", 9),
		strings.Repeat("y", 60) + " " + strings.Repeat("z", 10), "internal, fast", "example.com/cost-center", "\xff", "\x01",
	}
	// Keys leave out strings like 0x1F and 1:20 next to 01: yaml/v2's order is no order on them
	// (0x1F < 1:20 < 01 < 0x1F), so that its own output depends on Go's map order.
	var keys []string
	for _, s := range strs {
		if s == "" || s[0] < '0' || s[0] > '9' || strings.Trim(s, "0123456789") == "" {
			keys = append(keys, s)
		}
	}
	r := rand.New(rand.NewPCG(22, 2))
	var gen func(depth int) any
	gen = func(depth int) any {
		switch n := r.IntN(10); {
		case n < 3 && depth < 6:
			m := map[string]any{}
			for range r.IntN(5) {
				k := keys[r.IntN(len(keys))]
				if r.IntN(2) == 0 {
					k += fmt.Sprint(r.IntN(12))
				}
				m[k] = gen(depth + 1)
			}
			return m
		case n < 5 && depth < 6:
			l := []any{}
			for range r.IntN(4) {
				l = append(l, gen(depth+1))
			}
			return l
		case n == 5:
			return int64(r.IntN(2000) - 1000)
		case n == 6:
			return float64(r.IntN(2000)-1000) / 8
		case n == 7:
			return r.IntN(2) == 0
		case n == 8 && r.IntN(4) == 0:
			return nil
		default:
			return strs[r.IntN(len(strs))]
		}
	}
	written := 0
	check := func(where string, v any) {
		t.Helper()
		if b, ok := appendYAML(nil, v); ok {
			written++
			want, err := yamlv2.Marshal(v)
			if err != nil || string(b) != string(want) {
				t.Errorf("%s: appendYAML(%#v) =\n%s\nyaml/v2 writes (%v):\n%s", where, v, b, err, want)
			}
		}
		got, gotErr := MarshalYAML(v)
		want, wantErr := yaml.Marshal(v)
		if (gotErr == nil) != (wantErr == nil) || string(got) != string(want) {
			t.Errorf("%s: MarshalYAML(%#v) = %q, %v; sigs.k8s.io/yaml writes %q, %v", where, v, got, gotErr, want, wantErr)
		}
	}
	for i := range 5000 {
		v := gen(0)
		if _, ok := v.(map[string]any); !ok {
			v = map[string]any{"root": v}
		}
		check(fmt.Sprint("random tree ", i), v)
	}
	if written < 1000 {
		t.Errorf("appendYAML wrote %d of 5000 random trees itself, want most", written)
	}
	golden, _ := filepath.Glob("../blueprints/*/testdata/*.out.yaml")
	more, _ := filepath.Glob("../samples/testdata/*.yaml")
	written = 0
	for _, f := range append(golden, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs, _ := yamltext.SplitDocuments(string(data))
		for _, d := range docs {
			v, err := parseDocument(d)
			if err != nil || v == nil {
				continue
			}
			check(f, v)
		}
	}
	if written < 20 {
		t.Errorf("appendYAML wrote %d golden objects itself, want most", written)
	}
}
