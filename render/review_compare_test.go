package render_test

import (
	"reflect"
	"testing"
)

// Adversarial review 4 (a helper session, 2026-11-27, thirteenth session) of the comparing
// functions (boundary/compare.go): ways a tenant string added a list item or a key that the
// structure check accepted, and plausible templates it refused. Each attack was accepted when
// found and is refused since (comparisons' answers, slice's and chunk's counts, merge's found
// paths and the parsers' shapes are decisions). The refusals it reported are refused by design
// since a fifth review: every lookup of a platform map by a tenant string (get, pick, index,
// piped or not) selects the platform's data (TestLookupsByATenantStringRefused), and a tenant
// key set, merged or omitted into a platform key of the same name would let it
// (TestTenantKeyEqualToAPlatformKeyRefused).

// rv4Accepted shows that cm, unchecked, puts an "admin" key or list item into the output, and
// fails if the checked render accepts it.
func rv4Accepted(t *testing.T, helpers, cm string, values map[string]any) {
	t.Helper()
	got := renderPlatform(t, helpers, cm, values)
	if !rvHasAdmin(got) && !rvListHasAdmin(got) {
		t.Fatalf("the attack adds nothing even unchecked: %v", got)
	}
	data, err := renderData(t, helpers, cm, values)
	if err != nil {
		t.Logf("refused: %v", err)
		return
	}
	t.Errorf("a tenant string that adds an admin item/key was accepted: unchecked %v, checked %v", got, data)
}

// rv4Accept: cm with values, nothing injected, is accepted and gives the unchecked render's
// data. A known false refusal (known) is skipped while it stands and fails once accepted. A
// lookup of a platform key by a tenant string is refused by design (data selection, see
// TestLookupsByATenantStringRefused): selects says so, and wants the refusal.
func rv4Accept(t *testing.T, cm string, values map[string]any, known bool, selects ...bool) {
	t.Helper()
	if len(selects) > 0 && selects[0] {
		mustRefuse(t, "", cm, values)
		return
	}
	want := renderPlatform(t, "", cm, values)
	got, err := renderData(t, "", cm, values)
	switch {
	case known && err != nil:
		t.Skipf("known false refusal: %v", err)
	case known:
		t.Fatal("accepted now: make this a regression test")
	case err != nil:
		t.Fatalf("refused: %v (unchecked: %v)", err, want)
	case !reflect.DeepEqual(got, want):
		t.Fatalf("got %v, want the unchecked render's %v", got, want)
	}
}

// rv4List prints $l as a block list, one item a line: a tenant item "\"y\"\n  - admin" is two
// items in A ("y" quoted, so that B's stand-in is not cut short by it) and one in B.
const rv4List = "  list:\n  - {{ $l | join \"\\n  - \" }}\n"

// a equals the template's "metrics"; b injects the item "admin"; c is the item the
// comparison lets A drop and B keep, evening the count.
var rv4ItemValues = map[string]any{"a": "metrics", "b": "\"y\"\n  - admin", "c": "zz"}

// A comparison's bool that no if, with or ternary decides (eq, ne, and any other: hasPrefix,
// contains, regexMatch, deepEqual, kindIs behaved alike through compact before eadebfa),
// turned by and/or into nil, which join, sortAlpha and toStrings drop, into an empty list
// that default replaces, or into a number by int, which slice takes as a bound. A's
// "metrics" equals the template's string and drops c; B's stand-in does not, and keeps it;
// b's injected item evens the count.
func TestReview4ComparisonResultChangesCount(t *testing.T) {
	for name, cm := range map[string]string{
		"join drops nil":      "{{- $l := list .Values.b (or (and (ne .Values.a \"metrics\") .Values.c) nil) }}\n",
		"sortAlpha drops nil": "{{- $l := sortAlpha (list .Values.b (or (and (ne .Values.a \"metrics\") .Values.c) nil)) }}\n",
		"toStrings drops nil": "{{- $l := toStrings (list .Values.b (or (and (ne .Values.a \"metrics\") .Values.c) nil)) }}\n",
		"default of and":      "{{- $l := concat (list .Values.b) (and (ne .Values.a \"metrics\") (list .Values.c) | default list) }}\n",
		"slice int eq":        "{{- $l := slice (list .Values.b .Values.c) 0 (sub 2 (int (eq .Values.a \"metrics\"))) }}\n",
	} {
		t.Run(name, func(t *testing.T) { rv4Accepted(t, "", rvHead+cm+rv4List, rv4ItemValues) })
	}
}

// merge was checked by a count only (it records the paths it found since): B must find as many keys of its sources in the
// destination as A did, in total over every level and source. A's collision (lower of the
// tenant's "Metrics" is the template's "metrics"; B's stand-in, unchanged by lower, restores
// to "Metrics" and finds nothing) is evened by a collision only B has (trunc 2 of any two stand-ins is "qz"), in a nested map the template
// does not print. At the top level A has one key fewer than B, which b's injected key fills.
func TestReview4MergeCountEvenedAcrossLevels(t *testing.T) {
	printList := "{{- $l := keys (omit $m \"n\") | sortAlpha }}\n" + rv4List
	values := map[string]any{"a": "Metrics", "b": "x\n  - admin", "p": "ab", "q": "cd"}
	for name, cm := range map[string]string{
		"merge nested":          "{{- $m := merge (dict \"metrics\" \"1\" \"n\" (dict (trunc 2 .Values.p) \"1\")) (dict (lower .Values.a) \"1\" .Values.b \"1\" \"n\" (dict (trunc 2 .Values.q) \"1\")) }}\n",
		"mergeOverwrite nested": "{{- $m := mergeOverwrite (dict \"metrics\" \"1\" \"n\" (dict (trunc 2 .Values.p) \"1\")) (dict (lower .Values.a) \"1\" .Values.b \"1\" \"n\" (dict (trunc 2 .Values.q) \"1\")) }}\n",
		"merge two sources":     "{{- $m := merge (dict \"metrics\" \"1\") (dict (lower .Values.a) \"1\" .Values.b \"1\" \"n\" (dict (trunc 2 .Values.p) \"1\")) (dict \"n\" (dict (trunc 2 .Values.q) \"1\")) }}\n",
	} {
		t.Run(name, func(t *testing.T) { rv4Accepted(t, "", rvHead+cm+printList, values) })
	}
}

// A lookup of a tenant key in a platform map, the key present. The review found the piped form
// (`K | index M`) and a key after the first (`index M "tcp" K`) refused with a misleading
// message, and unrecorded; every form is now a recorded lookup, and refused as a selection
// of the platform's data, naming the value.
func TestReview4LookupOfATenantKey(t *testing.T) {
	values := map[string]any{"proto": "http"}
	ports := "{{- $p := dict \"http\" \"80\" \"https\" \"443\" }}\n"
	for name, cm := range map[string]string{
		"index piped":        ports + "  port: {{ .Values.proto | index $p | quote }}\n",
		"index 2 keys":       "{{- $p := dict \"tcp\" (dict \"http\" \"80\" \"https\" \"443\") }}\n  port: {{ index $p \"tcp\" .Values.proto | quote }}\n",
		"index 2 keys piped": "{{- $p := dict \"tcp\" (dict \"http\" \"80\" \"https\" \"443\") }}\n  port: {{ .Values.proto | index $p \"tcp\" | quote }}\n",
	} {
		// All three select the platform's entry by the tenant's string: refused by design
		// (the review took them for false refusals).
		t.Run(name, func(t *testing.T) { rv4Accept(t, rvHead+cm, values, false, true) })
	}
}

// A tenant bool made a string equal to a platform key ("true"), nothing injected: refused by
// design, as a tenant string equal to a platform key is (see the file's comment).
func TestReview4TenantBoolEqualToAPlatformKey(t *testing.T) {
	values := map[string]any{"on": true}
	for name, cm := range map[string]string{
		"merge": "{{- $m := merge (dict \"true\" \"x\") (dict (toString .Values.on) \"y\") }}\n{{ toYaml $m | indent 2 }}\n",
		"set":   "{{- $m := dict \"true\" \"x\" }}{{ $_ := set $m (toString .Values.on) \"y\" }}\n{{ toYaml $m | indent 2 }}\n",
		"get":   "  v: {{ get (dict \"true\" \"x\") (toString .Values.on) | quote }}\n",
	} {
		t.Run(name, func(t *testing.T) {
			rv4Accept(t, rvHead+cm, values, false, true)
		})
	}
}

// A parser that keeps the last of two equal keys compares them: fromYaml and fromJson of text
// with a tenant string, which lower makes the template's "k" in A (one key fewer) but not in B
// (lower leaves the stand-in as it is, and it restores to "K", not "k"). A second tenant
// string injects a key into the text, evening the count.
func TestReview4ParserDuplicateKeyEvensInjection(t *testing.T) {
	for name, c := range map[string]struct {
		cm string
		v  map[string]any
	}{
		"fromYaml": {"{{- $m := fromYaml (printf \"%s: 1\\nk: 1\\nz: %s\" (lower .Values.a) .Values.b) }}\n{{ toYaml $m | indent 2 }}\n",
			map[string]any{"a": "K", "b": "\"x\"\nadmin: 1"}},
		"fromJson": {"{{- $m := fromJson (printf \"{\\\"%s\\\": \\\"1\\\", \\\"k\\\": \\\"1\\\", \\\"%s\\\": \\\"1\\\"}\" (lower .Values.a) .Values.b) }}\n{{ toYaml $m | indent 2 }}\n",
			map[string]any{"a": "K", "b": "z\": \"1\", \"admin"}},
	} {
		t.Run(name, func(t *testing.T) { rv4Accepted(t, "", rvHead+c.cm, c.v) })
	}
}

// A tenant choice normalised with lower ("Metrics" → "metrics"), equal to a platform key,
// nothing injected: the review found set, get, pick, omit, hasKey and merge refused. All but
// hasKey are refused by design (see the file's comment).
func TestReview4LoweredTenantKey(t *testing.T) {
	values := map[string]any{"a": "Metrics"}
	flags := "{{- $f := dict \"metrics\" \"off\" \"tracing\" \"off\" }}"
	for name, cm := range map[string]string{
		"set":   flags + "{{ $_ := set $f (lower .Values.a) \"on\" }}\n{{ toYaml $f | indent 2 }}\n",
		"merge": flags + "{{ $f = merge (dict (lower .Values.a) \"on\") $f }}\n{{ toYaml $f | indent 2 }}\n",
		"get":   flags + "\n  v: {{ get $f (lower .Values.a) | quote }}\n",
		"pick":  flags + "\n{{ pick $f (lower .Values.a) | toYaml | indent 2 }}\n",
		"omit":  flags + "\n{{ omit $f (lower .Values.a) | toYaml | indent 2 }}\n",
		"index": flags + "\n  v: {{ index $f (lower .Values.a) | quote }}\n",
	} {
		t.Run(name, func(t *testing.T) {
			rv4Accept(t, rvHead+cm, values, false, true)
		})
	}
}

// slice's bounds were no decision (until's count was; they are since): a bound computed from a tenant string
// (int or atoi of a numeric string, len) is another number in B, whose stand-in reads as 0
// and has another length. "Skip the first N" of a tenant's numeric string: A skips b, B keeps
// it, and c's injected item evens the count. No comparing function is involved.
func TestReview4SliceBoundFromATenantString(t *testing.T) {
	for name, c := range map[string]struct {
		cm string
		v  map[string]any
	}{
		"int offset":  {"{{- $l := slice (list .Values.b .Values.c) (int .Values.skip) }}\n", map[string]any{"skip": "1", "b": "zz", "c": "\"y\"\n  - admin"}},
		"atoi offset": {"{{- $l := slice (list .Values.b .Values.c) (atoi .Values.skip) }}\n", map[string]any{"skip": "1", "b": "zz", "c": "\"y\"\n  - admin"}},
		"len bound":   {"{{- $l := slice (list .Values.b .Values.c) 0 (min 2 (max 1 (sub 8 (len .Values.a)))) }}\n", map[string]any{"a": "metrics", "b": "\"y\"\n  - admin", "c": "zz"}},
	} {
		t.Run(name, func(t *testing.T) { rv4Accepted(t, "", rvHead+c.cm+rv4List, c.v) })
	}
}
