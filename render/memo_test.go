package render_test

import (
	"testing"
	"time"

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

// TestIncludeOfADictIsItsOutput: include outputs remembered for a dict argument are those of
// the same argument: values of another type, another value, a values map changed since, and an
// include that changes its argument (whose change the caller sees again on the second call).
func TestIncludeOfADictIsItsOutput(t *testing.T) {
	spec := &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{
		"_helpers": `{{ define "show" }}{{ printf "%T/%v" (.v) (.v) }}{{ end }}` +
			`{{ define "ctx" }}{{ .ctx.Values.a }}-{{ .n }}{{ end }}` +
			`{{ define "who" }}{{ if hasKey . "Values" }}root{{ else }}dict{{ end }}{{ end }}` +
			`{{ define "count" }}{{ $_ := set .m "n" (add1 (get .m "n")) }}{{ get .m "n" }}{{ end }}`,
		"cm": `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  root: "{{ include "who" . }}"
  emptyDict: "{{ include "who" (dict) }}"
  int: "{{ include "show" (dict "v" 63) }}"
  int2: "{{ include "show" (dict "v" 63) }}"
  str: "{{ include "show" (dict "v" "63") }}"
  float: "{{ include "show" (dict "v" 63.0) }}"
  other: "{{ include "show" (dict "v" 64) }}"
  nil: "{{ include "show" (dict "v" nil) }}"
  ctx1: "{{ include "ctx" (dict "ctx" . "n" 1) }}"
  {{- $_ := set .Values "a" "changed" }}
  ctx2: "{{ include "ctx" (dict "ctx" . "n" 1) }}"
  {{- $m := dict "n" 0 }}
  count1: "{{ include "count" (dict "m" $m) }}"
  count2: "{{ include "count" (dict "m" $m) }}"
`,
	}}}
	bp, err := render.Compile("memo", spec)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		out, err := bp.RenderGateway(&render.Input{Values: map[string]any{"a": "one"}, Gateway: map[string]any{}, Namespace: "ns"})
		if err != nil {
			t.Fatal(err)
		}
		data := out.Objects[0].Object["data"].(map[string]any)
		want := map[string]any{"int": "int/63", "int2": "int/63", "str": "string/63", "float": "float64/63", "other": "int/64", "nil": "<nil>/<nil>",
			"ctx1": "one-1", "ctx2": "changed-1", "count1": "1", "count2": "2", "root": "root", "emptyDict": "dict"}
		for k, v := range want {
			if data[k] != v {
				t.Errorf("render %d: data.%s = %v, want %v", i+1, k, data[k], v)
			}
		}
	}
}

// TestMergeOfSharedListsEnds: a merge into a dict that holds lists sharing lists, nested
// thirty deep (a billion paths), neither hangs nor forgets what it must: the walk that looks
// for maps the root reaches stops and takes the change as one that reaches it.
func TestMergeOfSharedListsEnds(t *testing.T) {
	spec := &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{
		"_helpers": `{{ define "x" }}{{ .Values.a }}{{ end }}`,
		"cm": `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  before: "{{ include "x" . }}"
  {{- $l := list .Values }}
  {{- range until 30 }}{{ $l = list $l $l }}{{ end }}
  {{- $_ := merge (dict "l" $l) (dict "m" 1) }}
  {{- $_ := set .Values "a" "two" }}
  after: "{{ include "x" . }}"
`,
	}}}
	bp, err := render.Compile("memo", spec)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		out, err := bp.RenderGateway(&render.Input{Values: map[string]any{"a": "one"}, Gateway: map[string]any{}, Namespace: "ns"})
		if err != nil {
			t.Error(err)
			return
		}
		data := out.Objects[0].Object["data"].(map[string]any)
		if data["before"] != "one" || data["after"] != "two" {
			t.Errorf("data = %v, want before one, after two", data)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second): // a walk of every path takes seconds more
		t.Fatal("the render did not end in 5s")
	}
}
