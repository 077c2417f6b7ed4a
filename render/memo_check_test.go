package render_test

import (
	"testing"

	"gantry.dev/gantry/boundary"
)

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
	b := mustCompile(t, gatewaySpec(map[string]string{"_helpers": helpers, "cm": cm}))
	for proto, want := range map[string]string{"https": "443", "http": "80"} {
		values := map[string]any{"proto": proto}
		in := input(values)
		in.Tainted = boundary.TaintedStrings(values, tenant)
		out, err := b.RenderGateway(in)
		if err != nil {
			t.Errorf("proto %q: %v", proto, err)
			continue
		}
		if got := out.Objects[0].Object["data"].(map[string]any)["tenant"]; got != want {
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
	b := mustCompile(t, gatewaySpec(map[string]string{"_helpers": helpers, "cm": cm}))
	values := map[string]any{"flag": false, "name": "mode: strict"}
	in := input(values)
	in.Tainted = boundary.TaintedStrings(values, tenant)
	out, err := b.RenderGateway(in)
	if err == nil {
		t.Fatalf("a tenant string that adds a field was accepted: data = %v", out.Objects[0].Object["data"])
	}
	t.Logf("refused: %v", err)
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
	b := mustCompile(t, gatewaySpec(map[string]string{"_helpers": helpers, "cm": cm}))
	values := map[string]any{"a": "plain", "name": "mode: strict"}
	in := input(values)
	in.Tainted = boundary.TaintedStrings(values, tenant)
	out, err := b.RenderGateway(in)
	if err == nil {
		t.Fatalf("a tenant string that adds a field was accepted: data = %v", out.Objects[0].Object["data"])
	}
	t.Logf("refused: %v", err)
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
	b := mustCompile(t, gatewaySpec(map[string]string{"_helpers": helpers, "cm": cm}))
	values := map[string]any{"flag": false, "name": "mode: strict"}
	in := input(values)
	in.Tainted = boundary.TaintedStrings(values, tenant)
	out, err := b.RenderGateway(in)
	if err == nil {
		t.Fatalf("a tenant string that adds a field was accepted: data = %v", out.Objects[0].Object["data"])
	}
	t.Logf("refused: %v", err)
}

// TestOrShortCircuitIsADecision: text/template's `or` and `and` stop at the
// first argument that decides them, and that is no recorded decision: a tenant 0 or bool is
// true-ish in B (stand-in) and not in A, so `or .Values.n (include ...)` includes in A only,
// and B's next include of the helper replays the decision A made there.
func TestOrShortCircuitIsADecision(t *testing.T) {
	helpers := `{{ define "f" }}{{ if .s }}{{ .s | default "" }}{{ else }}mode: strict{{ end }}{{ end }}`
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n" +
		"  {{- $_ := or .Values.replicas (include \"f\" (dict)) }}\n" +
		"  {{ include \"f\" (dict \"s\" .Values.name) }}\n"
	b := mustCompile(t, gatewaySpec(map[string]string{"_helpers": helpers, "cm": cm}))
	values := map[string]any{"replicas": int64(0), "name": "mode: strict"}
	in := input(values)
	in.Tainted = boundary.TaintedStrings(values, tenant)
	out, err := b.RenderGateway(in)
	if err == nil {
		t.Fatalf("a tenant string that adds a field was accepted: data = %v", out.Objects[0].Object["data"])
	}
	t.Logf("refused: %v", err)
}

// TestTplBodyBranchShiftsIncludeDecisions: the `if` of a tpl text is not a recorded
// decision (B decides it by its stand-ins), but an include it calls records decisions in the
// included template, by number. A branch of the tpl body that A takes and B does not makes an
// include in A only: B's next include of that helper replays the decision A's tpl-body include
// made, and the tenant's string that adds a field passes.
//
// A known gap, open: tpl texts are parsed as the render runs and their decisions are not
// recorded; docs/security.md says so.
func TestTplBodyBranchShiftsIncludeDecisions(t *testing.T) {
	t.Skip("known gap (docs/security.md): a tpl text's branches are not decisions B replays")
	helpers := `{{ define "f" }}{{ if .s }}{{ .s | default "" }}{{ else }}mode: strict{{ end }}{{ end }}`
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n" +
		"  {{- $_ := tpl \"{{ if eq .Values.mode \\\"x\\\" }}{{ include \\\"f\\\" (dict) }}{{ end }}\" $ }}\n" +
		"  {{ include \"f\" (dict \"s\" .Values.name) }}\n"
	b := mustCompile(t, gatewaySpec(map[string]string{"_helpers": helpers, "cm": cm}))
	values := map[string]any{"mode": "x", "name": "mode: strict"}
	in := input(values)
	in.Tainted = boundary.TaintedStrings(values, tenant)
	out, err := b.RenderGateway(in)
	if err == nil {
		t.Fatalf("a tenant string that adds a field was accepted: data = %v", out.Objects[0].Object["data"])
	}
	t.Logf("refused: %v", err)
}
