package render_test

import (
	"regexp"
	"strings"
	"testing"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// A third adversarial review (a helper session, 2026-11-27). Its two accepted injections (the
// check's memory and a part equal to a tenant string; a catch-up render that strayed and
// changed .Values) and the tpl idioms are regression tests. The rest are known false refusals
// and messages, older than the session as far as the review saw: skipped while they stand,
// failing once they change.

// rv3Render renders with a compiled blueprint b (shared across calls, so that the check's
// memory is shared), values as the tenant's; returns data of the first object.
func rv3Render(t *testing.T, b *render.Blueprint, values map[string]any, tenantValues bool) (map[string]any, error) {
	t.Helper()
	in := input(values)
	if tenantValues {
		in.Tainted = boundary.TaintedStrings(values, tenant)
	}
	out, err := b.RenderGateway(in)
	if err != nil {
		return nil, err
	}
	if len(out.Objects) == 0 {
		return nil, nil
	}
	d, _ := out.Objects[0].Object["data"].(map[string]any)
	return d, nil
}

var rv3Internal = regexp.MustCompile(`gantry[A-Z]|gantryCounted|qw\d{6}|qz\d|qv\d{6}|QZ\d|Qz\d|900\d\d\d|stand-in`)

// The check's memory keys B's output by B's input and A's decisions. B's split stand-ins also
// depend on whether A's part text equals a tenant string (PartStandIn gives that string's
// placeholder), which neither holds. A first render with distinct parts is remembered; a
// second, of the same shape but where a part equals another tenant value (A's map collapses
// two keys), takes B's remembered output with one key more, which balances an item injected.
func TestReview3MemoryPartEqualsTenantString(t *testing.T) {
	// Variant with a list directly in the output, so the comparison is of parsed list items.
	cm2 := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n    a: b\nitems:\n" +
		"{{- $m := dict }}\n" +
		"{{- range splitList \",\" .Values.hosts }}{{ $_ := set $m . \"1\" }}{{ end }}\n" +
		"{{- $_ := set $m .Values.primary \"1\" }}\n" +
		"{{ keys $m | sortAlpha | toYaml }}\n" +
		"- {{ .Values.extra }}\n" +
		"data:\n  x: \"1\"\n"
	b := mustCompile(t, gatewaySpec(map[string]string{"cm": cm2}))
	first := map[string]any{"hosts": "a,c", "primary": "b", "extra": "x"}
	if d, err := rv3Render(t, b, first, true); err != nil {
		t.Fatalf("first render refused: %v", err)
	} else {
		t.Logf("first: %v", d)
	}
	attack := map[string]any{"hosts": "a,b", "primary": "b", "extra": "x\n- admin"}
	// oracle: without the memory (a fresh compile), refused
	b2 := mustCompile(t, gatewaySpec(map[string]string{"cm": cm2}))
	if _, err := rv3Render(t, b2, attack, true); err == nil {
		t.Logf("fresh compile accepts the attack too")
	} else {
		t.Logf("fresh compile refuses: %v", err)
	}
	out, err := b.RenderGateway(func() *render.Input {
		in := input(attack)
		in.Tainted = boundary.TaintedStrings(attack, tenant)
		return in
	}())
	if err == nil {
		t.Fatalf("accepted with the memory: %v", out.Objects[0].Object["items"])
	}
	t.Logf("refused: %v", err)
}

// A range over a tenant map whose keys are partly kept in B (a word the template spells,
// "http") and partly replaced: A visits "api" before "http", B visited "http" before its
// stand-in for "api", and took A's decisions in A's order: for the other element. Refused
// until B visited a map's keys in A's order (boundary keyOrder, thirteenth session).
func TestReview3MapOrderKeptKeyRefused(t *testing.T) {
	cm := rvHead +
		"{{- range $k, $v := .Values.ports }}\n" +
		"  {{ $k }}: {{ if eq $k \"http\" }}\"web\"{{ else }}{{ $v | quote }}{{ end }}\n" +
		"{{- end }}\n"
	rvMustAccept(t, "", cm, map[string]any{"ports": map[string]any{"api": "9000", "http": "80"}})
}

// A range over a tenant integer (Go 1.22's range over int): B's stand-in number looped 900,007
// times into the budget, and the render was refused. The count is a decision now, as until's
// is (gantryRange); a range over anything else is as it was.
func TestReview3RangeOverTenantInt(t *testing.T) {
	cm := rvHead +
		"{{- range $i := int .Values.replicas }}\n  r{{ $i }}: \"x\"\n{{- end }}\n"
	rvMustAccept(t, "", cm, map[string]any{"replicas": int64(3)})
	// An error in the range's pipeline says what the blueprint wrote.
	_, err := renderData(t, "", rvHead+"{{- range $i := index .Values.l 3 }}{{ end }}\n", map[string]any{"l": []any{"a"}})
	if err == nil || strings.Contains(err.Error(), "gantry") {
		t.Errorf("error %v, want one without Gantry's names", err)
	}
}

// break and continue in a range over a tenant list, with a decision.
func TestReview3BreakContinue(t *testing.T) {
	cm := rvHead +
		"{{- range $i, $h := .Values.hosts }}{{ if eq $h \"skip\" }}{{ continue }}{{ end }}{{ if ge $i 3 }}{{ break }}{{ end }}\n  h{{ $i }}: {{ $h | quote }}\n{{- end }}\n"
	rvMustAccept(t, "", cm, map[string]any{"hosts": []any{"a", "skip", "b", "c", "d"}})
}

// Error messages: an index computed from a tenant number.
func TestReview3ErrorMessageComputedIndex(t *testing.T) {
	cm := rvHead + "  x: {{ index .Values.list (sub (int .Values.i) 1) | quote }}\n"
	_, err := renderData(t, "", cm, map[string]any{"list": []any{"a", "b"}, "i": int64(2)})
	if err != nil && rv3Internal.MatchString(err.Error()) {
		t.Skipf("known: a stand-in changed by arithmetic or title is not masked: %v", err)
	}
	t.Logf("err: %v", err)
}

// Error messages: a template name made from a title-cased tenant value.
func TestReview3ErrorMessageTitleName(t *testing.T) {
	helpers := `{{ define "Gold-h" }}gold{{ end }}`
	cm := rvHead + "  x: {{ include (printf \"%s-h\" (title .Values.tier)) . | quote }}\n"
	_, err := renderData(t, helpers, cm, map[string]any{"tier": "gold"})
	if err != nil && rv3Internal.MatchString(err.Error()) {
		t.Skipf("known: a stand-in changed by arithmetic or title is not masked: %v", err)
	}
	t.Logf("err: %v", err)
}

// A pending template ("a", waiting for .Resources.cm) that B renders only to catch up: B
// departs at a with it cannot take as A did, runs the else branch, and changes .Values there
// (set), which A never did. Nothing compares "a"; "cm" then reads .Values.extra, the tenant's
// injection in A and the platform's own text of the same shape in B.
func TestReview3PendingCatchUpMutatesValues(t *testing.T) {
	tmpls := map[string]string{
		"a": rvHead + "{{- with regexFind \"^go\" .Values.tier }}{{ else }}{{ $_ := set $.Values \"extra\" \"a: \\\"1\\\"\\n  admin: \\\"2\\\"\" }}{{ end }}\n" +
			"  y: {{ (index .Resources.cm 0).status | quote }}\n",
		"cm": rvHead + "  {{ .Values.extra }}\n",
	}
	values := map[string]any{"tier": "gold", "extra": "a: \"1\"\n  admin: \"2\""}
	ds, out, err := rv2Render(t, tmpls, values, false)
	t.Logf("platform: %v %v pending %v", ds, err, out.Pending)
	ds, out, err = rv2Render(t, tmpls, values, true)
	if err == nil {
		t.Fatalf("accepted: %v pending %v", ds, out.Pending)
	}
	t.Logf("refused: %v", err)
}

func TestReview3IdiomsAccepted(t *testing.T) {
	for _, c := range []struct {
		name, helpers, body string
		values              map[string]any
	}{
		{"block", "", "{{- block \"extra\" . }}{{ if .Values.on }}\n  on: \"1\"{{ end }}{{ end }}\n  name: {{ .Values.name | quote }}\n",
			map[string]any{"on": true, "name": "x"}},
		{"tpl defines and uses a template", "",
			"  v: {{ tpl \"{{ define \\\"x\\\" }}{{ if .Values.on }}a{{ else }}b{{ end }}{{ end }}{{ template \\\"x\\\" . }}-{{ .Values.name }}\" . | quote }}\n",
			map[string]any{"on": true, "name": "web"}},
		{"recursion with memo", `{{ define "r" }}{{ if gt (int .n) 0 }}{{ .n }},{{ include "r" (dict "n" (sub (int .n) 1)) }}{{ end }}{{ end }}`,
			"  v: {{ include \"r\" (dict \"n\" 3) | quote }}\n  w: {{ include \"r\" (dict \"n\" 3) | quote }}\n  n: {{ .Values.name | quote }}\n",
			map[string]any{"name": "web"}},
		{"include inside tpl, twice", `{{ define "h" }}{{ if .Values.on }}on{{ else }}off{{ end }}{{ end }}`,
			"  a: {{ include \"h\" . | quote }}\n  b: {{ tpl \"{{ include \\\"h\\\" . }}\" . | quote }}\n  c: {{ include \"h\" . | quote }}\n",
			map[string]any{"on": false}},
		{"range over tenant map with if", "",
			"{{- range $k, $v := .Values.labels }}{{ if $v }}\n  l-{{ $k }}: {{ $v | quote }}{{ end }}{{ end }}\n",
			map[string]any{"labels": map[string]any{"b": "x", "a": "", "c": "y"}}},
		{"break in range over split", "",
			"{{- range $i, $h := splitList \",\" .Values.hosts }}{{ if ge $i 2 }}{{ break }}{{ end }}\n  h{{ $i }}: {{ $h | quote }}{{ end }}\n",
			map[string]any{"hosts": "a,b,c,d"}},
	} {
		t.Run(c.name, func(t *testing.T) { rvMustAccept(t, c.helpers, rvHead+c.body, c.values) })
	}
}

// A tpl text written as a constant in the template reads a .Values field that no other
// template spells: its name is not among the words B keeps, so B's tenant key is a stand-in
// and the tpl text finds no value (refused, "no value").
func TestReview3TplConstantText(t *testing.T) {
	rvMustAccept(t, "", rvHead+"  v: {{ tpl \"{{ .Values.name }}\" . | quote }}\n", map[string]any{"name": "web"})
}

// stillRefused: a known false refusal, skipped while it stands; once accepted, the test fails,
// to be made a regression test.
func stillRefused(t *testing.T, cm string, values map[string]any) {
	t.Helper()
	if _, err := renderData(t, "", cm, values); err != nil {
		t.Skipf("known false refusal: %v", err)
	}
	t.Fatal("accepted now: make this a regression test")
}

// TestTplDefinesNumberedAlike: a tpl text that defines a template parses into several trees,
// whose decisions are numbered in one order in every render (the order of their names): in the
// set's map order, A and B numbered them differently at random and the render was refused about
// now and then (seen once in the suite; with the sort taken out this test failed at its first
// render).
func TestTplDefinesNumberedAlike(t *testing.T) {
	cm := rvHead + "  v: {{ tpl \"{{ define \\\"x\\\" }}{{ if .Values.on }}a{{ else }}b{{ end }}{{ end }}{{ define \\\"y\\\" }}{{ if .Values.on }}c{{ end }}{{ end }}{{ template \\\"x\\\" . }}{{ template \\\"y\\\" . }}-{{ .Values.name }}\" . | quote }}\n"
	values := map[string]any{"on": true, "name": "web"}
	for i := range 50 {
		if _, err := renderData(t, "", cm, values); err != nil {
			t.Fatalf("render %d: %v", i, err)
		}
	}
}
