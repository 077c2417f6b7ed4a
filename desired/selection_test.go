package desired_test

import (
	"strings"
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// TestTenantStringSelectsNoPlatformEntry: the second review's data selection. With
// `index .Values.secrets .Values.key`, a tenant's `key: admin` printed the platform's entry
// `admin` (or any other): stand-ins were by value, so the platform's key `admin` got the same
// stand-in as the tenant's string and the lookup succeeded in every render. Keys are replaced
// where the tenant wrote them only now: with a stand-in, the lookup finds nothing, and the
// render fails naming the tenant's value. A key the tenant wrote itself is still looked up.
func TestTenantStringSelectsNoPlatformEntry(t *testing.T) {
	for _, line := range []string{
		`v: {{ index .Values.secrets .Values.key | quote }}`,
		`v: {{ tpl (printf "{{ index .Values.secrets %q }}" .Values.key) . | quote }}`,
	} {
		t.Run(line, func(t *testing.T) {
			bp := blueprint(map[string]string{"cm": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  " + line + "\n"}, `{}`)
			bp.Spec.Values.Override = rawJSON(`{"secrets": {"admin": "hunter2", "user": "pw"}}`)
			policy := gatewayConfig(ns, "pick", target("Gateway", "web"), `{"key": "admin"}`, "")
			res, err := desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(), Blueprint: bp, GatewayConfigs: []*v1alpha1.GatewayConfig{policy}})
			if err == nil {
				t.Fatalf("rendered %v, want the lookup by the tenant's string refused", res.Objects[0].Object["data"])
			}
			if strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "GatewayConfig team-a/pick value key") {
				t.Errorf("error %v, want one naming the tenant's value and showing no secret", err)
			}
		})
	}
	// The tenant's own map, looked up by the tenant's own key, renders.
	bp := blueprint(map[string]string{"cm": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  v: {{ index .Values.mine .Values.key | quote }}\n"}, `{}`)
	policy := gatewayConfig(ns, "pick", target("Gateway", "web"), `{"key": "admin", "mine": {"admin": "ok"}}`, "")
	res, err := desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(), Blueprint: bp, GatewayConfigs: []*v1alpha1.GatewayConfig{policy}})
	if err != nil {
		t.Fatalf("Gateway: %v", err)
	}
	if got := res.Objects[0].Object["data"].(map[string]any)["v"]; got != "ok" {
		t.Errorf("v = %v, want ok", got)
	}
}
