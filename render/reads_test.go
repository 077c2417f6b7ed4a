package render

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/apis/v1alpha1"
)

func readsOf(t *testing.T, templates map[string]string) ([]string, bool) {
	t.Helper()
	b, err := Compile("bp", &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: templates}})
	if err != nil {
		t.Fatal(err)
	}
	return b.resourceEntries, b.resourcesExact
}

// TestResourcesRead: the entries a blueprint can read are found where they are spelled out,
// and every way of reaching .Resources the analysis cannot follow makes it inexact (the
// memory of outputs then keys a render by all entries). Each inexact case is a way a
// template could read an entry the exact list would leave out.
func TestResourcesRead(t *testing.T) {
	for _, tt := range []struct {
		name  string
		tmpl  string
		want  []string
		exact bool
	}{
		{"none", `{{ .Values.x }}`, []string{}, true},
		{"field", `{{ (index .Resources.svc 0).status }}`, []string{"svc"}, true},
		{"with", `{{ with .Resources.svc }}{{ (index . 0).status | toYaml }}{{ end }}`, []string{"svc"}, true},
		{"index literal", `{{ index .Resources "svc" }}`, []string{"svc"}, true},
		{"dollar", `{{ range .Values.l }}{{ $.Resources.svc }}{{ end }}`, []string{"svc"}, true},
		{"dollar index", `{{ index $.Resources "svc" }}`, []string{"svc"}, true},
		{"dot elsewhere", `{{ range .Values.l }}{{ toYaml . }}{{ end }}{{ with .Values.m }}{{ . }}{{ end }}`, []string{}, true},
		{"include the context", `{{ include "h" . }}{{ define "h" }}{{ .Resources.lb }}{{ end }}`, []string{"lb"}, true},
		{"include a part", `{{ include "h" .Values }}{{ define "h" }}{{ toYaml . }}{{ end }}`, []string{}, true},
		{"template the context", `{{ template "h" . }}{{ define "h" }}{{ .Resources.lb }}{{ end }}`, []string{"lb"}, true},
		{"nested defines", `{{ include "a" . }}{{ define "a" }}{{ include "b" . }}{{ end }}{{ define "b" }}{{ .Resources.x }}{{ end }}`, []string{"x"}, true},
		{"context as a value", `{{ toYaml . }}`, nil, false},
		{"context printed", `{{ . }}`, nil, false},
		{"dollar as a value", `{{ with .Values }}{{ toYaml $ }}{{ end }}`, nil, false},
		{"resources as a value", `{{ toYaml .Resources }}`, nil, false},
		{"resources to a function", `{{ hasKey .Resources "svc" }}`, nil, false},
		{"index with a variable", `{{ index .Resources .Values.k }}`, nil, false},
		{"context in a variable", `{{ $ctx := . }}{{ $ctx.Resources.svc }}`, nil, false},
		{"dollar in a variable", `{{ $ctx := $ }}{{ $ctx.Resources.svc }}`, nil, false},
		{"context in a dict", `{{ include "h" (dict "ctx" .) }}{{ define "h" }}{{ .ctx.Resources.x }}{{ end }}`, nil, false},
		{"range over the context", `{{ range . }}{{ . }}{{ end }}`, nil, false},
		{"with the context", `{{ with . }}{{ toYaml . }}{{ end }}`, nil, false},
		{"tpl", `{{ tpl .Values.t . }}`, nil, false},
		{"index the context", `{{ index . "Resources" }}`, nil, false},
		{"define given the context", `{{ include "h" . }}{{ define "h" }}{{ toYaml . }}{{ end }}`, nil, false},
		{"define name not literal", `{{ include .Values.n . }}{{ define "h" }}{{ toYaml . }}{{ end }}`, nil, false},
		{"dollar in a define given the context", `{{ include "h" . }}{{ define "h" }}{{ with .Values }}{{ toYaml $ }}{{ end }}{{ end }}`, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, exact := readsOf(t, map[string]string{"t": tt.tmpl})
			if exact != tt.exact || (exact && !slices.Equal(got, tt.want)) {
				t.Fatalf("%s: entries %q, exact %v; want %q, %v", tt.tmpl, got, exact, tt.want, tt.exact)
			}
		})
	}
}

// TestShippedBlueprintsReadExactly: the ready blueprints' reads are followed exactly where the
// analysis can, so the memory of outputs is keyed by the entries they read (an apply of another
// object renders nothing again). lb-in-front passes the whole context to a define inside a dict
// (`include "lbf.annotations" (dict "ctx" . ...)`), which the analysis does not follow: its
// renders are keyed by every entry. A blueprint that stops being exact still works, with fewer
// outputs reused.
func TestShippedBlueprintsReadExactly(t *testing.T) {
	for name, want := range map[string][]string{
		"proxy":       {"service"},
		"lb-in-front": nil, // not exact
		"cloud-lb":    {"loadbalancer", "targetgroup"},
	} {
		data, err := os.ReadFile(filepath.Join("..", "blueprints", name, "blueprint.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var bp v1alpha1.GatewayClassBlueprint
		if err := yaml.Unmarshal(data, &bp); err != nil {
			t.Fatal(err)
		}
		b, err := Compile(name, &bp.Spec)
		if err != nil {
			t.Fatal(err)
		}
		if b.resourcesExact != (want != nil) || !slices.Equal(b.resourceEntries, want) {
			t.Errorf("%s: entries %q, exact %v; want %q, exact %v", name, b.resourceEntries, b.resourcesExact, want, want != nil)
		}
	}
}

// TestOutputMemoryFollowsReads: a render is keyed by the entries its templates read. A change
// to another entry takes the output from memory; a change to a read entry, or to any entry
// when the templates reach .Resources in a way not followed, renders again.
func TestOutputMemoryFollowsReads(t *testing.T) {
	live := func(svc, other string) map[string][]map[string]any {
		return map[string][]map[string]any{
			"svc":   {{"status": map[string]any{"ip": svc}}},
			"other": {{"spec": map[string]any{"replicas": other}}},
		}
	}
	for _, tt := range []struct {
		name, tmpl     string
		otherRerenders bool
	}{
		{"exact", `ip: {{ (index .Resources.svc 0).status.ip | quote }}`, false},
		{"through a variable", `{{ $ctx := . }}ip: {{ (index .Resources.svc 0).status.ip | quote }}
n: {{ len (index $ctx.Resources "other") }}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := configMapBlueprint(t, "  "+tt.tmpl+"\n")
			m := NewOutputMemory(1 << 20)
			for _, step := range []struct {
				svc, other string
				renders    int64
			}{
				{"192.0.2.1", "1", 1},
				{"192.0.2.1", "2", map[bool]int64{true: 2, false: 1}[tt.otherRerenders]},
				{"192.0.2.2", "2", map[bool]int64{true: 3, false: 2}[tt.otherRerenders]},
			} {
				in := tenantInput("web", map[string]any{})
				in.Resources = live(step.svc, step.other)
				if _, err := m.RenderGateway(b, in); err != nil {
					t.Fatal(err)
				}
				if r, _ := m.Renders(); r != step.renders {
					t.Fatalf("after svc %s, other %s: rendered %d times; want %d", step.svc, step.other, r, step.renders)
				}
			}
		})
	}
}
