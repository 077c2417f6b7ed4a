package render_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/render"
)

// ns is the Gateway's namespace in every test.
const ns = "team-a"

// gatewaySpec is a blueprint spec with the given gateway templates.
func gatewaySpec(templates map[string]string) *v1alpha1.GatewayClassBlueprintSpec {
	return &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: templates}}
}

func mustCompile(t testing.TB, spec *v1alpha1.GatewayClassBlueprintSpec) *render.Blueprint {
	t.Helper()
	b, err := render.Compile("bp", spec)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return b
}

// gatewayMap is the Gateway web in team-a, as templates see it.
func gatewayMap() map[string]any {
	return map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1",
		"kind":       "Gateway",
		"metadata":   map[string]any{"name": "web", "namespace": ns},
		"spec": map[string]any{
			"gatewayClassName": "internet",
			"listeners": []any{
				map[string]any{"name": "http", "port": int64(80), "protocol": "HTTP"},
			},
		},
	}
}

func input(values map[string]any) *render.Input {
	return &render.Input{Values: values, Gateway: gatewayMap(), Namespace: ns}
}

// configMap is a template for a ConfigMap named name whose data is the given YAML lines,
// each indented under data.
func configMap(name string, data ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n", name)
	for _, d := range data {
		b.WriteString("  " + d + "\n")
	}
	return b.String()
}

// cm is the object configMap renders, in team-a.
func cm(name string, data map[string]any) map[string]any {
	o := map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"data":       nil, // "data:" with nothing under it
	}
	if data != nil {
		o["data"] = data
	}
	return o
}

func renderErr(t *testing.T, err error) *render.Error {
	t.Helper()
	var re *render.Error
	if !errors.As(err, &re) {
		t.Fatalf("error %v (%T) is not a *render.Error", err, err)
	}
	return re
}

func TestTemplateContext(t *testing.T) {
	gwTemplate := configMap("{{ .Gateway.metadata.name }}-ctx",
		`replicas: {{ .Values.replicas | quote }}`,
		`gateway: {{ .Gateway.metadata.name | quote }}`,
		`lb: {{ (index .Resources.svc 0).status.ip | quote }}`,
		`union: {{ join "," .Hostnames.Union | quote }}`,
		`intersection: {{ join "," .Hostnames.Intersection | quote }}`,
		`route: {{ hasKey . "HTTPRoute" | quote }}`,
	)
	routeTemplate := configMap("{{ .HTTPRoute.metadata.name }}-ctx",
		`replicas: {{ .Values.replicas | quote }}`,
		`gateway: {{ .Gateway.metadata.name | quote }}`,
		`route: {{ .HTTPRoute.metadata.name | quote }}`,
		`union: {{ join "," .Hostnames.Union | quote }}`,
	)
	spec := gatewaySpec(map[string]string{"ctx": gwTemplate})
	spec.HTTPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"rctx": routeTemplate}}
	b := mustCompile(t, spec)
	if !b.HasRouteTemplates() {
		t.Errorf("HasRouteTemplates() = false, want true")
	}
	if got, want := b.GatewayTemplates(), []string{"ctx"}; !reflect.DeepEqual(got, want) {
		t.Errorf("GatewayTemplates() = %q, want %q", got, want)
	}
	if got, want := b.RouteTemplates("HTTPRoute"), []string{"rctx"}; !reflect.DeepEqual(got, want) {
		t.Errorf("RouteTemplates() = %q, want %q", got, want)
	}

	hostnames := render.Hostnames{Union: []string{"*.example.com", "a.example.com"}, Intersection: []string{"a.example.com"}}
	in := input(map[string]any{"replicas": int64(3)})
	in.Hostnames = hostnames
	in.Resources = map[string][]map[string]any{"svc": {{"metadata": map[string]any{"name": "web"}, "status": map[string]any{"ip": "10.0.0.1"}}}}
	out, err := b.RenderGateway(in)
	if err != nil {
		t.Fatalf("RenderGateway: %v", err)
	}
	want := []render.Object{{Template: "ctx", Object: cm("web-ctx", map[string]any{
		"replicas":     "3",
		"gateway":      "web",
		"lb":           "10.0.0.1",
		"union":        "*.example.com,a.example.com",
		"intersection": "a.example.com",
		"route":        "false",
	})}}
	if !reflect.DeepEqual(out.Objects, want) {
		t.Errorf("RenderGateway objects =\n%v\nwant\n%v", out.Objects, want)
	}
	if out.Status != nil || out.Pending != nil {
		t.Errorf("RenderGateway status, pending = %v, %v; want nil, nil", out.Status, out.Pending)
	}

	rin := input(map[string]any{"replicas": int64(1)})
	rin.Hostnames = hostnames
	rin.Namespace = "team-b"
	rin.Route = map[string]any{"metadata": map[string]any{"name": "shop", "namespace": "team-b"}}
	rout, err := b.RenderRoute(rin)
	if err != nil {
		t.Fatalf("RenderRoute: %v", err)
	}
	wantRoute := cm("shop-ctx", map[string]any{"replicas": "1", "gateway": "web", "route": "shop", "union": "*.example.com,a.example.com"})
	wantRoute["metadata"].(map[string]any)["namespace"] = "team-b"
	if want := []render.Object{{Template: "rctx", Object: wantRoute}}; !reflect.DeepEqual(rout.Objects, want) {
		t.Errorf("RenderRoute objects =\n%v\nwant\n%v", rout.Objects, want)
	}
}

func TestStatusTemplate(t *testing.T) {
	spec := gatewaySpec(nil)
	spec.GatewayTemplate.Status = &v1alpha1.StatusTemplate{Template: "addresses:\n- type: IPAddress\n  value: {{ .Values.ip | quote }}\n"}
	b := mustCompile(t, spec)
	out, err := b.RenderGateway(input(map[string]any{"ip": "192.0.2.1"}))
	if err != nil {
		t.Fatalf("RenderGateway: %v", err)
	}
	want := map[string]any{"addresses": []any{map[string]any{"type": "IPAddress", "value": "192.0.2.1"}}}
	if !reflect.DeepEqual(out.Status, want) {
		t.Errorf("Status = %v, want %v", out.Status, want)
	}
	if len(out.Objects) != 0 {
		t.Errorf("Objects = %v, want none", out.Objects)
	}
}

// TestHelpersRenderNothing: a template whose key starts with "_" holds defines for the others
// and renders nothing of its own.
func TestHelpersRenderNothing(t *testing.T) {
	b := mustCompile(t, gatewaySpec(map[string]string{
		"_helpers": "{{- define \"name\" -}}{{ .Gateway.metadata.name }}-x{{- end -}}\nnot: rendered\n",
		"cm":       configMap(`{{ include "name" . }}`),
	}))
	if got, want := b.GatewayTemplates(), []string{"cm"}; !reflect.DeepEqual(got, want) {
		t.Errorf("GatewayTemplates() = %q, want %q", got, want)
	}
	out, err := b.RenderGateway(input(nil))
	if err != nil {
		t.Fatalf("RenderGateway: %v", err)
	}
	want := []render.Object{{Template: "cm", Object: cm("web-x", nil)}}
	if !reflect.DeepEqual(out.Objects, want) {
		t.Errorf("objects = %v, want %v", out.Objects, want)
	}
}

func TestMissingKeyIsAnError(t *testing.T) {
	tests := []struct {
		name     string
		template string
		values   map[string]any
		want     string
	}{{
		name:     "missing value",
		template: configMap("cm", `v: {{ .Values.nope | quote }}`),
		want:     `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: .Values.nope: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
	}, {
		name:     "missing nested value",
		template: configMap("cm", `a: "1"`, `v: {{ .Values.a.nope }}`),
		values:   map[string]any{"a": map[string]any{"b": "c"}},
		want:     `blueprint bp: gatewayTemplate.resourceTemplates.cm:7: .Values.a.nope: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
	}, {
		name:     "missing Gateway field",
		template: configMap("cm", `v: {{ .Gateway.spec.addresses }}`),
		want:     `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: .Gateway.spec.addresses: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
	}, {
		name:     "no HTTPRoute in a gateway template",
		template: configMap("cm", `v: {{ .HTTPRoute.metadata.name }}`),
		want:     `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: .HTTPRoute.metadata.name: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"cm": tt.template}))
			out, err := b.RenderGateway(input(tt.values))
			if err == nil {
				t.Fatalf("RenderGateway = %v, want error %q", out.Objects, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %q\nwant %q", err, tt.want)
			}
			if re := renderErr(t, err); re.Blueprint != "bp" || re.Template != "gatewayTemplate.resourceTemplates.cm" || re.Line == 0 {
				t.Errorf("error names blueprint %q, template %q, line %d", re.Blueprint, re.Template, re.Line)
			}
		})
	}
}

// TestPanicsBecomeErrors: functions that panic or fail end the render with an error that says
// where, never a crash.
func TestPanicsBecomeErrors(t *testing.T) {
	tests := []struct {
		name, expr, want string
	}{{
		name: "panic with an error value",
		expr: `{{ first 1 }}`,
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: first 1: error calling first: Cannot find first on type int`,
	}, {
		name: "runtime panic",
		expr: `{{ div 1 0 }}`,
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: div 1 0: error calling div: runtime error: integer divide by zero`,
	}, {
		name: "fail",
		expr: `{{ fail "boom" }}`,
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: boom (fail, at <fail "boom">)`,
	}, {
		name: "required",
		expr: `{{ required "x is required" .Values.x }}`,
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: x is required (required, at <required "x is required" .Values.x>)`,
	}, {
		name: "index past the end",
		expr: `{{ index .Values.list 1 }}`,
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: index .Values.list 1: error calling index: index out of range: 1`,
	}, {
		// index's map and key pass through gantryHold and gantryKey (boundary/compare.go).
		name: "index in index",
		expr: `{{ index (dict "a" (list)) (index (dict "k" "a") "k") 3 }}`,
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: index (dict "a" (list)) (index (dict "k" "a") "k") 3: error calling index: index out of range: 3`,
	}, {
		name: "merge of a string",
		expr: `{{ merge "x" }}`,
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: "x": can't handle "x" for arg of type map[string]interface {}`,
	}, {
		name: "dig too short",
		expr: `{{ dig "a" .Values }}`,
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: dig "a" .Values: error calling dig: dig needs at least three arguments`,
	}, {
		// The structure check numbers include calls and conditionals (boundary.RewriteDecisions):
		// an error says what the blueprint wrote.
		name: "include in an if",
		expr: `{{ if include "nope" . }}{{ end }}`,
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: include "nope" .: error calling include: template: no template "nope" associated with template "bp"`,
	}, {
		name: "include in a tpl text",
		expr: `{{ tpl "{{ include \"nope\" . }}" . }}`,
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: tpl "{{ include \"nope\" . }}" .: error calling tpl: tpl: template: tpl:1:3: executing "tpl" at <include "nope" .>: error calling include: template: no template "nope" associated with template "bp"`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"cm": configMap("cm", "v: "+tt.expr)}))
			_, err := b.RenderGateway(input(map[string]any{"x": nil, "list": []any{}}))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n got %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestIncludeRecursionIsCapped(t *testing.T) {
	tests := []struct {
		name     string
		template string
		values   map[string]any
		want     string
	}{{
		name: "include itself",
		template: "{{- define \"loop\" }}{{ include \"loop\" . }}{{ end -}}\n" +
			configMap(`{{ include "loop" . }}`),
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm:5: include "loop" .: error calling include: include "loop": nested more than 64 deep (does it include itself?)`,
	}, {
		name: "two defines including each other",
		template: "{{- define \"a\" }}{{ include \"b\" . }}{{ end -}}\n" +
			"{{- define \"b\" }}{{ include \"a\" . }}{{ end -}}\n" +
			configMap(`{{ include "a" . }}`),
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: include "a" .: error calling include: include "a": nested more than 64 deep (does it include itself?)`,
	}, {
		name:     "tpl itself",
		template: configMap(`{{ tpl .Values.t . }}`),
		values:   map[string]any{"t": "{{ tpl .Values.t . }}"},
		want:     `blueprint bp: gatewayTemplate.resourceTemplates.cm:4: tpl .Values.t .: error calling tpl: tpl: nested more than 64 deep`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"cm": tt.template}))
			_, err := b.RenderGateway(input(tt.values))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n got %v\nwant %s", err, tt.want)
			}
		})
	}
	// Nesting below the cap is fine, and the count starts again for every template.
	var defs strings.Builder
	for i := range 63 {
		fmt.Fprintf(&defs, "{{- define \"d%d\" }}{{ include \"d%d\" . }}{{ end -}}\n", i, i+1)
	}
	defs.WriteString("{{- define \"d63\" }}deep{{ end -}}\n")
	b := mustCompile(t, gatewaySpec(map[string]string{
		"_helpers": defs.String(),
		"a":        configMap("a", `v: {{ include "d0" . }}`),
		"b":        configMap("b", `v: {{ include "d0" . }}`),
	}))
	out, err := b.RenderGateway(input(nil))
	if err != nil {
		t.Fatalf("64 nested includes: %v", err)
	}
	want := []render.Object{
		{Template: "a", Object: cm("a", map[string]any{"v": "deep"})},
		{Template: "b", Object: cm("b", map[string]any{"v": "deep"})},
	}
	if !reflect.DeepEqual(out.Objects, want) {
		t.Errorf("objects = %v, want %v", out.Objects, want)
	}
}

func TestErrorsNameBlueprintTemplateAndLine(t *testing.T) {
	helpers := "{{- define \"h\" -}}\n{{ .Values.nope }}\n{{- end -}}\n"
	tests := []struct {
		name string
		spec *v1alpha1.GatewayClassBlueprintSpec
		in   *render.Input
		want string
		line int
	}{{
		name: "gateway template",
		spec: gatewaySpec(map[string]string{"cm": "apiVersion: v1\nkind: ConfigMap\n{{ .Values.nope }}\n"}),
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm:3: .Values.nope: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
		line: 3,
	}, {
		name: "route template",
		spec: &v1alpha1.GatewayClassBlueprintSpec{HTTPRouteTemplate: &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{
			"rt": "apiVersion: v1\n{{ .HTTPRoute.spec.nope }}\n",
		}}},
		in:   &render.Input{Gateway: gatewayMap(), Route: map[string]any{"spec": map[string]any{}}, Namespace: ns},
		want: `blueprint bp: httpRouteTemplate.resourceTemplates.rt:2: .HTTPRoute.spec.nope: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
		line: 2,
	}, {
		name: "status template",
		spec: &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{
			Status: &v1alpha1.StatusTemplate{Template: "addresses:\n- value: {{ .Values.nope }}\n"},
		}},
		want: `blueprint bp: gatewayTemplate.status.template:2: .Values.nope: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
		line: 2,
	}, {
		name: "define in another template, through template",
		spec: gatewaySpec(map[string]string{"_helpers": helpers, "cm": configMap("cm", `v: {{ template "h" . }}`)}),
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm: in "gatewayTemplate.resourceTemplates._helpers" line 2: .Values.nope: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
	}, {
		name: "define in another template, through include",
		spec: gatewaySpec(map[string]string{"_helpers": helpers, "cm": configMap("cm", `v: {{ include "h" . }}`)}),
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: include "h" .: error calling include: template: gatewayTemplate.resourceTemplates._helpers:2:3: executing "h" at <.Values.nope>: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
		line: 6,
	}, {
		name: "output document",
		spec: gatewaySpec(map[string]string{"cm": configMap("ok") + "---\nkind: ConfigMap\nmetadata:\n  name: x\n"}),
		want: `blueprint bp: gatewayTemplate.resourceTemplates.cm: document 2: object has no apiVersion`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, tt.spec)
			in := tt.in
			if in == nil {
				in = input(nil)
			}
			var err error
			if tt.spec.HTTPRouteTemplate != nil {
				_, err = b.RenderRoute(in)
			} else {
				_, err = b.RenderGateway(in)
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error\n got %v\nwant %s", err, tt.want)
			}
			if re := renderErr(t, err); re.Line != tt.line {
				t.Errorf("Line = %d, want %d", re.Line, tt.line)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	spec := gatewaySpec(map[string]string{
		"a":  `{{ env "HOME" }}`,
		"b":  "x\n{{ end }}",
		"ok": configMap("ok"),
	})
	spec.HTTPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"r": "\n\n{{ .Values.x"}}
	spec.GatewayTemplate.Status = &v1alpha1.StatusTemplate{Template: "{{ if }}"}
	_, err := render.Compile("bp", spec)
	want := strings.Join([]string{
		`blueprint bp: gatewayTemplate.resourceTemplates.a:1: function "env" not defined`,
		`blueprint bp: gatewayTemplate.resourceTemplates.b:2: unexpected {{end}}`,
		`blueprint bp: httpRouteTemplate.resourceTemplates.r:3: unclosed action`,
		`blueprint bp: gatewayTemplate.status.template:1: missing value for if`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("Compile error\n got %v\nwant %s", err, want)
	}
}

func TestPending(t *testing.T) {
	svc := "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n"
	svcObject := map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web", "namespace": ns}}
	live := func(status map[string]any) map[string][]map[string]any {
		o := map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web", "namespace": ns}}
		if status != nil {
			o["status"] = status
		}
		return map[string][]map[string]any{"svc": {o}}
	}
	ready := live(map[string]any{"ip": "10.0.0.1"})
	tests := []struct {
		name      string
		dns       string // the template that reads .Resources.svc
		resources map[string][]map[string]any
		values    map[string]any
		pending   []render.Pending
		err       string
		dnsData   map[string]any
	}{{
		name: "no live object yet",
		dns:  configMap("dns", `ip: {{ (index .Resources.svc 0).status.ip | quote }}`),
		pending: []render.Pending{{
			Template: "gatewayTemplate.resourceTemplates.dns",
			Waiting:  []string{"svc"},
			Reason:   "index .Resources.svc 0: error calling index: slice index out of range",
		}},
	}, {
		name:      "live object without status",
		dns:       configMap("dns", `ip: {{ (index .Resources.svc 0).status.ip | quote }}`),
		resources: live(nil),
		pending: []render.Pending{{
			Template: "gatewayTemplate.resourceTemplates.dns",
			Waiting:  []string{"svc"},
			Reason:   `0: map has no entry for key "status"`, // text/template names the last node it evaluated
		}},
	}, {
		name:      "live object with an incomplete status",
		dns:       configMap("dns", `ip: {{ (index .Resources.svc 0).status.ip | quote }}`),
		resources: live(map[string]any{"loadBalancer": map[string]any{}}),
		pending: []render.Pending{{
			Template: "gatewayTemplate.resourceTemplates.dns",
			Waiting:  []string{"svc"},
			Reason:   `0: map has no entry for key "ip"`,
		}},
	}, {
		name:      "ready",
		dns:       configMap("dns", `ip: {{ (index .Resources.svc 0).status.ip | quote }}`),
		resources: ready,
		dnsData:   map[string]any{"ip": "10.0.0.1"},
	}, {
		name:      "through $",
		dns:       configMap("dns", `ip: {{ with $.Resources.svc }}{{ (index . 0).status.ip | quote }}{{ end }}`),
		resources: live(nil),
		pending: []render.Pending{{
			Template: "gatewayTemplate.resourceTemplates.dns",
			Waiting:  []string{"svc"},
			Reason:   `0: map has no entry for key "status"`,
		}},
	}, {
		name: "index by name",
		dns:  configMap("dns", `ip: {{ (index .Resources "svc" 0).status.ip | quote }}`),
		pending: []render.Pending{{
			Template: "gatewayTemplate.resourceTemplates.dns",
			Waiting:  []string{"svc"},
			Reason:   `index .Resources "svc" 0: error calling index: slice index out of range`,
		}},
	}, {
		name: "a .Resources entry no template produces",
		dns:  configMap("dns", `ip: {{ (index .Resources.other 0).status.ip | quote }}`),
		pending: []render.Pending{{
			Template: "gatewayTemplate.resourceTemplates.dns",
			Waiting:  []string{"other"},
			Reason:   `.Resources.other: map has no entry for key "other"`,
		}},
	}, {
		name:      "missing value in a template that reads a ready resource",
		dns:       configMap("dns", `ip: {{ (index .Resources.svc 0).status.ip | quote }}`, `v: {{ .Values.nope }}`),
		resources: ready,
		err:       `blueprint bp: gatewayTemplate.resourceTemplates.dns:7: .Values.nope: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
	}, {
		name: "missing value before a resource that is not there",
		dns:  configMap("dns", `v: {{ .Values.nope }}`, `ip: {{ (index .Resources.svc 0).status.ip | quote }}`),
		err:  `blueprint bp: gatewayTemplate.resourceTemplates.dns:6: .Values.nope: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
	}, {
		name:      "missing value through $ inside with .Resources",
		dns:       configMap("dns", `v: {{ with .Resources.svc }}{{ $.Values.nope }}{{ end }}`),
		resources: ready,
		err:       `blueprint bp: gatewayTemplate.resourceTemplates.dns:6: $.Values.nope: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
	}, {
		name:      "an absent value handled before a live object without status",
		dns:       configMap("dns", `ttl: {{ .Values.ttl | default 300 | quote }}`, `ip: {{ (index .Resources.svc 0).status.ip | quote }}`),
		resources: live(nil),
		pending: []render.Pending{{
			Template: "gatewayTemplate.resourceTemplates.dns",
			Waiting:  []string{"svc"},
			Reason:   `0: map has no entry for key "status"`,
		}},
	}, {
		name:      "a live object's absent field printed bare",
		dns:       configMap("dns", `{{- if .Values.absent.x }}{{ end }}`, `ip: {{ (index .Resources.svc 0).status.ip }}`),
		resources: live(map[string]any{"loadBalancer": map[string]any{}}),
		pending: []render.Pending{{
			Template: "gatewayTemplate.resourceTemplates.dns",
			Waiting:  []string{"svc"},
			Reason:   `0: map has no entry for key "ip"`,
		}},
	}, {
		name:      "a live object without status in a range",
		dns:       configMap("dns", `ips: {{ range .Resources.svc }}{{ .status.ip | default "none" }}{{ end }}`),
		resources: live(nil),
		pending: []render.Pending{{
			Template: "gatewayTemplate.resourceTemplates.dns",
			Waiting:  []string{"svc"},
			Reason:   `.status.ip: map has no entry for key "status"`,
		}},
	}, {
		name:      "absent values handled beside a ready live object",
		dns:       configMap("dns", `ip: {{ (index .Resources.svc 0).status.ip | quote }}`, `ttl: {{ .Values.ttl | default "300" | quote }}`, `{{- with .Values.tags }}{{ .x }}{{ end }}`),
		resources: ready,
		dnsData:   map[string]any{"ip": "10.0.0.1", "ttl": "300"},
	}, {
		name:      "value index out of range in a template that reads .Resources",
		dns:       configMap("dns", `ip: {{ (index .Resources.svc 0).status.ip | quote }}`, `port: {{ index .Values.ports 5 }}`),
		resources: ready,
		values:    map[string]any{"ports": []any{int64(80)}},
		err:       `blueprint bp: gatewayTemplate.resourceTemplates.dns:7: index .Values.ports 5: error calling index: index out of range: 5`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"svc": svc, "dns": tt.dns}))
			in := input(tt.values)
			in.Resources = tt.resources
			out, err := b.RenderGateway(in)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error\n got %v\nwant %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("RenderGateway: %v", err)
			}
			if !reflect.DeepEqual(out.Pending, tt.pending) {
				t.Errorf("Pending =\n%#v\nwant\n%#v", out.Pending, tt.pending)
			}
			// The pending template's earlier objects stay: the others render as usual.
			want := []render.Object{{Template: "svc", Object: svcObject}}
			if tt.dnsData != nil {
				want = append([]render.Object{{Template: "dns", Object: cm("dns", tt.dnsData)}}, want...)
			}
			if !reflect.DeepEqual(out.Objects, want) {
				t.Errorf("Objects =\n%v\nwant\n%v", out.Objects, want)
			}
		})
	}
}

func TestPendingStatusTemplate(t *testing.T) {
	spec := gatewaySpec(map[string]string{"svc": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n"})
	spec.GatewayTemplate.Status = &v1alpha1.StatusTemplate{Template: "addresses:\n- value: {{ (index .Resources.svc 0).status.ip | quote }}\n"}
	b := mustCompile(t, spec)
	out, err := b.RenderGateway(input(nil))
	if err != nil {
		t.Fatalf("RenderGateway: %v", err)
	}
	want := []render.Pending{{
		Template: "gatewayTemplate.status.template",
		Waiting:  []string{"svc"},
		Reason:   "index .Resources.svc 0: error calling index: slice index out of range",
	}}
	if !reflect.DeepEqual(out.Pending, want) {
		t.Errorf("Pending = %#v, want %#v", out.Pending, want)
	}
	if out.Status != nil {
		t.Errorf("Status = %v, want nil", out.Status)
	}
	if got, want := out.Pending[0].String(), "gatewayTemplate.status.template waits for .Resources.svc: index .Resources.svc 0: error calling index: slice index out of range"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	p := render.Pending{Template: "t", Waiting: []string{"a", "b"}, Reason: "r"}
	if got, want := p.String(), "t waits for .Resources.a, .Resources.b: r"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestRenderDoesNotChangeItsInput: templates may call set and unset on what they see; the
// caller's maps stay as they were.
func TestRenderDoesNotChangeItsInput(t *testing.T) {
	template := `{{- $_ := set .Values "added" "x" }}{{ $_ := unset .Values.m "k" }}` +
		`{{ $_ := set .Gateway.metadata "added" "x" }}{{ $_ := set (index .Resources.svc 0) "added" "x" }}` +
		"{{ with get . \"HTTPRoute\" }}{{ $_ := set .metadata \"added\" \"x\" }}{{ end }}\n" + configMap("cm")
	spec := gatewaySpec(map[string]string{"cm": template})
	spec.HTTPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"cm": template}}
	b := mustCompile(t, spec)
	newInput := func() *render.Input {
		in := input(map[string]any{"m": map[string]any{"k": "v"}})
		in.Resources = map[string][]map[string]any{"svc": {{"metadata": map[string]any{"name": "web"}}}}
		in.Route = map[string]any{"metadata": map[string]any{"name": "shop"}}
		return in
	}
	in := newInput()
	if _, err := b.RenderGateway(in); err != nil {
		t.Fatalf("RenderGateway: %v", err)
	}
	if _, err := b.RenderRoute(in); err != nil {
		t.Fatalf("RenderRoute: %v", err)
	}
	if want := newInput(); !reflect.DeepEqual(in, want) {
		t.Errorf("input changed by the render:\n got %#v\nwant %#v", in, want)
	}
}

// TestTplCannotChangeTheInput: a blueprint that names no function changing maps gets the
// caller's values without a copy, unless it uses tpl, which runs code that comes with the data.
func TestTplCannotChangeTheInput(t *testing.T) {
	b := mustCompile(t, gatewaySpec(map[string]string{"cm": "{{ tpl .Values.code . }}\n" + configMap("cm")}))
	newInput := func() *render.Input {
		return input(map[string]any{"code": `{{ $_ := set .Values "added" "x" }}{{ $_ := set .Gateway.metadata "added" "x" }}`})
	}
	in := newInput()
	if _, err := b.RenderGateway(in); err != nil {
		t.Fatalf("RenderGateway: %v", err)
	}
	if want := newInput(); !reflect.DeepEqual(in, want) {
		t.Errorf("input changed by the render:\n got %#v\nwant %#v", in, want)
	}
}

// TestConcurrentRenders renders one compiled blueprint from many goroutines, each with its own
// input and all with a shared one; run with -race.
func TestConcurrentRenders(t *testing.T) {
	b := mustCompile(t, gatewaySpec(map[string]string{
		"_helpers": "{{- define \"name\" }}{{ .Gateway.metadata.name }}-{{ .Values.n }}{{ end -}}",
		"cm": "{{- $_ := set .Gateway.metadata \"seen\" \"yes\" }}\n" +
			configMap(`{{ include "name" . }}`, `num: {{ tpl "{{ .Values.n }}" . | quote }}`),
	}))
	shared := input(map[string]any{"n": int64(-1)})
	var wg sync.WaitGroup
	errs := make(chan error, 16*20)
	for g := range 16 {
		wg.Go(func() {
			for i := range 20 {
				n := int64(g*100 + i)
				in := input(map[string]any{"n": n})
				if i%2 == 1 {
					in, n = shared, -1
				}
				out, err := b.RenderGateway(in)
				if err != nil {
					errs <- err
					continue
				}
				name := fmt.Sprintf("web-%d", n)
				want := []render.Object{{Template: "cm", Object: cm(name, map[string]any{"num": fmt.Sprint(n)})}}
				if !reflect.DeepEqual(out.Objects, want) {
					errs <- fmt.Errorf("goroutine %d render %d: objects %v, want %v", g, i, out.Objects, want)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestValidateValues(t *testing.T) {
	schema := `{"type": "object", "required": ["image"], "properties": {
		"image": {"type": "string"},
		"service": {"type": "object", "properties": {"port": {"type": "integer", "maximum": 65535}}}
	}}`
	spec := gatewaySpec(nil)
	spec.ValuesSchema = &apiextensionsv1.JSON{Raw: []byte(schema)}
	b := mustCompile(t, spec)
	tests := []struct {
		name   string
		values map[string]any
		want   []render.SchemaViolation
	}{{
		name:   "valid",
		values: map[string]any{"image": "envoy", "service": map[string]any{"port": int64(80)}},
	}, {
		name:   "nested type",
		values: map[string]any{"image": "envoy", "service": map[string]any{"port": "eighty"}},
		want:   []render.SchemaViolation{{Path: []string{"service", "port"}, Msg: "got string, want integer"}},
	}, {
		name:   "nested maximum",
		values: map[string]any{"image": "envoy", "service": map[string]any{"port": int64(70000)}},
		want:   []render.SchemaViolation{{Path: []string{"service", "port"}, Msg: "maximum: got 70,000, want 65,535"}},
	}, {
		name:   "missing",
		values: map[string]any{},
		want:   []render.SchemaViolation{{Path: []string{}, Msg: "missing property 'image'", Missing: []string{"image"}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := b.ValidateValues(tt.values); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ValidateValues =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
	if got := mustCompile(t, gatewaySpec(nil)).ValidateValues(map[string]any{"any": "thing"}); got != nil {
		t.Errorf("no schema: ValidateValues = %v, want nil", got)
	}

	spec.ValuesSchema = &apiextensionsv1.JSON{Raw: []byte("{")}
	_, err := render.Compile("bp", spec)
	if prefix := "blueprint bp: valuesSchema: not JSON: "; err == nil || !strings.HasPrefix(err.Error(), prefix) {
		t.Errorf("Compile error %v, want one starting %q", err, prefix)
	}
}

// TestStrictRenderChangesNothing: the second, strict render of a template that reads .Resources
// does not change values again — a later template sees one change, not two — and still finds
// what the template waits for.
func TestStrictRenderChangesNothing(t *testing.T) {
	svc := "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n"
	b := mustCompile(t, gatewaySpec(map[string]string{
		"svc": svc,
		"dns": configMap("dns", `{{- $_ := set .Values "n" (add1 (.Values.n | default 0)) }}`, `ip: {{ with .Resources.svc }}{{ (index . 0).status | toJson | quote }}{{ end }}`),
		"zz":  configMap("zz", `count: {{ .Values.n | quote }}`),
	}))
	in := input(nil)
	in.Resources = map[string][]map[string]any{"svc": {{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web", "namespace": ns}}}}
	out, err := b.RenderGateway(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Pending) != 1 || out.Pending[0].Template != "gatewayTemplate.resourceTemplates.dns" {
		t.Errorf("Pending = %v, want dns waiting for svc", out.Pending)
	}
	for _, o := range out.Objects {
		if o.Template == "zz" {
			if n := o.Object["data"].(map[string]any)["count"]; n != "1" {
				t.Errorf("n = %v, want 1: the values were changed twice (%v)", n, o.Object)
			}
			return
		}
	}
	t.Errorf("no zz object in %v (pending %v)", out.Objects, out.Pending)
}

// TestOneErrorPerCause: issue 21. A define with a failure that six templates include gave six
// copies of one error; it is one error, located in the define, naming the templates.
func TestOneErrorPerCause(t *testing.T) {
	helpers := "{{- define \"name\" -}}\n{{ .Gateway.metadata.nmae | required \"metadata.nmae is required\" }}\n{{- end -}}"
	templates := map[string]string{"_helpers": helpers}
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		templates[n] = configMap(n, `v: {{ include "name" . }}`)
	}
	b := mustCompile(t, gatewaySpec(templates))
	_, err := b.RenderGateway(&render.Input{Gateway: map[string]any{"metadata": map[string]any{"name": "web"}}, Namespace: "ns"})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if n := strings.Count(msg, "(required, at"); n != 1 {
		t.Errorf("the cause is said %d times, want once:\n%s", n, msg)
	}
	if !strings.Contains(msg, "gatewayTemplate.resourceTemplates._helpers:2:") || !strings.Contains(msg, "included by gatewayTemplate.resourceTemplates.a") ||
		!strings.Contains(msg, "gatewayTemplate.resourceTemplates.f)") {
		t.Errorf("want the define's line and the six templates:\n%s", msg)
	}
}

// TestNoReflectInMessages: issue 21. `slice` past a list's end said "reflect.Value.Slice:
// slice index out of bounds"; the message names the function and the problem, not Go's
// reflect package.
func TestNoReflectInMessages(t *testing.T) {
	b := mustCompile(t, gatewaySpec(map[string]string{"cm": configMap("cm", `v: {{ slice (list 1 2) 3 | toString | quote }}`)}))
	_, err := b.RenderGateway(&render.Input{Gateway: map[string]any{}, Namespace: "ns"})
	if err == nil || strings.Contains(err.Error(), "reflect") || !strings.Contains(err.Error(), "error calling slice: slice index out of bounds") {
		t.Errorf("error %v; want one naming slice and the problem, without reflect", err)
	}
}

// TestHelmOnlyNamesSayWhatGantryOffers: issue 21. A blueprint ported from a chart that reads
// .Release, .Capabilities, .Chart or .Files, or calls lookup, fails with a hint of what Gantry
// offers instead.
func TestHelmOnlyNamesSayWhatGantryOffers(t *testing.T) {
	for tmpl, want := range map[string]string{
		`{{ .Release.Name }}`:                 ".Gateway.metadata.name",
		`{{ .Capabilities.KubeVersion }}`:     "clusterScopedKinds",
		`{{ $.Chart.Name }}`:                  "parametersRef",
		`{{ .Files.Get "x" }}`:                "values or templates",
		`{{ lookup "v1" "Secret" "ns" "x" }}`: ".Resources",
	} {
		spec := gatewaySpec(map[string]string{"cm": configMap("cm", "v: '"+tmpl+"'")})
		b, err := render.Compile("bp", spec)
		if err == nil {
			_, err = b.RenderGateway(&render.Input{Gateway: map[string]any{}, Namespace: "ns"})
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a hint naming %s", tmpl, err, want)
		}
	}
}

// TestKeyThatNeverComes: issue 21. A ClusterIP Service never gets .status.loadBalancer.ingress:
// a status template that reads it by name waits for good, one that reads it with dig and a
// default does not (docs/blueprints.md, Pending).
func TestKeyThatNeverComes(t *testing.T) {
	live := map[string][]map[string]any{"svc": {{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"type": "ClusterIP"}, "status": map[string]any{"loadBalancer": map[string]any{}}}}}
	for tmpl, pending := range map[string]bool{
		"{{ range (index .Resources.svc 0).status.loadBalancer.ingress }}addresses: [{value: {{ .ip | quote }}}]{{ else }}{}{{ end }}":                      true,
		"{{ range dig \"status\" \"loadBalancer\" \"ingress\" list (index .Resources.svc 0) }}addresses: [{value: {{ .ip | quote }}}]{{ else }}{}{{ end }}": false,
	} {
		spec := gatewaySpec(map[string]string{"svc": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n"})
		spec.GatewayTemplate.Status = &v1alpha1.StatusTemplate{Template: tmpl}
		b := mustCompile(t, spec)
		in := input(nil)
		in.Resources = live
		out, err := b.RenderGateway(in)
		if err != nil {
			t.Fatalf("%s: %v", tmpl, err)
		}
		if got := len(out.Pending) > 0; got != pending {
			t.Errorf("%s: pending %v (%v), want %v", tmpl, got, out.Pending, pending)
		}
	}
}
