package render_test

import (
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/render"
)

// helmRender renders one template the way `helm template` does: Helm's own engine, a chart
// built in memory, values coalesced as Helm coalesces them.
func helmRender(t *testing.T, tmpl string, values map[string]any) (string, error) {
	t.Helper()
	ch := &chart.Chart{
		Metadata:  &chart.Metadata{APIVersion: "v2", Name: "t", Version: "0.1.0"},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte(tmpl)}},
	}
	vals, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{Name: "r", Namespace: ns}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatalf("ToRenderValues: %v", err)
	}
	out, err := engine.Render(ch, vals)
	if err != nil {
		return "", err
	}
	var o map[string]any
	if err := yaml.Unmarshal([]byte(out["t/templates/cm.yaml"]), &o); err != nil {
		t.Fatalf("Helm output %q: %v", out["t/templates/cm.yaml"], err)
	}
	v, _ := o["data"].(map[string]any)["v"].(string)
	return v, nil
}

func gantryRender(t *testing.T, tmpl string, values map[string]any) (string, error) {
	t.Helper()
	b := mustCompile(t, gatewaySpec(map[string]string{"cm": tmpl}))
	out, err := b.RenderGateway(input(values))
	if err != nil {
		return "", err
	}
	v, _ := out.Objects[0].Object["data"].(map[string]any)["v"].(string)
	return v, nil
}

// TestAbsentValuesAsInHelm: an absent key is nil to the functions and actions that handle
// absence, giving exactly what `helm template` gives. Each expression is written with ABSENT,
// which stands for `.Values.absent` (an absent key) and for `.Values.a.b` (a key under an absent
// map). Helm itself fails on the second ("nil pointer evaluating interface {}.b"); Gantry gives
// it the first one's result, as the issue asks.
func TestAbsentValuesAsInHelm(t *testing.T) {
	values := map[string]any{"present": "p", "m": map[string]any{"k": "v"}, "empty": ""}
	exprs := []string{
		`{{ ABSENT | default "x" }}`,
		`{{ default "x" ABSENT }}`,
		`{{ if ABSENT }}y{{ else }}n{{ end }}`,
		`{{ with ABSENT }}y{{ else }}n{{ end }}`,
		`{{ if not ABSENT }}y{{ else }}n{{ end }}`,
		`{{ not ABSENT }}`,
		`{{ empty ABSENT }}`,
		`{{ coalesce ABSENT .Values.empty .Values.present }}`,
		`{{ ternary "y" "n" (empty ABSENT) }}`,
		`{{ if and ABSENT .Values.present }}y{{ else }}n{{ end }}`,
		`{{ or ABSENT .Values.present }}`,
		`{{ and .Values.present (ABSENT | default "z") }}`,
		`{{ eq ABSENT "x" }}`,
		`{{ ne ABSENT "x" }}`,
		`{{ if eq (ABSENT | default "") "" }}y{{ end }}`,
		`{{ hasKey .Values "absent" }}`,
		`{{ hasKey .Values.m "absent" }}`,
		`{{ dig "a" "b" "x" .Values.m }}`,
		`{{ dig "absent" "x" .Values.m }}`,
		`{{ $v := ABSENT }}{{ $v | default "x" }}`,
		`{{ range ABSENT }}y{{ else }}n{{ end }}`,
		`{{ ABSENT | toJson }}`,
		`{{ ABSENT | toYaml }}`,
		`{{ kindIs "invalid" ABSENT }}`,
		`{{ ABSENT | default .Values.m | toJson }}`,
	}
	for _, expr := range exprs {
		tmpl := configMap("cm", `v: '`+strings.ReplaceAll(expr, "ABSENT", ".Values.absent")+`'`)
		want, err := helmRender(t, tmpl, values)
		if err != nil {
			t.Errorf("%s: helm: %v", expr, err)
			continue
		}
		for _, absent := range []string{".Values.absent", ".Values.a.b", "$.Values.a.b", "(.Values.absent).b"} {
			e := strings.ReplaceAll(expr, "ABSENT", absent)
			got, err := gantryRender(t, configMap("cm", `v: '`+e+`'`), values)
			if err != nil {
				t.Errorf("%s: gantry: %v (helm gives %q)", e, err, want)
				continue
			}
			if got != want {
				t.Errorf("%s = %q, helm gives %q", e, got, want)
			}
		}
	}
}

// TestRequiredAsInHelm: required fails with the template's message, as in Helm.
func TestRequiredAsInHelm(t *testing.T) {
	for _, absent := range []string{".Values.absent", ".Values.a.b"} {
		tmpl := configMap("cm", `v: {{ required "set image, please" `+absent+` | quote }}`)
		_, herr := helmRender(t, tmpl, nil)
		_, gerr := gantryRender(t, tmpl, nil)
		if herr == nil || !strings.Contains(herr.Error(), "set image, please") && absent == ".Values.absent" {
			t.Errorf("helm: %v", herr)
		}
		want := `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: set image, please (required, at <required "set image, please" ` + absent + `>)`
		if gerr == nil || gerr.Error() != want {
			t.Errorf("%s: error\n got %v\nwant %s", absent, gerr, want)
		}
	}
}

// TestPrintingAnAbsentValueIsAnError: printing an absent value that nothing handles is an
// error naming template, line and path — never an empty string or "<no value>".
func TestPrintingAnAbsentValueIsAnError(t *testing.T) {
	helpers := "{{- define \"h\" -}}\nx: {{ .Values.nope }}\n{{- end -}}\n"
	tests := []struct {
		name, template, want string
		line                 int
	}{{
		name:     "bare",
		template: configMap("cm", `image: {{ .Values.imagee }}`),
		want:     `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: .Values.imagee: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
		line:     6,
	}, {
		name:     "under an absent map",
		template: configMap("cm", `a: "1"`, `image: {{ .Values.image.tag }}`),
		want:     `blueprint bp: gatewayTemplate.resourceTemplates.cm:7: .Values.image.tag: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
		line:     7,
	}, {
		name:     "through quote",
		template: configMap("cm", `image: {{ .Values.imagee | quote }}`),
		want:     `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: .Values.imagee: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
		line:     6,
	}, {
		name:     "as an argument of quote",
		template: configMap("cm", `image: {{ quote .Values.imagee }}`),
		want:     `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: .Values.imagee: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
		line:     6,
	}, {
		name:     "a variable",
		template: configMap("cm", `{{- $i := .Values.imagee }}`, `image: {{ $i }}`),
		want:     `blueprint bp: gatewayTemplate.resourceTemplates.cm:7: $i: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
		line:     7,
	}, {
		name:     "a Gateway field",
		template: configMap("cm", `v: {{ .Gateway.spec.addresses }}`),
		want:     `blueprint bp: gatewayTemplate.resourceTemplates.cm:6: .Gateway.spec.addresses: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
		line:     6,
	}, {
		name:     "in a helper",
		template: "{{ include \"h\" . }}",
		want:     `blueprint bp: gatewayTemplate.resourceTemplates.cm:1: include "h" .: error calling include: template: gatewayTemplate.resourceTemplates._helpers:2:6: executing "h" at <.Values.nope>: no value (the key is absent or null); give it a default, make it required, or test it with if or with`,
		line:     1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"cm": tt.template, "_helpers": helpers}))
			out, err := b.RenderGateway(input(nil))
			if err == nil {
				t.Fatalf("RenderGateway = %v, want error %q", out.Objects, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %q\nwant %q", err, tt.want)
			}
			if re := renderErr(t, err); re.Line != tt.line {
				t.Errorf("Line = %d, want %d", re.Line, tt.line)
			}
		})
	}
}

var _ = render.Compile
