package desired_test

import (
	"strings"
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/render"
)

// A render over its budget is RenderFailed on the Gateway (or on the route whose values blew
// it), naming the template and the budget.
func TestRenderBudgetIsRenderFailed(t *testing.T) {
	bp := blueprint(map[string]string{"loop": `{{ range until (int .Values.n) }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-{{ . }}
{{ end }}`}, `{"n": 3}`)
	gw := gateway("web")
	// A tenant raises n past the object budget.
	policy := gatewayConfig(ns, "many", target("Gateway", "web"), `{"n": 100}`, "")
	_, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: bp, GatewayConfigs: []*v1alpha1.GatewayConfig{policy}, Limits: render.Limits{MaxObjects: 50}})
	if err == nil {
		t.Fatal("100 objects rendered under a budget of 50")
	}
	desiredError(t, err, desired.ReasonRenderFailed)
	for _, want := range []string{"gatewayTemplate.resourceTemplates.loop", "objects: more than 50 objects"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: bp, GatewayConfigs: []*v1alpha1.GatewayConfig{policy}, Limits: render.Limits{MaxObjects: 100}})
	if err != nil || len(res.Objects) != 100 {
		t.Fatalf("within the budget: %v", err)
	}
}
