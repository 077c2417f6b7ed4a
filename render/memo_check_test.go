package render_test

import (
	"testing"

	"gantry.dev/gantry/boundary"
)

// The structure check's render B replays the decisions A made, in A's order, and so must
// remember the same include outputs as A at the same points. B replaces tenant values with
// stand-ins: a memo keyed by a value (a dict entry) remembers, in A, an include of a tenant
// value that equals a platform one, which B, seeing the stand-in, renders. These two tests
// are an adversarial review's (2026-11-27), in the dict form the memo had before it.

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
