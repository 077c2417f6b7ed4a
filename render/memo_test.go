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

// TestIncludeSeesValuesChangedThroughAnAlias: a change made through a map the template built
// itself still makes the next include render afresh when that map reaches the values: one
// that holds a values map (set, mergeOverwrite into its nested map), one later put into the
// values, and a values map that holds itself. A change of a map that reaches no values keeps
// the remembered outputs, which must still be right.
func TestIncludeSeesValuesChangedThroughAnAlias(t *testing.T) {
	spec := &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{
		"_helpers": `{{ define "x" }}{{ .Values.a.b }}{{ end }}{{ define "n" }}{{ if hasKey .Values "n" }}{{ get .Values.n "k" }}{{ else }}none{{ end }}{{ end }}{{ define "z" }}{{ get .Values.a "z" }}{{ end }}`,
		"cm": `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  before: "{{ include "x" . }}"
  {{- $own := dict "o" "own" }}
  {{- $_ := merge $own (dict "p" "q") }}
  {{- $_ := set $own "r" "s" }}
  afterOwn: "{{ include "x" . }}"
  {{- $d := dict "r" .Values.a }}
  {{- $_ := set (get $d "r") "b" "viaSet" }}
  afterSet: "{{ include "x" . }}"
  {{- $_ := mergeOverwrite $d (dict "r" (dict "b" "viaMerge")) }}
  afterMerge: "{{ include "x" . }}"
  nBefore: "{{ include "n" . }}"
  {{- $fresh := dict }}
  {{- $_ := set .Values "n" $fresh }}
  nEmpty: "{{ include "n" . }}"
  {{- $_ := set $fresh "k" "later" }}
  nLater: "{{ include "n" . }}"
  zBefore: "{{ include "z" . }}"
  {{- $_ := merge (dict) .Values (dict "a" (dict "z" "viaSecondSource")) }}
  zAfter: "{{ include "z" . }}"
  zDirect: "{{ get .Values.a "z" }}"
  {{- $_ := set .Values "self" .Values }}
  {{- $_ := set .Values.self.a "b" "viaCycle" }}
  afterCycle: "{{ include "x" . }}"
`,
	}}}
	bp, err := render.Compile("memo", spec)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		out, err := bp.RenderGateway(&render.Input{Values: map[string]any{"a": map[string]any{"b": "one"}}, Gateway: map[string]any{}, Namespace: "ns"})
		if err != nil {
			t.Fatal(err)
		}
		data := out.Objects[0].Object["data"].(map[string]any)
		want := map[string]any{"before": "one", "afterOwn": "one", "afterSet": "viaSet", "afterMerge": "viaMerge",
			"nBefore": "none", "nEmpty": "", "nLater": "later", "afterCycle": "viaCycle", "zBefore": ""}
		for k, v := range want {
			if data[k] != v {
				t.Errorf("render %d: data.%s = %v, want %v", i+1, k, data[k], v)
			}
		}
		// A merge of several sources writes into maps of the first that it put into the
		// destination (sprig's mergo does): the include must see what a direct read sees.
		if data["zAfter"] != data["zDirect"] {
			t.Errorf("render %d: include after a merge of two sources = %q, a direct read %q", i+1, data["zAfter"], data["zDirect"])
		}
	}
}
