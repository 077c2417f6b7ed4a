package render_test

import (
	"reflect"
	"strings"
	"testing"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// podTemplate is a Deployment template whose pod spec holds the given lines, indented under it.
func podTemplate(lines ...string) string {
	var b strings.Builder
	b.WriteString("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n")
	for _, l := range lines {
		b.WriteString("      " + l + "\n")
	}
	return b.String()
}

// hostNetwork is the second half of issue 19's attack: it closes a quoted scalar the first
// value opened, then writes keys of the pod spec.
const hostNetwork = "'\n      hostNetwork: true\n      containers:\n      - name: proxy\n        image: evil"

// TestTemplateTextComesOutAsWritten: issue 19's attacks on exact identity. One tenant value
// opens a quoted scalar that swallows the template's next lines, another closes it and writes
// keys of its own, so that the output has as many keys as the template's, but not its keys: a
// comparison of shapes let each through. Each must fail the render naming a tenant value; the
// same template with plain values renders what the template wrote.
func TestTemplateTextComesOutAsWritten(t *testing.T) {
	podSpec := []string{
		"serviceAccountName: {{ .Values.sa }}",
		"automountServiceAccountToken: false",
		"containers:",
		"- name: app",
		"  image: {{ .Values.image }}",
	}
	tests := []struct {
		name     string
		template string
		values   map[string]any
	}{
		{"plain", podTemplate(podSpec...), map[string]any{"sa": "'x", "image": hostNetwork}},
		{"hand-written double quotes", podTemplate(
			`serviceAccountName: "{{ .Values.sa }}"`,
			"automountServiceAccountToken: false",
			"containers:",
			"- name: app",
			`  image: "{{ .Values.image }}"`,
		), map[string]any{"sa": `x\`, "image": "\n      hostNetwork: true\n      containers:\n      - name: proxy\n        image: \"evil"}},
		{"squote", podTemplate(
			"serviceAccountName: {{ .Values.sa | squote }}",
			"automountServiceAccountToken: false",
			"containers:",
			"- name: app",
			"  image: {{ .Values.image | squote }}",
		), map[string]any{"sa": "x'' '", "image": "\n      hostNetwork: true\n      containers:\n      - name: proxy\n        image: ''evil"}},
		{"after replace", podTemplate(
			`serviceAccountName: {{ .Values.sa | replace "_" "-" }}`,
			"automountServiceAccountToken: false",
			"containers:",
			"- name: app",
			`  image: {{ .Values.image | replace "_" "-" }}`,
		), map[string]any{"sa": "'x_y", "image": hostNetwork}},
		{"after lower", podTemplate(
			"serviceAccountName: {{ .Values.sa | lower }}",
			"automountServiceAccountToken: false",
			"containers:",
			"- name: app",
			"  image: {{ .Values.image | lower }}",
		), map[string]any{"sa": "'X", "image": hostNetwork}},
		{"the simplest blueprint", configMap("cm", "banner: {{ .Values.banner }}", "owner: platform", "note: {{ .Values.note }}"),
			map[string]any{"banner": "'x", "note": "'\n  owner: tenant\n  x: y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"t": tt.template}))
			in := input(tt.values)
			in.Tainted = boundary.TaintedStrings(tt.values, tenant)
			out, err := b.RenderGateway(in)
			if err == nil {
				t.Fatalf("RenderGateway = %v, want an error naming a tenant value", out.Objects)
			}
			var e *render.Error
			if !asError(err, &e) || !strings.HasPrefix(e.Origin, "GatewayConfig team-a/tenant value ") {
				t.Fatalf("error %v, want one naming a tenant value", err)
			}
			// The same template with plain words renders as written: the check is not
			// refusing the template.
			plain := map[string]any{}
			for k := range tt.values {
				plain[k] = "plain-" + k
			}
			in = input(plain)
			in.Tainted = boundary.TaintedStrings(plain, tenant)
			if _, err := b.RenderGateway(in); err != nil {
				t.Fatalf("with plain values: %v", err)
			}
		})
	}
}

// TestTenantScalarsKeepTheirType: a tenant string stays a string. YAML 1.1 reads an unquoted
// `yes`, `~`, `null` or `9_090` as a bool, a null or a number; printed where the template
// expects a string, the tenant would change the field's type. Quoted, each is the string.
func TestTenantScalarsKeepTheirType(t *testing.T) {
	for _, v := range []string{"yes", "on", "~", "null", "Null", "9_090", "0x1F", "1e3", ".inf", "false"} {
		t.Run(v, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("cm", "k: {{ .Values.v }}", "q: {{ .Values.v | quote }}")}))
			values := map[string]any{"v": v}
			in := input(values)
			in.Tainted = boundary.TaintedStrings(values, tenant)
			out, err := b.RenderGateway(in)
			if err == nil {
				t.Fatalf("RenderGateway = %v, want an error: %q printed unquoted is no string", out.Objects, v)
			}
			var e *render.Error
			if !asError(err, &e) || e.Origin != tenant("v") {
				t.Fatalf("error %v, want one naming %s", err, tenant("v"))
			}
			b = mustCompile(t, gatewaySpec(map[string]string{"t": configMap("cm", "q: {{ .Values.v | quote }}")}))
			out, err = b.RenderGateway(in)
			if err != nil {
				t.Fatalf("quoted: %v", err)
			}
			if got := out.Objects[0].Object["data"]; !reflect.DeepEqual(got, map[string]any{"q": v}) {
				t.Errorf("quoted: data = %v", got)
			}
		})
	}
}

// TestTenantKeysDoNotCollide: tenant map keys that YAML 1.1 reads as other types (`on` is
// true, `9_090` is 9090, `~` is null) must not land on keys the template wrote ("true",
// "9090", "null"), where Go's map order would pick the winner; and a tenant key alone must not
// change type either. Rendered many times, the outcome is always the same error.
func TestTenantKeysDoNotCollide(t *testing.T) {
	for _, tt := range []struct{ key, templateKey string }{
		{"on", `"true"`}, {"9_090", `"9090"`}, {"~", `"null"`}, {"0x10", `"16"`}, {"on", ""}, {"~", ""},
	} {
		t.Run(tt.key+" "+tt.templateKey, func(t *testing.T) {
			lines := []string{"{{- range $k, $v := .Values.m }}", "{{ $k }}: {{ $v | quote }}", "{{- end }}"}
			if tt.templateKey != "" {
				lines = append(lines, tt.templateKey+": platform")
			}
			b := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("cm", lines...)}))
			values := map[string]any{"m": map[string]any{tt.key: "tenant"}}
			for range 20 {
				in := input(values)
				in.Tainted = boundary.TaintedStrings(values, tenant)
				out, err := b.RenderGateway(in)
				if err == nil {
					t.Fatalf("RenderGateway = %v, want an error naming the key", out.Objects)
				}
				var e *render.Error
				if !asError(err, &e) || e.Origin != tenant("m."+tt.key)+" (a key)" {
					t.Fatalf("error %v, want one naming %s (a key)", err, tenant("m."+tt.key))
				}
			}
		})
	}
}

// TestRendersAreDeterministic: a template that itself writes two keys YAML reads as one JSON
// key fails the same way every time, naming the key, instead of keeping whichever Go's map
// order visits last.
func TestRendersAreDeterministic(t *testing.T) {
	b := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("cm", "true: a", `"true": b`)}))
	for range 20 {
		_, err := b.RenderGateway(input(nil))
		if err == nil || !strings.Contains(err.Error(), `two keys of one mapping read as the JSON key "true"`) {
			t.Fatalf("error %v, want one naming the colliding key", err)
		}
	}
}

// TestTenantNumbersAndBoolsAreTenantInput: numbers and bools are tenant input as much as
// strings. A tenant number used as an indentation moves the tenant's labels out of `labels`
// and next to the template's keys; a bool's text turned into structure adds a key. Both passed
// when B rendered with the tenant's own number and bool. Printed, compared, or counted in a loop,
// they render as before.
func TestTenantNumbersAndBoolsAreTenantInput(t *testing.T) {
	refused := []struct {
		name, line, origin string
		values             map[string]any
	}{
		{"a number as nindent's width", "labels: {{- toYaml .Values.labels | nindent (int .Values.w) }}\n  owner: platform",
			tenant("w"), map[string]any{"w": int64(2), "labels": map[string]any{"x": "tenant"}}},
		{"a number as indent's width", "labels: |\n{{ .Values.text | indent (int .Values.w) }}\n  owner: platform",
			tenant("w"), map[string]any{"w": int64(2), "text": "x"}},
		{"a bool's text as structure", `flag: {{ .Values.flag | toString | replace "true" "on\n  owner: tenant" }}`,
			tenant("flag"), map[string]any{"flag": true}},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("cm", tt.line)}))
			in := input(tt.values)
			in.Tainted = boundary.TaintedStrings(tt.values, tenant)
			out, err := b.RenderGateway(in)
			if err == nil {
				t.Fatalf("RenderGateway = %v, want an error naming %s", out.Objects, tt.origin)
			}
			var e *render.Error
			if !asError(err, &e) || e.Origin != tt.origin {
				t.Fatalf("error %v, want one naming %s", err, tt.origin)
			}
		})
	}
	accepted := []struct {
		name string
		line string
		want map[string]any
	}{
		{"printed", "replicas: {{ .Values.replicas }}\n  ratio: {{ .Values.ratio }}\n  enabled: {{ .Values.flag }}",
			map[string]any{"replicas": int64(3), "ratio": 0.5, "enabled": true}},
		{"computed", "replicas: {{ add .Values.replicas 1 }}\n  port: {{ printf \"%d\" .Values.replicas | quote }}",
			map[string]any{"replicas": int64(4), "port": "3"}},
		{"compared", "{{ if gt .Values.replicas 2 }}big: {a: b}{{ end }}\n  size: {{ ternary \"large\" \"small\" .Values.flag }}",
			map[string]any{"big": map[string]any{"a": "b"}, "size": "large"}},
		{"counted", "{{- range $i := until (int .Values.replicas) }}\n  k{{ $i }}: v\n{{- end }}",
			map[string]any{"k0": "v", "k1": "v", "k2": "v"}},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("cm", tt.line)}))
			values := map[string]any{"replicas": int64(3), "ratio": 0.5, "flag": true}
			in := input(values)
			in.Tainted = boundary.TaintedStrings(values, tenant)
			out, err := b.RenderGateway(in)
			if err != nil {
				t.Fatalf("RenderGateway: %v", err)
			}
			if got := out.Objects[0].Object["data"]; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("data = %#v, want %#v", got, tt.want)
			}
		})
	}
}

// TestTemplateWordsYAMLRetypesAreNotKept: the review's break. A tenant map key equal to a word
// the template spells out keeps its name in B (so that lookups work); `on`, spelled by
// `eq .Values.mode "on"`, kept the tenant's key `on`, which YAML reads as true: the label came
// out as "true" and the check saw the template's own key. Words YAML does not read as the
// string they are are no longer kept.
func TestTemplateWordsYAMLRetypesAreNotKept(t *testing.T) {
	// ("null" and "true" are not here: YAML retypes them, but to the JSON key they spell.)
	for _, word := range []string{"on", "yes", "y", "~", "0x1F"} {
		t.Run(word, func(t *testing.T) {
			tmpl := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n" +
				"    {{- range $k, $v := .Values.labels }}\n    {{ $k }}: {{ $v | quote }}\n    {{- end }}\n    app: proxy\n" +
				"data:\n  mode: {{ if eq .Values.mode \"" + word + "\" }}enabled{{ else }}disabled{{ end }}\n"
			b := mustCompile(t, gatewaySpec(map[string]string{"t": tmpl}))
			values := map[string]any{"mode": "x", "labels": map[string]any{word: "a"}}
			in := input(values)
			in.Tainted = boundary.TaintedStrings(values, tenant)
			out, err := b.RenderGateway(in)
			if err == nil {
				t.Fatalf("RenderGateway = %v, want the key %q refused", out.Objects[0].Object["metadata"], word)
			}
		})
	}
}
