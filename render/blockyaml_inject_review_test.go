package render_test

import (
	"strings"
	"testing"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// TestLongTenantKeyIsNotValidYAML: a tenant map key longer than YAML's 1024-character limit on
// an implicit key makes output yaml/v2 refuses. The block YAML fast path read it (and the
// structure check, parsing A and B with it, saw the same structure), so the render succeeded
// with a document the reference parser calls invalid; it must fail as any value that makes
// the output invalid does, naming the value.
func TestLongTenantKeyIsNotValidYAML(t *testing.T) {
	b := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("a",
		`{{- range $k, $v := .Values.data }}`, `  {{ $k }}: {{ $v | quote }}`, `{{- end }}`)}))
	long := strings.Repeat("k", 1025)
	values := map[string]any{"data": map[string]any{long: "v"}}
	in := input(values)
	in.Tainted = boundary.TaintedStrings(values, tenant)
	out, err := b.RenderGateway(in)
	if err == nil {
		t.Fatalf("RenderGateway = %v, want an error: yaml/v2 refuses a %d-character key", out.Objects, len(long))
	}
	var e *render.Error
	if !asError(err, &e) || !strings.Contains(e.Msg, "not valid YAML once this value is inserted") || !strings.HasPrefix(e.Origin, "GatewayConfig team-a/tenant value data") {
		t.Errorf("error %v, want one saying a tenant value made the output invalid", err)
	}
	// A key within the limit renders.
	values = map[string]any{"data": map[string]any{strings.Repeat("k", 1000): "v"}}
	in = input(values)
	in.Tainted = boundary.TaintedStrings(values, tenant)
	if _, err := b.RenderGateway(in); err != nil {
		t.Errorf("RenderGateway with a 1000-character key: %v", err)
	}
}
