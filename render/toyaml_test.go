package render

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// slowYAML is what toYaml wrote before its direct path: JSON, read back as YAML, written out.
func slowYAML(v any) (string, error) {
	b, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}

// TestToYAMLIsWhatTheJSONRoundTripWrites: toYaml's direct path writes, byte for byte, what the
// JSON round trip of sigs.k8s.io/yaml writes, for the values templates pass it: keys that sort
// differently by bytes and by yaml's numeric-aware order, strings that must be quoted, look
// like numbers, booleans or nulls, hold line breaks or invalid UTF-8, floats of every form,
// empty and nil containers, typed slices and maps, and values it does not take (cycles).
func TestToYAMLIsWhatTheJSONRoundTripWrites(t *testing.T) {
	cyclic := map[string]any{"a": "b"}
	cyclic["self"] = cyclic
	values := []any{
		nil, true, false, "", "plain", "a: b", "- x", "true", "yes", "no", "on", "null", "~", "1", "0x1F", "1e3", "012", ".5",
		"*.example.com", "&a", "!tag", "%x", "@x", "`x", "'q'", `"d"`, "#c", "x #c", "multi\nline", "trailing\n", " lead", "tail ",
		"\t", "tab\tin", "\u2028", "é", "\xff\xfe", "<>&", "\r", "x\r\ny", "\x01", "\x7f", "\u0080", "\u009f", "\u00a0", "\ufeff", "\ufffe", "\u2029", "\U0001F600", strings.Repeat("long words ", 20), "---", "...", "a\u0085b",
		0, 1, -1, int64(math.MaxInt64), int64(math.MinInt64), int32(7), uint64(math.MaxUint64), uint8(3),
		0.5, -0.25, 1e-7, 1e21, 1e22, 123456789.5, 1.0, -0.0, 1e6, float64(1 << 53), float64(1 << 62), 1e20, float32(1.5),
		math.NaN(), math.Inf(1),
		map[string]any{}, []any{}, []any(nil), map[string]any(nil), []string{"a", "b"}, []string(nil), []int{1, 2},
		map[string]string{"k": "v"}, map[string]any{"a2": 1, "a10": 2, "b": 3, "A": 4, "1": 5, "10": 6, "2": 7, "": 8},
		map[string]any{"true": "x", "null": nil, "list": []any{"a", map[string]any{"k": []any{}}}, "n": map[string]any{"x": map[string]any{}}},
		[]any{[]any{[]any{"deep"}}, map[string]any{"k": "v"}, nil, 1.5, int64(2)},
		map[any]any{"k": "v"}, struct{ A string }{"x"}, &struct{}{}, cyclic, []any{cyclic},
	}
	check := func(v any) {
		t.Helper()
		fast, errFast := toYAML(v)
		slow, errSlow := slowYAML(v)
		if (errFast == nil) != (errSlow == nil) || fast != slow {
			t.Errorf("toYaml(%#v) = %q, %v; the JSON round trip writes %q, %v", v, fast, errFast, slow, errSlow)
		}
	}
	for _, v := range values {
		check(v)
		check(map[string]any{"k": v})
		check([]any{v})
	}
	// Random trees of the JSON types, with keys and strings from the list above.
	var strs []string
	for _, v := range values {
		if s, ok := v.(string); ok {
			strs = append(strs, s)
		}
	}
	r := rand.New(rand.NewPCG(7, 7))
	var gen func(depth int) any
	gen = func(depth int) any {
		switch n := r.IntN(9); {
		case n < 2 && depth < 4:
			m := map[string]any{}
			for range r.IntN(5) {
				m[strs[r.IntN(len(strs))]+fmt.Sprint(r.IntN(12))] = gen(depth + 1)
			}
			return m
		case n < 4 && depth < 4:
			l := []any{}
			for range r.IntN(4) {
				l = append(l, gen(depth+1))
			}
			return l
		case n == 4:
			return int64(r.IntN(2000) - 1000)
		case n == 5:
			return float64(r.IntN(2000)-1000) / 8
		case n == 6:
			return r.IntN(2) == 0
		default:
			return strs[r.IntN(len(strs))]
		}
	}
	direct := 0
	for range 2000 {
		v := gen(0)
		if plainJSON(v, 0) {
			direct++
		}
		check(v)
	}
	// The comparison means something only if the direct path is taken: for most random trees,
	// and for what blueprints pass.
	if direct < 1000 {
		t.Errorf("%d of 2000 random trees took the direct path, want most", direct)
	}
	typical := map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "128Mi"}, "l": []any{"a", int64(1), 0.5, true, nil},
		"tags": []any{map[string]any{"key": "gantry.dev/gateway", "value": "team-a/web"}}, "hosts": []any{"*.example.com"}}
	if !plainJSON(typical, 0) {
		t.Errorf("plainJSON(%v) = false, want the direct path", typical)
	}
}
