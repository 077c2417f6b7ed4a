package render_test

import (
	"testing"
)

// Adversarial review 5 (a helper session, 2026-11-27, thirteenth session) of the comparing
// functions, gantryBool and the first rewrite of index (commits 1cc69f2, eadebfa, 5106dfc).
// Each test failed when found: the checked render accepted what it should refuse. The
// TestReview5*Add* tests show with the unchecked render that a tenant string adds an "admin"
// key or list item; the TestReview5*Selects* tests that a tenant string prints a platform entry
// it names. Fixed since: every and/or operand that can stop them is a decision (gantryTruth),
// comparisons in conditions too, `if $x = …` decides as `if $x := …`, index is one numbered
// function recording each map key it found and list place it took, a tenant key is not taken
// for a platform key of the same name (boundary tenantPair), and slice's and chunk's counts
// depart where B's own differ. The comments below say what each found, as it was.

// An if/with condition is "decided": comparisons inside it get no gantryBool, so an or/and
// whose first operand is `eq .Values.a "metrics"` stops there in A (true) and goes on in B
// (the stand-in is not "metrics"). The later operand's side effects then happen in B only:
// a merge into a map (no record is needed, it found no key), an assignment to a variable.
// No tenant bool is involved.
func TestReview5AddThroughIfConditionOperandOnlyBRuns(t *testing.T) {
	for name, c := range map[string]struct {
		cm string
		v  map[string]any
	}{
		"merge in the operand": {"{{- $m := dict \"k\" \"1\" }}{{ if or (eq .Values.a \"metrics\") (merge $m (dict .Values.c \"1\")) }}{{ end }}\n{{ toYaml $m | indent 2 }}\n  {{ .Values.b }}: \"1\"\n",
			map[string]any{"a": "metrics", "b": "zz: \"1\"\n  admin", "c": "c"}},
		"assignment in the operand": {"{{- $l := list .Values.b }}{{ if or (eq .Values.a \"metrics\") ($l = list .Values.c .Values.d) }}{{ end }}\n" + rv4List,
			map[string]any{"a": "metrics", "b": "\"y\"\n  - admin", "c": "c", "d": "d"}},
		"merge, tenant bool": {"{{- $m := dict \"k\" \"1\" }}{{ if or .Values.flag (merge $m (dict .Values.c \"1\")) }}{{ end }}\n{{ toYaml $m | indent 2 }}\n  {{ .Values.b }}: \"1\"\n",
			map[string]any{"flag": true, "b": "zz: \"1\"\n  admin", "c": "c"}},
	} {
		t.Run(name, func(t *testing.T) { rv4Accepted(t, "", rvHead+c.cm, c.v) })
	}
}

// `if $x = PIPE` (an assignment, IsAssign) is left alone by RewriteDecisions: no
// gantryDecideIf, and B decides for itself. A tenant bool (flipped in B) or any tenant text
// whose truth its stand-in does not share (trimPrefix of the template's word: "" in A, the
// stand-in in B) takes another branch in B; each branch prints as many keys.
func TestReview5AddThroughIfAssignment(t *testing.T) {
	for name, c := range map[string]struct {
		cm string
		v  map[string]any
	}{
		"tenant bool": {"{{- $x := false }}{{ if $x = .Values.flag }}\n  {{ .Values.b }}: \"1\"\n{{- else }}\n  {{ .Values.c }}: \"1\"\n  {{ .Values.d }}: \"1\"\n{{- end }}\n",
			map[string]any{"flag": true, "b": "zz: \"1\"\n  admin", "c": "c", "d": "d"}},
		"tenant string": {"{{- $x := \"\" }}{{ if $x = .Values.a | trimPrefix \"metrics\" }}\n  {{ .Values.c }}: \"1\"\n  {{ .Values.d }}: \"1\"\n{{- else }}\n  {{ .Values.b }}: \"1\"\n{{- end }}\n",
			map[string]any{"a": "metrics", "b": "zz: \"1\"\n  admin", "c": "c", "d": "d"}},
	} {
		t.Run(name, func(t *testing.T) { rv4Accepted(t, "", rvHead+c.cm, c.v) })
	}
}

// A piped index is recorded (gantryKeyOf) only with one key and a plain map operand. With two
// keys (`K | index $m "x"`: the piped K is the last argument, which the rewrite of
// `index M K1` does not wrap) or a map computed by a call (`K | index (index $m "x")`), the
// lookup is B's own. lower makes A's key "metrics" from the tenant's "Metrics"; the lookup
// by "Metrics" finds nothing in A, and in B, where lower leaves the stand-in as it is, finds
// c: join drops A's nil, and b's injected item evens the count. The recorded form
// (`index $m "x" .Values.a`) is refused. With or instead of join, A's found value and B's
// nil pick different operands.
func TestReview5AddThroughUnrecordedPipedIndex(t *testing.T) {
	build := "{{- $m := dict \"x\" (dict (lower .Values.k) .Values.c) }}"
	joinValues := map[string]any{"k": "Metrics", "a": "Metrics", "b": "\"y\"\n  - admin", "c": "c"}
	orValues := map[string]any{"a": "metrics", "b": "\"y\"\n  - admin", "c": "c", "d": "d"}
	for name, c := range map[string]struct {
		cm string
		v  map[string]any
	}{
		"two keys, join":    {build + "{{ $l := list .Values.b (.Values.a | index $m \"x\") }}\n" + rv4List, joinValues},
		"map by call, join": {build + "{{ $l := list .Values.b (.Values.a | index (index $m \"x\")) }}\n" + rv4List, joinValues},
		"two keys, or": {"{{- $m := dict \"x\" (dict \"metrics\" .Values.b) }}{{ $l := or (.Values.a | index $m \"x\") (list .Values.c .Values.d) }}\n" + rv4List,
			orValues},
		"map by call, or": {"{{- $l := or (.Values.a | index (dict \"metrics\" .Values.b)) (list .Values.c .Values.d) }}\n" + rv4List,
			orValues},
	} {
		t.Run(name, func(t *testing.T) { rv4Accepted(t, "", rvHead+c.cm, c.v) })
	}
}

// The builtin index of a list by a number is not recorded (gantryKey records map lookups by
// strings only): a number from a tenant string (int, atoi: 0 for any stand-in) picks another
// item in B. A picks the empty list, B the one with c; b's injected item evens the count.
func TestReview5AddThroughListIndexByATenantNumber(t *testing.T) {
	cm := "{{- $l := concat (list .Values.b) (index (list (list .Values.c) (list)) (int .Values.s)) }}\n" + rv4List
	rv4Accepted(t, "", rvHead+cm, map[string]any{"s": "1", "b": "\"y\"\n  - admin", "c": "c"})
}

// and/or with a tenant bool (the known gap, docs/security.md 8.8): exploitable to add an item.
// A (flag true) gives the one-item list, B (flag false) the two-item one; b evens the count.
func TestReview5AddThroughAndOrOfATenantBool(t *testing.T) {
	cm := "{{- $l := concat (list .Values.b) (or (and .Values.flag (list .Values.c)) (list .Values.c .Values.d)) }}\n" + rv4List
	rv4Accepted(t, "", rvHead+cm, map[string]any{"flag": true, "b": "\"y\"\n  - admin", "c": "c", "d": "d"})
}

// Data selection, regressed by these commits (each refused at e2b5cce): B follows A's key
// into a map by the key's hash (merge's sameKey, set's and dict's records), so a map built
// with the tenant's string as a key (its stand-in in B) gets the platform's entry under the
// stand-in; the lookup by the tenant's string then finds it in B as in A (lookedUp only asks
// that B's map has B's key). slice's bounds are A's in B: a tenant's numeric string picks a
// platform list's item.
func TestReview5SelectsAPlatformEntry(t *testing.T) {
	secrets := "{{- $s := dict \"admin\" \"hunter2\" \"user\" \"pw\" }}\n"
	for name, body := range map[string]string{
		"get of mergeOverwrite":   "  v: {{ get (mergeOverwrite (dict .Values.a \"none\") $s) .Values.a | quote }}\n",
		"index of mergeOverwrite": "  v: {{ index (mergeOverwrite (dict .Values.a \"none\") $s) .Values.a | quote }}\n",
		"get of merge":            "  v: {{ get (merge (dict .Values.a \"\") $s) .Values.a | quote }}\n",
		"set in a range":          "{{- $m := dict .Values.a \"none\" }}{{ range $k, $v := $s }}{{ $_ := set $m $k $v }}{{ end }}\n  v: {{ get $m .Values.a | quote }}\n",
		"dict repeated key":       "{{- $m := dict .Values.a \"none\" \"admin\" \"hunter2\" \"user\" \"pw\" }}\n  v: {{ get $m .Values.a | quote }}\n",
		"slice by a number":       "{{- $l := list \"pw\" \"hunter2\" }}\n  v: {{ slice $l (int .Values.i) | first | quote }}\n",
	} {
		t.Run(name, func(t *testing.T) {
			cm := rvHead + secrets + body
			values := map[string]any{"a": "admin", "i": "1"}
			if got := renderPlatform(t, "", cm, values); got["v"] != "hunter2" {
				t.Fatalf("the lookup selects nothing even unchecked: %v", got)
			}
			mustRefuse(t, "", cm, values)
		})
	}
}
