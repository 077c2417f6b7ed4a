package render_test

import (
	"strings"
	"testing"
)

// Adversarial review 7 (a helper session, 2026-11-27, thirteenth session) of 9aafb69. Each
// test failed when found. The attacks (a lookup by a key holding a stand-in that names another
// entry than A's) were accepted at the session's start too; the refusals (a merged map's keys
// sorted or ranged) were new at 9aafb69. Fixed since: B sorts keys, sortAlpha and a map's
// range by its text with stand-ins put back, so its items come in A's order, and a key
// holding a stand-in is not taken where the map has another that is A's.
const rv7Inject = "\"y\"\n  - admin"

// sameKeyAs: a key holding a stand-in is taken without comparing with A's key. A text
// function of two tenant strings (trimPrefix, replace) computes another key in B than in A:
// A's prefix is cut, B's stand-in prefix is not found, so B's key is b's whole stand-in.
func TestReview7AddThroughStandInKeyOfAnotherEntry(t *testing.T) {
	for name, c := range map[string]struct {
		cm string
		v  map[string]any
	}{
		"trimPrefix": {"{{- $m := dict .Values.b (list .Values.c .Values.d) .Values.c (list .Values.c) }}{{ $l := concat (list .Values.i) (index $m (trimPrefix .Values.p .Values.b)) }}\n" + rv4List,
			map[string]any{"p": "x", "b": "xc", "c": "c", "d": "d", "i": rv7Inject}},
		"trimPrefix get": {"{{- $m := dict .Values.b (list .Values.c .Values.d) .Values.c (list .Values.c) }}{{ $l := concat (list .Values.i) (get $m (trimPrefix .Values.p .Values.b)) }}\n" + rv4List,
			map[string]any{"p": "x", "b": "xc", "c": "c", "d": "d", "i": rv7Inject}},
		"replace": {"{{- $m := dict .Values.b (list .Values.c) .Values.s (list .Values.c .Values.d) }}{{ $l := concat (list .Values.i) (index $m (replace .Values.o \"\" .Values.s)) }}\n" + rv4List,
			map[string]any{"o": "x", "b": "b", "s": "xb", "c": "c", "d": "d", "i": rv7Inject}},
	} {
		t.Run(name, func(t *testing.T) { rv4Accepted(t, "", rvHead+c.cm, c.v) })
	}
}

// The same with a platform map that holds a tenant-named entry beside the platform's: A's
// key is "admin", B's the tenant's own stand-in key.
func TestReview7SelectsThroughStandInKey(t *testing.T) {
	cm := rvHead + "{{- $s := dict \"admin\" \"hunter2\" .Values.user \"changeme\" }}\n  v: {{ printf \"%s=%s\" .Values.user (index $s (trimPrefix .Values.ns .Values.user)) | quote }}\n"
	values := map[string]any{"ns": "x", "user": "xadmin"}
	got := renderPlatform(t, "", cm, values)
	if v, _ := got["v"].(string); !strings.Contains(v, "hunter2") {
		t.Fatalf("selects nothing even unchecked: %v", got)
	}
	mustRefuse(t, "", cm, values)
}

// Refused since 9aafb69 (accepted at its parent): a tenant map merged over defaults, ranged.
// The tenant's "APP_MODE" sorts before "LOG_LEVEL", its stand-in after: keyOrder departs.
func TestReview7RefusedRangeOverMergedEnv(t *testing.T) {
	cm := rvHead + "{{- range $k, $v := merge .Values.env (dict \"LOG_LEVEL\" \"info\") }}\n  {{ $k }}: {{ $v | quote }}\n{{- end }}\n"
	values := map[string]any{"env": map[string]any{"APP_MODE": "prod"}}
	if _, err := renderData(t, "", cm, values); err != nil {
		t.Errorf("refused: %v", err)
	}
}

// Refused since 9aafb69 (accepted at its parent): keys of a tenant map merged over defaults,
// sorted, printed with index. keys is in random order in A and in B; A's permutation applied
// to B's own order is not B's sorted order, and B looks up "LOG_LEVEL" where A looked up the
// tenant's key: sameKeyAs departs.
func TestReview7RefusedSortedKeys(t *testing.T) {
	cm := rvHead + "{{- $m := merge .Values.env (dict \"LOG_LEVEL\" \"info\") }}{{- range keys $m | sortAlpha }}\n  {{ . }}: {{ index $m . | quote }}\n{{- end }}\n"
	values := map[string]any{"env": map[string]any{"APP_MODE": "prod"}}
	if _, err := renderData(t, "", cm, values); err != nil {
		t.Errorf("refused: %v", err)
	}
}

// Since 9aafb69 the verdict varies from run to run (about one in five refused here; always
// accepted at its parent): `keys` returns the map's keys in Go's random order, independently in
// A and B, and a lookup by a template key where A looked up a tenant key departs (sameKeyAs).
func TestReview7NondeterministicVerdictRangeKeys(t *testing.T) {
	cm := rvHead + "{{- $m := merge .Values.env (dict \"LOG_LEVEL\" \"info\") }}{{- range keys $m }}\n  {{ . }}: {{ index $m . | quote }}\n{{- end }}\n"
	values := map[string]any{"env": map[string]any{"APP_MODE": "prod"}}
	refused := 0
	var last error
	for range 40 {
		if _, err := renderData(t, "", cm, values); err != nil {
			refused, last = refused+1, err
		}
	}
	if refused > 0 {
		t.Errorf("refused %d of 40 identical renders: %v", refused, last)
	}
}
