package render_test

import (
	"reflect"
	"strings"
	"testing"

	"gantry.dev/gantry/boundary"
)

// renderData renders cm (and helpers) with values as the tenant's: the ConfigMap's data, or the refusal.
func renderData(t *testing.T, helpers, cm string, values map[string]any) (map[string]any, error) {
	t.Helper()
	tmpls := map[string]string{"cm": cm}
	if helpers != "" {
		tmpls["_helpers"] = helpers
	}
	b := mustCompile(t, gatewaySpec(tmpls))
	in := input(values)
	in.Tainted = boundary.TaintedStrings(values, tenant)
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

// renderPlatform renders cm (and helpers) with values as the platform's, unchecked: what the
// templates make of them.
func renderPlatform(t *testing.T, helpers, cm string, values map[string]any) map[string]any {
	t.Helper()
	d, err := renderPlatformErr(t, helpers, cm, values)
	if err != nil {
		t.Fatalf("as the platform's values: %v", err)
	}
	return d
}

// renderPlatformErr is renderPlatform with the error returned.
func renderPlatformErr(t *testing.T, helpers, cm string, values map[string]any) (map[string]any, error) {
	t.Helper()
	tmpls := map[string]string{"cm": cm}
	if helpers != "" {
		tmpls["_helpers"] = helpers
	}
	out, err := mustCompile(t, gatewaySpec(tmpls)).RenderGateway(input(values))
	if err != nil {
		return nil, err
	}
	if len(out.Objects) == 0 {
		return nil, nil
	}
	d, _ := out.Objects[0].Object["data"].(map[string]any)
	return d, nil
}

// mustRefuse renders cm as renderData does and fails the test if the check accepted it: a
// tenant string that adds a field. It returns the refusal.
func mustRefuse(t *testing.T, helpers, cm string, values map[string]any) error {
	t.Helper()
	data, err := renderData(t, helpers, cm, values)
	if err == nil {
		t.Fatalf("a tenant string that adds a field was accepted: data = %v", data)
	}
	t.Logf("refused: %v", err)
	return err
}

// The structure check's render B replays the decisions A made, in A's order, and so must
// remember the same include outputs as A at the same points. B replaces tenant values with
// stand-ins: a memo keyed by a value (a dict entry) remembers, in A, an include of a tenant
// value that equals a platform one, which B, seeing the stand-in, renders. These two tests
// are an adversarial review's (2026-11-27), in the dict form the memo had before it; the
// next two a second review's, after a first fix that kept the root and the maps it reaches
// as keys.

// TestMemoOfATenantValueEqualToAPlatformOne: branching on a tenant value is allowed; with the
// tenant's value equal to the platform's constant, the check must still pass it.
func TestMemoOfATenantValueEqualToAPlatformOne(t *testing.T) {
	helpers := `{{ define "port" }}{{ if eq .p "http" }}80{{ else }}443{{ end }}{{ end }}`
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n" +
		"  default: \"{{ include \"port\" (dict \"p\" \"http\") }}\"\n" +
		"  tenant: \"{{ include \"port\" (dict \"p\" .Values.proto) }}\"\n"
	for proto, want := range map[string]string{"https": "443", "http": "80"} {
		data, err := renderData(t, helpers, cm, map[string]any{"proto": proto})
		if err != nil {
			t.Errorf("proto %q: %v", proto, err)
			continue
		}
		if got := data["tenant"]; got != want {
			t.Errorf("proto %q: data.tenant = %v, want %v", proto, got, want)
		}
	}
}

// TestMemoDoesNotHideAnInjection: a helper that prints its argument unquoted when it is
// true-ish (the blueprint's mistake the check exists to catch). B sees the stand-in for the
// tenant's false (true) and would remember the include A rendered; its next include would then
// replay A's previous decision and print the platform's constant, which the tenant's string
// spells exactly. The tenant's string adds a field: it must be refused.
func TestMemoDoesNotHideAnInjection(t *testing.T) {
	helpers := `{{ define "f" }}{{ if .v }}{{ .v }}{{ else }}mode: strict{{ end }}{{ end }}`
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n" +
		"  {{- $_ := include \"f\" (dict \"v\" true) }}\n" +
		"  {{- if eq (include \"f\" (dict \"v\" .Values.flag)) \"mode: strict\" }}\n" +
		"  strict: \"yes\"\n" +
		"  {{- end }}\n" +
		"  {{ include \"f\" (dict \"v\" .Values.name) }}\n"
	mustRefuse(t, helpers, cm, map[string]any{"flag": false, "name": "mode: strict"})
}

// TestMemoKeyOfATenantDictKey: a memo key made of a dict's keys. A dict whose
// key is a tenant string equal to a platform key hits the memo in A and misses in B (which
// sees the stand-in), so B's decisions fall out of step and the injection is passed.
func TestMemoKeyOfATenantDictKey(t *testing.T) {
	helpers := `{{ define "f" }}{{ $k := keys . | first }}{{ if eq $k "plain" }}mode: strict{{ else }}{{ $k }}{{ end }}{{ end }}`
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n" +
		"  {{- $_ := include \"f\" (dict \"plain\" $) }}\n" + // A renders: 1
		"  {{- $_ := include \"f\" (dict .Values.a $) }}\n" + // A: memo hit (a == "plain"); B renders
		"  {{ include \"f\" (dict .Values.name $) }}\n" + // A: 0, prints the tenant's string
		"  {{- $_ := include \"f\" (dict \"plain\" .Values) }}\n" // A renders: 1
	mustRefuse(t, helpers, cm, map[string]any{"a": "plain", "name": "mode: strict"})
}

// TestMemoKeyOfAMapATenantValueChose: a memo key may hold the root or a map it reaches,
// by identity, and those are the same objects in A and B; but which object reaches the
// include can be the tenant's choice outside any `if` (or, and, default, coalesce, index by a
// tenant key). A tenant false picks the root in A (`or .Values.flag $`), so the include is
// the one A remembered; B's stand-in (true) picks the bool, which is not remembered: B renders
// it and its decisions fall out of step.
func TestMemoKeyOfAMapATenantValueChose(t *testing.T) {
	helpers := `{{ define "f" }}{{ if .s }}{{ .s | default "" }}{{ else }}mode: strict{{ end }}{{ end }}`
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n" +
		"  {{- $_ := include \"f\" (dict \"m\" $) }}\n" + // A renders: 0
		"  {{- $_ := include \"f\" (dict \"m\" (or .Values.flag $)) }}\n" + // A: memo hit; B renders
		"  {{ include \"f\" (dict \"s\" .Values.name) }}\n" + // A: 1, prints the tenant's string
		"  {{- $_ := include \"f\" (dict \"m\" .Values) }}\n" // A renders: 0
	mustRefuse(t, helpers, cm, map[string]any{"flag": false, "name": "mode: strict"})
}

// TestBOutOfStep: the ways B's decisions fell out of step with A's, found by two adversarial
// reviews on 2026-11-27 beside the memo's: control flow that B decided by its own stand-ins
// while the helper it then included replayed A's decisions by number. In each, a tenant string
// that adds a field ("mode: strict") passed the check. B now refuses as soon as its decisions
// depart from A's record (boundary.Decider.Departed), whatever made them depart.
func TestBOutOfStep(t *testing.T) {
	helpers := `{{ define "f" }}{{ if .s }}{{ .s | default "" }}{{ else }}mode: strict{{ end }}{{ end }}`
	last := "  {{ include \"f\" (dict \"s\" .Values.name) }}\n" // A: prints the tenant's string
	for _, c := range []struct {
		name, line string
		values     map[string]any
	}{
		// A tpl text's branches: numbered like the blueprint's since 2026-11-27 (B takes A's), and
		// refused as a change of structure; before, B decided them for itself and departed.
		{"tpl body", "  {{- $_ := tpl \"{{ if eq .Values.mode \\\"x\\\" }}{{ include \\\"f\\\" (dict) }}{{ end }}\" $ }}\n",
			map[string]any{"mode": "x"}},
		// or and and stop at the first operand that decides them, unseen by the check: the
		// tenant's 0 is false in A, its stand-in true in B.
		{"or stops", "  {{- $_ := or .Values.replicas (include \"f\" (dict)) }}\n", map[string]any{"replicas": int64(0)}},
		{"and stops", "  {{- $_ := and (regexFind \"^mode\" .Values.name) (include \"f\" (dict)) }}\n", nil},
		// with: a value B cannot make true (empty, not a bool) lets B decide for itself.
		{"with", "  {{- with regexFind \"^mode\" .Values.name }}{{ $_ := include \"f\" (dict) }}{{ end }}\n", nil},
		// range over what a tenant string chose: not a decision.
		{"range", "  {{- range (index (dict \"gold\" (list 1)) .Values.tier) }}{{ $_ := include \"f\" (dict) }}{{ end }}\n",
			map[string]any{"tier": "gold"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n" + c.line + last
			values := map[string]any{"name": "mode: strict"}
			for k, v := range c.values {
				values[k] = v
			}
			err := mustRefuse(t, helpers, cm, values)
			// The refusal names the value that sent B another way (the check's culprit search
			// follows a departure as it follows a change of structure).
			if !strings.Contains(err.Error(), "tenant value") {
				t.Errorf("the refusal names no tenant value: %v", err)
			}
		})
	}
}

// TestBOutOfStepBalanced: B skips one include A made and makes one A skipped, of the same
// helper: B makes as many decisions as A, in A's order, but the printed include would replay
// the decision of another call site, printing the platform's "mode: strict" where A printed
// the tenant's string. Accepted until include call sites were numbered (a review's cases,
// 2026-11-27): each call site is now a decision of its own.
func TestBOutOfStepBalanced(t *testing.T) {
	helpers := `{{ define "f" }}{{ if .s }}{{ .s | default "" }}{{ else }}mode: strict{{ end }}{{ end }}`
	for _, c := range []struct {
		name, before, after string
		values              map[string]any
	}{
		// A: or evaluates the include (0 is false), B: stand-in true, skips. Later, or on
		// regexFind: A "mode" stops it, B's stand-in gives "" and evaluates the include.
		{"or then or",
			"  {{- $_ := or .Values.replicas (include \"f\" (dict)) }}\n",
			"  {{- $_ := or (regexFind \"^mode\" .Values.name) (include \"f\" (dict)) }}\n",
			map[string]any{"replicas": int64(0)}},
		// A tpl text's branches: A includes in the first text, B in the second.
		{"tpl then tpl",
			"  {{- $_ := tpl \"{{ if eq .Values.mode \\\"x\\\" }}{{ include \\\"f\\\" (dict) }}{{ end }}\" $ }}\n",
			"  {{- $_ := tpl \"{{ if ne .Values.mode \\\"x\\\" }}{{ include \\\"f\\\" (dict) }}{{ end }}\" $ }}\n",
			map[string]any{"mode": "x"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n" + c.before +
				"  {{ include \"f\" (dict \"s\" .Values.name) }}\n" + c.after
			values := map[string]any{"name": "mode: strict"}
			for k, v := range c.values {
				values[k] = v
			}
			if err := mustRefuse(t, helpers, cm, values); !strings.Contains(err.Error(), "tenant value name") {
				t.Errorf("the refusal does not name the value that adds the field: %v", err)
			}
		})
	}
}

// TestLoopsOverTenantValues: common idioms over tenant values with a decision inside a loop.
// The first four loop over a list split from a tenant string: they were refused from 05992d2
// (B split its stand-in into one part where A split two, and departed from A's decisions)
// until the splitting functions cut what B's stand-ins stand for (boundary countedSplit). The
// oracle is the render of the same values as the platform's, which no check looks at: the
// tenant's render must give the same data.
func TestLoopsOverTenantValues(t *testing.T) {
	cmHead := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n"
	for _, c := range []struct {
		name, helpers, body string
		values              map[string]any
	}{
		{"splitList with if", "",
			"  hosts: |\n{{- range splitList \",\" .Values.hosts }}\n{{- if . }}\n    {{ . }}\n{{- end }}\n{{- end }}\n",
			map[string]any{"hosts": "a.example.com,b.example.com"}},
		{"joined in a quoted string", "",
			"  hosts: \"{{- range $i, $h := splitList \",\" .Values.hosts }}{{ if $i }},{{ end }}{{ $h }}{{ end }}\"\n",
			map[string]any{"hosts": "a.example.com,b.example.com"}},
		{"include per item in a block scalar", `{{ define "h" }}{{ if hasPrefix "*." . }}wild {{ . }}{{ else }}exact {{ . }}{{ end }}{{ end }}`,
			"  hosts: |\n{{- range splitList \",\" .Values.hosts }}\n    {{ include \"h\" . }}\n{{- end }}\n",
			map[string]any{"hosts": "*.a.example.com,b.example.com"}},
		{"ternary per item in a quoted string", "",
			"  v: {{ range $i, $h := splitList \",\" .Values.hosts }}{{ ternary \"\" \",\" (eq $i 0) }}{{ $h }}{{ end }}\n",
			map[string]any{"hosts": "a,b"}},
		{"sorted and unique parts as a list", "",
			"  hosts: |\n{{- range splitList \",\" .Values.hosts | sortAlpha | uniq }}\n    - {{ . | quote }}\n{{- end }}\n",
			map[string]any{"hosts": "z.example.com,a.example.com,z.example.com"}},
		{"a key per part, split twice", "",
			"{{- range splitList \";\" .Values.routes }}\n{{- $kv := splitList \"=\" . }}\n  {{ first $kv | quote }}: {{ last $kv | quote }}\n{{- end }}\n",
			map[string]any{"routes": "a=/x;b=/y"}},
		{"range over list with if", "",
			"{{- range $i, $h := .Values.hosts }}\n{{- if hasPrefix \"*.\" $h }}\n  wild{{ $i }}: {{ $h | quote }}\n{{- else }}\n  host{{ $i }}: {{ $h | quote }}\n{{- end }}\n{{- end }}\n",
			map[string]any{"hosts": []any{"*.a.example.com", "b.example.com"}}},
		{"until on tenant number with if", "",
			"{{- range $i := until (int .Values.n) }}\n{{- if eq $i 0 }}\n  first: \"y\"\n{{- else }}\n  n{{ $i }}: \"y\"\n{{- end }}\n{{- end }}\n",
			map[string]any{"n": int64(3)}},
		{"with over splitList first", "",
			"{{- with splitList \":\" .Values.image | last }}\n  tag: {{ . | quote }}\n{{- end }}\n",
			map[string]any{"image": "nginx:1.25"}},
		{"keys of tenant map with if", "",
			"{{- range $k, $v := .Values.labels }}\n{{- if $v }}\n  {{ $k | quote }}: {{ $v | quote }}\n{{- end }}\n{{- end }}\n",
			map[string]any{"labels": map[string]any{"a": "1", "b": "2"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := renderData(t, c.helpers, cmHead+c.body, c.values)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			want := renderPlatform(t, c.helpers, cmHead+c.body, c.values)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("data = %v, want the platform render's %v", got, want)
			}
		})
	}
}
