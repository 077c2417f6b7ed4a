package render_test

import (
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/render"
)

// TestIncludeSeesChangedValues: include outputs are remembered within a render, but a template
// that changes values in place (set, unset, merge) makes the next include render afresh.
func TestIncludeSeesChangedValues(t *testing.T) {
	spec := &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{
		"_helpers": `{{ define "x" }}{{ .Values.x }}{{ end }}`,
		"cm": `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  before: "{{ include "x" . }}"
  {{- $_ := set .Values "x" "two" }}
  afterSet: "{{ include "x" . }}"
  {{- $_ := unset .Values "x" }}
  {{- $_ := merge .Values (dict "x" "three") }}
  afterMerge: "{{ include "x" . }}"
  again: "{{ include "x" . }}"
`,
	}}}
	bp, err := render.Compile("memo", spec)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // the second render reuses the pooled execution: nothing may carry over
		out, err := bp.RenderGateway(&render.Input{Values: map[string]any{"x": "one"}, Gateway: map[string]any{}, Namespace: "ns"})
		if err != nil {
			t.Fatal(err)
		}
		data := out.Objects[0].Object["data"].(map[string]any)
		want := map[string]any{"before": "one", "afterSet": "two", "afterMerge": "three", "again": "three"}
		for k, v := range want {
			if data[k] != v {
				t.Errorf("render %d: data.%s = %v, want %v", i+1, k, data[k], v)
			}
		}
	}
}
