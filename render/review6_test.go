package render_test

import "testing"

// Adversarial review 6 (a helper session, 2026-11-27, thirteenth session) of the comparing
// functions, gantryBool, gantryTruth and the numbered index at 71cd15c. Each test failed when
// found (and at e2b5cce, the session's start): the checked render accepted what it should
// refuse. Fixed since: a lookup by a key of the template's text must find A's key (keyHash);
// sortAlpha puts B's items in A's order; a range over a map checks that B visits A's keys in
// A's order; repeat's count departs where B's differs. The comments below say what each
// found, as it was. The TestReview6Add* tests show with the unchecked render that
// a tenant string adds an "admin" list item; TestReview6Selects* that a tenant string naming a
// platform key prints the platform's value. rv6Inject is the injection: two items in A ("y"
// quoted, so that B's stand-in is not cut short), one in B.
const rv6Inject = "\"y\"\n  - admin"

// A lookup that found a key in A and finds one in B takes B's own key's value, whatever that
// key is: Index, get, dig, pluck and pick record A's key (keyHash) but B never compares its
// key with it (lookedUp asks only that B's map has B's key). A key that B computes otherwise
// than A (a tenant bool printed, flipped in B; the length or atoi of a tenant string, the
// stand-in's in B; the tenant string's place in a sorted list) picks another entry in B: A
// takes c's one-item list, B the two-item one; rv6Inject evens the count.
func TestReview6AddThroughLookupOfAnotherKey(t *testing.T) {
	byBool := "{{- $m := dict \"true\" (list .Values.c) \"false\" (list .Values.c .Values.d) }}"
	boolValues := map[string]any{"flag": true, "b": rv6Inject, "c": "c", "d": "d"}
	for name, c := range map[string]struct {
		cm string
		v  map[string]any
	}{
		"index, tenant bool":       {byBool + "{{ $l := concat (list .Values.b) (index $m (toString .Values.flag)) }}\n" + rv4List, boolValues},
		"piped index, tenant bool": {byBool + "{{ $l := concat (list .Values.b) (.Values.flag | toString | index $m) }}\n" + rv4List, boolValues},
		"get, tenant bool":         {byBool + "{{ $l := concat (list .Values.b) (get $m (toString .Values.flag)) }}\n" + rv4List, boolValues},
		"dig, tenant bool":         {byBool + "{{ $l := concat (list .Values.b) (dig (toString .Values.flag) (list) $m) }}\n" + rv4List, boolValues},
		"pluck, tenant bool":       {byBool + "{{ $l := concat (list .Values.b) (first (pluck (toString .Values.flag) $m)) }}\n" + rv4List, boolValues},
		"pick, tenant bool":        {byBool + "{{ $l := concat (list .Values.b) (values (pick $m (toString .Values.flag)) | first) }}\n" + rv4List, boolValues},
		"index, len of a string": {"{{- $m := dict \"1\" (list .Values.c) \"3\" (list .Values.c .Values.d) }}{{ $l := concat (list .Values.b) (index $m (toString (len .Values.a))) }}\n" + rv4List,
			map[string]any{"a": "x", "b": rv6Inject, "c": "c", "d": "d"}},
		"index, atoi of a string": {"{{- $m := dict \"1\" (list .Values.c) \"0\" (list .Values.c .Values.d) }}{{ $l := concat (list .Values.b) (index $m (toString (atoi .Values.a))) }}\n" + rv4List,
			map[string]any{"a": "1", "b": rv6Inject, "c": "c", "d": "d"}},
		"index, sorted place": {"{{- $m := dict \"s\" (list .Values.c) \"r\" (list .Values.c .Values.d) }}{{ $k := list .Values.a \"r\" \"s\" | sortAlpha | rest | first }}{{ $l := concat (list .Values.b) (index $m $k) }}\n" + rv4List,
			map[string]any{"a": "z", "b": rv6Inject, "c": "c", "d": "d"}},
	} {
		t.Run(name, func(t *testing.T) { rv4Accepted(t, "", rvHead+c.cm, c.v) })
	}
}

// The same gap selects data: the tenant's "admin" sorts before the template's "b", B's
// stand-in after it, so A looks up "admin" and B "b", which the platform's map has too. The
// printed scalar holds a tenant string as well (a config line, a "user=password" pair), so B's
// node holds a placeholder and A may have any string there: A prints the platform's
// "hunter2" for the tenant's "admin". (`index $s .Values.a` itself is refused.)
func TestReview6SelectsThroughLookupOfAnotherKey(t *testing.T) {
	secrets := "{{- $s := dict \"admin\" \"hunter2\" \"b\" \"pw\" }}{{ $k := first (sortAlpha (list .Values.a \"b\")) }}\n"
	for name, body := range map[string]string{
		"index, printf": "  v: {{ printf \"%s=%s\" .Values.a (index $s $k) | quote }}\n",
		"get, printf":   "  v: {{ printf \"%s=%s\" .Values.a (get $s $k) | quote }}\n",
		"index, block":  "  v: |\n    user {{ .Values.a }}\n    password {{ index $s $k }}\n",
	} {
		t.Run(name, func(t *testing.T) {
			cm := rvHead + secrets + body
			values := map[string]any{"a": "admin"}
			got := renderPlatform(t, "", cm, values)
			if v, _ := got["v"].(string); !containsStr(v, "hunter2") {
				t.Fatalf("the lookup selects nothing even unchecked: %v", got)
			}
			mustRefuse(t, "", cm, values)
		})
	}
}

func containsStr(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// A range over a map visits its keys in sorted order, and B replays A's decisions by
// iteration. Where the map holds a tenant key beside a platform key (a tenant's routes merged
// over the platform's defaults, a dict), or beside a tenant key that B keeps because the
// template spells it (TemplateWords: "app" here, in the tenant's own map), the tenant's "a" sorts before the template's "m"
// and its stand-in after it: B's first iteration has the entry A had second, and takes A's
// first decision for it. A prints the one-item list at its first iteration and the key at its
// second; B prints the two-item list, then the key: one item more, which rv6Inject evens. No
// comparison's answer differs; only the order does.
func TestReview6AddThroughRangeOrderOfTenantKeys(t *testing.T) {
	body := "  list:\n  - {{ .Values.b }}\n{{- range $k, $v := $m }}\n{{- if eq (len $v) 1 }}\n  - {{ $v | join \"\\n  - \" }}\n{{- else }}\n  - {{ $k }}\n{{- end }}\n{{- end }}\n"
	for name, c := range map[string]struct {
		cm string
		v  map[string]any
	}{
		"dict": {"{{- $m := dict .Values.k (list .Values.c) \"m\" (list .Values.c .Values.d) }}\n" + body, map[string]any{"k": "a", "b": rv6Inject, "c": "c", "d": "d"}},
		"the tenant's own map, one key a word of the template's": {"{{- $m := .Values.routes }}{{ $app := \"app\" }}\n" + body,
			map[string]any{"routes": map[string]any{"aaa": []any{"e"}, "app": []any{"c", "d"}}, "b": rv6Inject}},
		"tenant map over defaults": {"{{- $m := merge (dict \"m\" (list .Values.c .Values.d)) .Values.routes }}\n" + body,
			map[string]any{"routes": map[string]any{"a": []any{"e"}}, "b": rv6Inject, "c": "c", "d": "d"}},
	} {
		t.Run(name, func(t *testing.T) { rv4Accepted(t, "", rvHead+c.cm, c.v) })
	}
}

// repeat is classified "text from text", but its count is a number that B computes from its
// stand-ins: int of a tenant bool (flipped in B: 0 in A, 1 in B) or len of a tenant string
// (the stand-in's length in B, 3 here). B repeats a tenant item once more than A; rv6Inject
// evens the count.
func TestReview6AddThroughRepeatCount(t *testing.T) {
	for name, c := range map[string]struct {
		cm string
		v  map[string]any
	}{
		"int of a tenant bool": {"  list:\n  - {{ .Values.b }}\n{{ repeat (int .Values.flag) (printf \"  - %s\\n\" .Values.c) }}",
			map[string]any{"flag": false, "b": rv6Inject, "c": "c"}},
		"len of a tenant string": {"  list:\n  - {{ .Values.b }}\n{{ repeat (len .Values.a) (printf \"  - %s\\n\" .Values.c) }}",
			map[string]any{"a": "ab", "b": rv6Inject, "c": "c"}},
	} {
		t.Run(name, func(t *testing.T) { rv4Accepted(t, "", rvHead+c.cm, c.v) })
	}
}
