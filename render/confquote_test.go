package render_test

import (
	"errors"
	"strings"
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// TestConfigQuotingInTemplates: a blueprint quotes a tenant's string for nginx or HAProxy with
// nginxQuote/haproxyQuote; a string the language cannot carry fails the render naming the
// tenant value (a route's, on a shared Gateway, is then set apart), never the string itself.
func TestConfigQuotingInTemplates(t *testing.T) {
	tmpl := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  nginx.conf: {{ printf \"return 200 %s;\" (nginxQuote .Values.body) | quote }}\n  haproxy.cfg: {{ printf \"string %s\" (haproxyQuote .Values.body) | quote }}\n"
	b, err := render.Compile("bp", &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{"conf": tmpl}}})
	if err != nil {
		t.Fatal(err)
	}
	in := func(body string) *render.Input {
		values := map[string]any{"body": body}
		return &render.Input{Values: values, Gateway: map[string]any{}, Namespace: "team-a",
			Tainted: boundary.TaintedStrings(values, func(p string) string { return "GatewayConfig team-a/p value " + p })}
	}
	out, err := b.RenderGateway(in(`it's "}; evil; #`))
	if err != nil {
		t.Fatal(err)
	}
	data := out.Objects[0].Object["data"].(map[string]any)
	if got := data["nginx.conf"]; got != `return 200 "it's \"}; evil; #";` {
		t.Errorf("nginx.conf = %q", got)
	}
	if got := data["haproxy.cfg"]; got != `string 'it'\''s "}; evil; #'` {
		t.Errorf("haproxy.cfg = %q", got)
	}
	_, err = b.RenderGateway(in("pay $secret"))
	var e *render.Error
	if !errors.As(err, &e) || e.Origin != "GatewayConfig team-a/p value body" || !strings.Contains(e.Msg, `"$"`) || strings.Contains(err.Error(), "secret") {
		t.Errorf("a string nginx cannot carry: %v; want an error naming the value, not showing it", err)
	}
}
