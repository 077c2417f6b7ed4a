package render_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// TestTenantTextNeverRunsAsCode: issue 19's tpl attack. `{{ tpl .Values.greeting . }}` with a
// tenant greeting of `{{ fail (toJson $.Values) }}` ran in the real render before any check,
// and its error, holding a platform override's secret, reached the Gateway's status. Text that
// carries tenant content and holds an action is now refused before it runs, however the
// template built it; the error names the tenant value and shows no value. Text alone, and the
// platform's own template text with tenant values in it, still run.
func TestTenantTextNeverRunsAsCode(t *testing.T) {
	const secret = "s3cr3t-platform-token"
	payload := `{{ fail (printf "RAN %s" (toJson $.Values)) }}`
	refused := []struct{ name, line, value string }{
		{"as it is", "k: {{ tpl .Values.v . | quote }}", payload},
		{"after b64dec", "k: {{ tpl (.Values.v | b64dec) . | quote }}", base64.StdEncoding.EncodeToString([]byte(payload))},
		{"inside the platform's text", `k: {{ tpl (printf "hello %s" .Values.v) . | quote }}`, payload},
		{"after replace", `k: {{ tpl (.Values.v | replace "[[" "{{") . | quote }}`, strings.ReplaceAll(payload, "{{", "[[")},
		{"a field name", `k: {{ tpl (printf "{{ .Values.%s }}" .Values.v) . | quote }}`, "token"},
		{"a define", "k: {{ tpl .Values.v . | quote }}", `{{ define "x" }}{{ fail "RAN" }}{{ end }}`},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("cm", tt.line)}))
			in := input(map[string]any{"v": tt.value, "token": secret})
			in.Tainted = boundary.TaintedStrings(map[string]any{"v": tt.value}, tenant)
			out, err := b.RenderGateway(in)
			if err == nil {
				t.Fatalf("RenderGateway = %v, want the tenant's code refused", out.Objects[0].Object["data"])
			}
			if strings.Contains(err.Error(), "RAN") || strings.Contains(err.Error(), secret) {
				t.Fatalf("the tenant's code ran, or its error shows a platform value: %v", err)
			}
			var e *render.Error
			if !asError(err, &e) || e.Origin != tenant("v") || !strings.Contains(e.Msg, "refused to run this text") {
				t.Fatalf("error %v, want the refusal naming %s", err, tenant("v"))
			}
		})
	}
	allowed := []struct{ name, line, want string }{
		{"tenant text alone", "k: {{ tpl .Values.v . | quote }}", "web and more"},
		// The template spells .Values.v: a tenant key is kept as it is in the stand-in render
		// only where the blueprint's templates name it, not where a platform value does.
		{"the platform's text with a tenant value in it", "k: {{ tpl .Values.greeting . | quote }}{{ $_ := .Values.v }}", "hello web and more"},
		{"the platform's text built around a tenant value", `k: {{ tpl (printf "{{ %q | upper }}" .Values.v) . | quote }}`, "WEB AND MORE"},
	}
	for _, tt := range allowed {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("cm", tt.line)}))
			in := input(map[string]any{"v": "web and more", "greeting": "hello {{ .Values.v }}"})
			in.Tainted = boundary.TaintedStrings(map[string]any{"v": "web and more"}, tenant)
			out, err := b.RenderGateway(in)
			if err != nil {
				t.Fatalf("RenderGateway: %v", err)
			}
			if got := out.Objects[0].Object["data"].(map[string]any)["k"]; got != tt.want {
				t.Errorf("k = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestErrorsShowNoPlatformValues: a tenant who makes a render fail reads the error in its
// Gateway's or route's status. Whatever the tenant sends, the error must not show a platform
// value the template put next to the tenant's: Gantry's messages name templates, lines,
// documents and the tenant value's origin, never content.
func TestErrorsShowNoPlatformValues(t *testing.T) {
	const secret = "s3cr3t-platform-token"
	lines := []string{
		"token: {{ .Values.token }}",
		"k: {{ .Values.v }}",
		"t2: {{ .Values.token | quote }}",
		"{{ .Values.v }}: x",
		"n: {{ int .Values.v }}",
		"l: {{ index (list .Values.token) (len .Values.v) }}",
		"t: {{ tpl .Values.v . }}",
	}
	for _, v := range []string{
		"x\n---\nkind: Secret", "'x", "\"x", "x: y: z", "[x", "{x", "x #", "on", "token", "~",
		"{{ .Values.token }}", "{{ fail .Values.token }}", "0x1F", "&a x", "*a", "<<", "x\ttoken: y",
	} {
		for _, line := range lines {
			b := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("cm", "owner: platform", line)}))
			in := input(map[string]any{"v": v, "token": secret})
			in.Tainted = boundary.TaintedStrings(map[string]any{"v": v}, tenant)
			_, err := b.RenderGateway(in)
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Errorf("line %q, value %q: the error shows the platform's value: %v", line, v, err)
			}
		}
	}
}

// TestPlatformTemplateTextFindsItsKeys: the review's false alarm. A platform value run through
// tpl (`motd: "Welcome to {{ .Gateway.metadata.name }}"`) names keys the blueprint's templates
// do not spell: the stand-in renders renamed them (they are tenant keys of the Gateway), so
// the text failed there and was refused in the real render. Names spelled by the platform's
// own template texts are kept now.
func TestPlatformTemplateTextFindsItsKeys(t *testing.T) {
	b := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("cm", "motd: {{ tpl .Values.motd . | quote }}", "nested: {{ tpl (tpl .Values.wrap .) . | quote }}")}))
	values := map[string]any{"motd": "Welcome to {{ .Gateway.metadata.name }}", "wrap": "{{ .Values.inner }}", "inner": "hello", "x": int64(1)}
	in := input(values)
	in.Tainted = boundary.TaintedStrings(map[string]any{"x": int64(1)}, tenant)
	in.Tainted = append(in.Tainted, boundary.TaintedStrings(in.Gateway, func(p string) string { return "Gateway team-a/web field " + p })...)
	out, err := b.RenderGateway(in)
	if err != nil {
		t.Fatalf("RenderGateway: %v", err)
	}
	data := out.Objects[0].Object["data"].(map[string]any)
	if data["motd"] != "Welcome to web" || data["nested"] != "hello" {
		t.Errorf("data = %v", data)
	}
}
