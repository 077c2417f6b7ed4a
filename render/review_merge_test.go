package render

import (
	"testing"

	"gantry.dev/gantry/boundary"
)

// TestMergeKeyIsNotInert: "<<" is an inert string (no indicator inert() knows), but in key
// position it is YAML 1.1's merge key: the map the template put under the tenant's key is
// merged into its parent. B's text with "<<" put back is A's text, so the cheap comparison
// passes without parsing; A's spec has the template's nested keys (hostNetwork) at its own
// level, where B has one key holding a map.
func TestMergeKeyIsNotInert(t *testing.T) {
	boundary.SetMemory(0)
	defer boundary.SetMemory(boundary.DefaultMemory)
	b := configMapBlueprint(t, "  k: v\nspec:\n  replicas: 1\n{{- range $name, $l := .Values.listeners }}\n  {{ $name }}:\n    hostNetwork: true\n    port: {{ $l.port }}\n{{- end }}\n")
	out, err := b.RenderGateway(tenantInput("web", map[string]any{"listeners": map[string]any{"<<": map[string]any{"port": 80}}}))
	if err == nil {
		t.Errorf("a tenant key merged the template's map into its parent: spec %v", out.Objects[0].Object["spec"])
	}
}
