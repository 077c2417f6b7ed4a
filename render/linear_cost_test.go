package render

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/Masterminds/sprig/v3"
)

// TestLinearFuncsAgreeWithSprig holds the linear uniq and trimAll to sprig's results.
func TestLinearFuncsAgreeWithSprig(t *testing.T) {
	f := sprig.HermeticTxtFuncMap()
	uniq := f["mustUniq"].(func(any) ([]any, error))
	trim := f["trimAll"].(func(string, string) string)
	nan := math.NaN()
	lists := []any{
		[]any{}, []any{"a", "b", "a", 1, int64(1), 1.0, 1, nil, nil, true, true, nan, nan, 0.0, math.Copysign(0, -1)},
		[]any{map[string]any{"a": 1}, map[string]any{"a": 1}, []any{1}, []any{1}, "x", []any{"x"}, map[string]any{}},
		[]string{"b", "a", "b"}, []int{3, 3, 1}, [2]string{"x", "x"},
	}
	for _, l := range lists {
		want, werr := uniq(l)
		got, err := uniqLinear(l)
		if (err == nil) != (werr == nil) || len(got) != len(want) {
			t.Errorf("uniq %v: got %v (%v), sprig %v (%v)", l, got, err, want, werr)
			continue
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
				t.Errorf("uniq %v: got %v, sprig %v", l, got, want)
			}
		}
	}
	if _, err := uniqLinear("s"); err == nil {
		t.Error("uniq of a string: want sprig's error")
	}
	long := strings.Repeat("üé\xff", 10)
	for _, c := range [][2]string{
		{"", ""}, {"xx", "abcxxcba"}, {long + "\uFFFD", "\xffé\uFFFDmiddleü\xfe"}, {long, "\uFFFDa"},
		{long + "a", "aaé"}, {strings.Repeat("é", 20), "éxé"}, {strings.Repeat("ab", 20), "abba"},
	} {
		if got, want := trimCutset(c[1], c[0]), trim(c[0], c[1]); got != want {
			t.Errorf("trimAll %q %q: got %q, sprig %q", c[0], c[1], got, want)
		}
	}
}
