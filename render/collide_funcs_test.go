package render_test

import (
	"reflect"
	"strings"
	"testing"
)

// Map and list functions whose result's size depends on whether a tenant string equals another
// string: a key given twice to dict, a key merge finds in both maps, an item uniq or without
// drops, a key omit or pick finds. A tenant string equal to the platform's "metrics" is one
// key (or item) in A and, as a stand-in, one of its own in B; a second tenant string that
// injects a key evens the count. set and unset were the first of the family (review_memo_test).
func TestCollisionsThroughMapAndListFuncs(t *testing.T) {
	printKeys := "{{- range $k, $v := $m }}\n  {{ $k }}: {{ $v | quote }}\n{{- end }}\n"
	printList := "  list:\n  - {{ $l | join \"\\n  - \" }}\n"
	printXList := "  list:\n  - x{{ $l | join \"\\n  - x\" }}\n"
	keyInject := map[string]any{"a": "metrics", "b": "admin: \"true\"\n  zz"}
	itemInject := map[string]any{"a": "metrics", "b": "x\n  - admin"}
	for _, c := range []struct {
		name, cm string
		values   map[string]any
	}{
		{"dict repeated key", "{{- $m := dict \"metrics\" \"1\" .Values.a \"1\" .Values.b \"1\" }}\n" + printKeys, keyInject},
		{"merge", "{{- $m := merge (dict \"metrics\" \"1\") (dict .Values.a \"1\" .Values.b \"1\") }}\n" + printKeys, keyInject},
		{"mergeOverwrite", "{{- $m := mergeOverwrite (dict \"metrics\" \"1\") (dict .Values.a \"1\") (dict .Values.b \"1\") }}\n" + printKeys, keyInject},
		{"mustMerge", "{{- $m := mustMerge (dict .Values.a \"1\" .Values.b \"1\") (dict \"metrics\" \"1\") }}\n" + printKeys, keyInject},
		{"omit", "{{- $m := omit (dict \"metrics\" \"1\" \"zz\" \"1\" .Values.b \"1\") .Values.a }}\n" + printKeys,
			map[string]any{"a": "metrics", "b": "admin: \"true\"\n  yy"}},
		{"uniq", "{{- $l := uniq (list \"metrics\" .Values.a .Values.b) }}\n" + printList, itemInject},
		{"without", "{{- $l := without (list \"metrics\" \"other\" .Values.b) .Values.a }}\n" + printList, itemInject},
		{"keys of merge", "{{- $l := keys (merge (dict \"metrics\" \"1\") (dict .Values.a \"1\" .Values.b \"1\")) | sortAlpha }}\n" + printList, itemInject},
		{"keys of mergeOverwrite", "{{- $l := keys (mergeOverwrite (dict \"metrics\" \"1\") (dict .Values.a \"1\" .Values.b \"1\")) | sortAlpha }}\n" + printList, itemInject},
		{"keys of omit", "{{- $l := keys (omit (dict \"metrics\" \"1\" \"other\" \"1\" .Values.b \"1\") .Values.a) | sortAlpha }}\n" + printList, itemInject},
		{"index then default", "{{- $m := dict \"metrics\" .Values.b }}{{ $l := default (list .Values.c .Values.d) (index $m .Values.a) }}\n" + printList,
			map[string]any{"a": "metrics", "b": "x\n  - admin", "c": "c", "d": "d"}},
		{"dig then default", "{{- $l := dig .Values.a (list .Values.c .Values.d) (dict \"metrics\" .Values.b) }}\n" + printList,
			map[string]any{"a": "metrics", "b": "x\n  - admin", "c": "c", "d": "d"}},
		{"get then default", "{{- $l := get (dict \"metrics\" .Values.b) .Values.a | default (list .Values.c .Values.d) }}\n" + printList,
			map[string]any{"a": "metrics", "b": "x\n  - admin", "c": "c", "d": "d"}},
		{"compact of a derived bool", "{{- $l := compact (list (contains \"qw\" .Values.a | toString | replace \"true\" .Values.c | replace \"false\" \"\") .Values.b) }}\n" + printList,
			map[string]any{"a": "metrics", "b": "x\n  - admin", "c": "c"}},
		{"default of a tenant bool", "{{- $l := concat (list .Values.b) (default (list .Values.c .Values.d) .Values.flag | toStrings) }}\n" + printXList,
			map[string]any{"flag": true, "b": "y\n  - xadmin", "c": "c", "d": "d"}},
		{"coalesce of a tenant bool", "{{- $l := concat (list .Values.b) (coalesce .Values.flag (list .Values.c .Values.d) | toStrings) }}\n" + printXList,
			map[string]any{"flag": true, "b": "y\n  - xadmin", "c": "c", "d": "d"}},
		{"keys of dict", "{{- $l := keys (dict \"metrics\" \"1\" .Values.a \"1\" .Values.b \"1\") | sortAlpha }}\n" + printList, itemInject},
	} {
		t.Run(c.name, func(t *testing.T) {
			refusesCollision(t, rvHead+c.cm, c.values)
		})
	}
}

// A tenant string equal to a platform item, with nothing injected, is a tenant's choice the
// template may act on: accepted, and the output is the unchecked render's. Equal to a platform
// key, where the template sets, merges or omits it, it is refused (TestTenantKeyEqualToAPlatformKeyRefused).
func TestCollisionsWithoutInjectionAccepted(t *testing.T) {
	printKeys := "{{- range $k, $v := $m }}\n  {{ $k }}: {{ $v | quote }}\n{{- end }}\n"
	printList := "  list: {{ $l | toJson }}\n"
	values := map[string]any{"a": "metrics", "b": "tracing", "c": "metrics", "d": "Metrics", "l": []any{"metrics", "tracing"}}
	for _, c := range []struct{ name, cm string }{
		{"dict of two equal tenant keys", "{{- $m := dict .Values.a \"1\" .Values.c \"2\" }}\n" + printKeys},
		{"merge of two tenant maps", "{{- $m := merge (dict .Values.c \"1\") (dict .Values.a \"2\" \"x\" \"3\") }}\n" + printKeys},
		{"uniq", "{{- $l := uniq (list \"metrics\" .Values.a .Values.b) }}\n" + printList},
		{"without", "{{- $l := without (list \"metrics\" \"other\" .Values.b) .Values.a }}\n" + printList},
		{"has", "{{- $l := list (has .Values.a (list \"metrics\")) }}\n" + printList},
		{"sortAlpha", "{{- $l := sortAlpha (list \"m\" .Values.a .Values.b \"z\") }}\n" + printList},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := renderPlatform(t, "", rvHead+c.cm, values)
			got, err := renderData(t, "", rvHead+c.cm, values)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %v, want the unchecked render's %v", got, want)
			}
		})
	}
}

// A tenant string that names a key of a map the tenant did not write selects the platform's
// data (docs/security.md, data selection): get, index, dig, pluck and pick by it are refused,
// the message names the value and shows nothing of the map. A lookup is not a collision: B
// does not follow it to the platform's key, as set and merge follow A's.
func TestLookupsByATenantStringRefused(t *testing.T) {
	values := map[string]any{"a": "admin"}
	secrets := "{{- $s := dict \"admin\" \"hunter2\" \"user\" \"pw\" }}\n"
	for name, body := range map[string]string{
		"get":               "  v: {{ get $s .Values.a | quote }}\n",
		"index":             "  v: {{ index $s .Values.a | quote }}\n",
		"index piped":       "  v: {{ .Values.a | index $s | quote }}\n",
		"index of two keys": "{{- $t := dict \"x\" $s }}\n  v: {{ index $t \"x\" .Values.a | quote }}\n",
		"dig":               "  v: {{ dig .Values.a \"\" $s | quote }}\n",
		"pluck":             "  v: {{ pluck .Values.a $s | first | quote }}\n",
		"pick":              "  v: {{ pick $s .Values.a | values | first | quote }}\n",
		"lowered":           "  v: {{ get $s (lower .Values.a) | quote }}\n",
	} {
		t.Run(name, func(t *testing.T) {
			cm := rvHead + secrets + body
			if got := renderPlatform(t, "", cm, values); got["v"] != "hunter2" {
				t.Fatalf("the lookup selects nothing even unchecked: %v", got)
			}
			err := mustRefuse(t, "", cm, values)
			if strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "value a") {
				t.Errorf("error %v, want one naming the tenant's value and showing no secret", err)
			}
		})
	}
}

// A tenant string equal to a key of the template's or the platform's map, set, merged or
// omitted there: A merges the two, and B, which could follow (its stand-in key restores to
// A's), does not, but departs (boundary tenantPair): following would let a tenant reach a
// platform value under its own key, which a lookup by its string then prints (a review's
// data-selection case, TestReview5SelectsAPlatformEntry). Refused, naming the value.
func TestTenantKeyEqualToAPlatformKeyRefused(t *testing.T) {
	printKeys := "{{- range $k, $v := $m }}\n  {{ $k }}: {{ $v | quote }}\n{{- end }}\n"
	values := map[string]any{"a": "metrics", "b": "tracing", "l": []any{"metrics", "tracing"}}
	for _, c := range []struct{ name, cm string }{
		{"set", "{{- $m := dict \"metrics\" \"0\" }}{{ range .Values.l }}{{ $_ := set $m . \"1\" }}{{ end }}\n" + printKeys},
		{"dict repeated key", "{{- $m := dict \"metrics\" \"0\" .Values.a \"1\" .Values.b \"1\" }}\n" + printKeys},
		{"merge", "{{- $m := merge (dict .Values.a \"1\" .Values.b \"1\") (dict \"metrics\" \"0\") }}\n" + printKeys},
		{"mergeOverwrite", "{{- $m := mergeOverwrite (dict \"metrics\" \"0\") (dict .Values.a \"1\" .Values.b \"1\") }}\n" + printKeys},
		{"omit", "{{- $m := omit (dict \"metrics\" \"1\" \"zz\" \"1\") .Values.a }}\n" + printKeys},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := mustRefuse(t, "", rvHead+c.cm, values)
			if !strings.Contains(err.Error(), "value a") && !strings.Contains(err.Error(), "value l") {
				t.Errorf("error %v, want one naming the tenant's value", err)
			}
		})
	}
}
