package render_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// cmpOperands are what the generated templates compare: the template's own words, and tenant
// values, as they are or transformed.
var cmpOperands = []string{
	`"metrics"`, `"k"`, `"x"`,
	`.Values.a`, `.Values.b`, `.Values.c`,
	`(lower .Values.a)`, `(upper .Values.b)`, `(trunc 2 .Values.c)`, `(printf "%s" .Values.a)`,
}

// cmpBuilders make $l, a list, from four operands (%[1]s…%[4]s); each compares its operands
// somehow (equality of keys or items, truth, a count, a parser's keys).
var cmpBuilders = []string{
	`{{- $l := uniq (list %[1]s %[2]s %[3]s %[4]s) }}`,
	`{{- $l := keys (dict %[1]s "1" %[2]s "1" %[3]s "1" %[4]s "1") | sortAlpha }}`,
	`{{- $l := keys (merge (dict %[1]s "1" "n" (dict %[2]s "1")) (dict %[3]s "1" "n" (dict %[4]s "1"))) | sortAlpha }}`,
	`{{- $l := keys (mergeOverwrite (dict %[1]s "1") (dict %[2]s "1") (dict %[3]s "1" %[4]s "1")) | sortAlpha }}`,
	`{{- $l := without (list %[1]s %[2]s %[3]s) %[4]s }}`,
	`{{- $l := compact (list %[1]s (and (ne %[2]s "metrics") %[3]s) %[4]s) }}`,
	`{{- $l := list %[1]s (or (and (eq %[2]s %[3]s) %[4]s) nil) | compact }}`,
	`{{- $m := dict "metrics" %[1]s }}{{ $l := default (list %[2]s %[3]s) (index $m %[4]s) }}`,
	`{{- $l := slice (list %[1]s %[2]s %[3]s) (min 2 (len (uniq (list %[4]s "x")))) }}`,
	`{{- $s := dict %[1]s "1" }}{{ $_ := set $s %[2]s "2" }}{{ $_ := unset $s %[3]s }}{{ $l := keys $s | sortAlpha | concat (list %[4]s) }}`,
	`{{- $l := keys (fromYaml (printf "%%s: 1\nk: 1\nz: %%s" %[1]s %[2]s)) | sortAlpha | concat (list %[3]s %[4]s) }}`,
	`{{- $l := keys (omit (dict %[1]s "1" %[2]s "1" "metrics" "1") %[3]s) | sortAlpha | concat (list %[4]s) }}`,
	`{{- $l := list (coalesce (has %[1]s (list %[2]s "metrics")) %[3]s) %[4]s | toStrings }}`,
	`{{- $l := list (ternary %[1]s %[2]s (hasPrefix "me" %[3]s)) %[4]s }}`,
}

// cmpValues: tenant strings equal to the template's words or not, and injections: a list item
// ("admin"), a key ("admin: 1"), quoted so that a stand-in is not cut short by them.
// The first cmpWords of cmpValues inject nothing.
const cmpWords = 8

var cmpValues = []string{
	"metrics", "Metrics", "METRICS", "k", "K", "x", "y", "1",
	"y\n  - admin", "\"y\"\n  - admin", "admin: \"1\"\n  zz", "z: 1\nadmin: 1", "\"x\"\nadmin: 1",
}

// TestComparingFunctionsNeverPassAnInjection: generated templates that build a list by
// comparing template words and tenant values (boundary/compare.go), printed one item a line.
// The oracle is not the check's: whatever the check accepts must be the unchecked render's
// output, and that output must hold no "admin" item or key, which only a tenant string's line
// break can put there. It must also accept some of them (a check that refuses everything
// would pass), and a share of the cases without an injecting value.
func TestComparingFunctionsNeverPassAnInjection(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	n := 1500
	if testing.Short() {
		n = 300
	}
	var accepted, acceptedClean, clean, injected int
	for i := range n {
		ops := make([]any, 4)
		for j := range ops {
			ops[j] = cmpOperands[rng.Intn(len(cmpOperands))]
		}
		if i%2 == 0 { // the attack's shape: a word of the template's, a, b, in some order
			shaped := []any{cmpOperands[rng.Intn(3)], []string{".Values.a", "(lower .Values.a)", "(printf \"%s\" .Values.a)"}[rng.Intn(3)], ".Values.b"}
			rng.Shuffle(len(shaped), func(x, y int) { shaped[x], shaped[y] = shaped[y], shaped[x] })
			copy(ops, shaped)
		}
		body := fmt.Sprintf(cmpBuilders[rng.Intn(len(cmpBuilders))], ops...)
		cm := rvHead + body + "\n  list:\n  - {{ $l | join \"\\n  - \" }}\n"
		// Half the cases are shaped as the attack is: a equal to a template word (as it is
		// or in another case), b an injection, c anything; the others draw every value.
		values := map[string]any{}
		hostile := false
		for _, k := range []string{"a", "b", "c"} {
			v := cmpValues[rng.Intn(len(cmpValues))]
			if i%2 == 0 && k == "a" {
				v = cmpValues[rng.Intn(cmpWords)]
			} else if i%2 == 0 && k == "b" {
				v = cmpValues[cmpWords+rng.Intn(len(cmpValues)-cmpWords)]
			}
			values[k] = v
			hostile = hostile || strings.Contains(v, "admin")
		}
		want, errP := renderPlatformErr(t, "", cm, values)
		if errP != nil {
			continue // the template fails on these values whoever gives them
		}
		got, err := renderData(t, "", cm, values)
		if !hostile {
			clean++
		}
		if err != nil {
			continue
		}
		accepted++
		if !hostile {
			acceptedClean++
		}
		if rvHasAdmin(want) || rvListHasAdmin(want) {
			injected++
			t.Errorf("case %d: an injection passed the check\n%s\nvalues %q\noutput %v", i, body, values, want)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("case %d: the checked output is not the unchecked one\n%s\nvalues %q\ngot %v\nwant %v", i, body, values, got, want)
		}
	}
	t.Logf("%d cases: %d accepted; without an injecting value %d, of which %d accepted", n, accepted, clean, acceptedClean)
	if accepted == 0 || acceptedClean*3 < clean {
		t.Errorf("accepted %d of %d cases, %d of the %d without an injecting value: the check refuses too much for this test to mean anything", accepted, n, acceptedClean, clean)
	}
}
