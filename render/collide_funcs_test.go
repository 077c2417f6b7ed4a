package render_test

import (
	"reflect"
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
		{"keys of dict", "{{- $l := keys (dict \"metrics\" \"1\" .Values.a \"1\" .Values.b \"1\") | sortAlpha }}\n" + printList, itemInject},
	} {
		t.Run(c.name, func(t *testing.T) {
			refusesCollision(t, rvHead+c.cm, c.values)
		})
	}
}

// A tenant string equal to a platform key or item, with nothing injected, is a tenant's
// choice the template may act on: accepted, and the output is the unchecked render's.
func TestCollisionsWithoutInjectionAccepted(t *testing.T) {
	printKeys := "{{- range $k, $v := $m }}\n  {{ $k }}: {{ $v | quote }}\n{{- end }}\n"
	printList := "  list: {{ $l | toJson }}\n"
	values := map[string]any{"a": "metrics", "b": "tracing", "l": []any{"metrics", "tracing"}}
	for _, c := range []struct{ name, cm string }{
		{"set", "{{- $m := dict \"metrics\" \"0\" }}{{ range .Values.l }}{{ $_ := set $m . \"1\" }}{{ end }}\n" + printKeys},
		{"dict repeated key", "{{- $m := dict \"metrics\" \"0\" .Values.a \"1\" .Values.b \"1\" }}\n" + printKeys},
		{"merge", "{{- $m := merge (dict .Values.a \"1\" .Values.b \"1\") (dict \"metrics\" \"0\") }}\n" + printKeys},
		{"mergeOverwrite", "{{- $m := mergeOverwrite (dict \"metrics\" \"0\") (dict .Values.a \"1\" .Values.b \"1\") }}\n" + printKeys},
		{"omit", "{{- $m := omit (dict \"metrics\" \"1\" \"zz\" \"1\") .Values.a }}\n" + printKeys},
		{"pick", "{{- $m := pick (dict \"metrics\" \"1\" \"zz\" \"1\") .Values.a }}\n" + printKeys},
		{"get", "{{- $m := dict \"port\" (get (dict \"metrics\" \"9090\") .Values.a) }}\n" + printKeys},
		{"uniq", "{{- $l := uniq (list \"metrics\" .Values.a .Values.b) }}\n" + printList},
		{"without", "{{- $l := without (list \"metrics\" \"other\" .Values.b) .Values.a }}\n" + printList},
		{"has", "{{- $l := list (has .Values.a (list \"metrics\")) }}\n" + printList},
		{"index", "{{- $m := dict \"port\" (index (dict \"metrics\" \"9090\") .Values.a) }}\n" + printKeys},
		{"dig", "{{- $m := dict \"port\" (dig .Values.a \"0\" (dict \"metrics\" \"9090\")) }}\n" + printKeys},
		{"pluck", "{{- $l := pluck .Values.a (dict \"metrics\" \"9090\") (dict \"x\" \"1\") }}\n" + printList},
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
