package cli_test

import (
	"strings"
	"testing"
)

// manyObjects is a class whose blueprint renders one ConfigMap per element of until 1500: more
// than the default object budget.
var manyObjects = `apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: many
spec:
  gatewayTemplate:
    resourceTemplates:
      configmaps: |
        {{- range until 1500 }}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cm-{{ . }}
        {{- end }}
` + classAndGateway("many")

func TestRenderBudgetFlags(t *testing.T) {
	code, out, errOut := run(t, manyObjects, "-")
	if code == 0 {
		t.Fatalf("exit 0 with the default object budget; output has %d documents", strings.Count(out, "\n---"))
	}
	for _, want := range []string{"gatewayTemplate.resourceTemplates.configmaps", "objects: more than 1000 objects", "--render-max-objects"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errOut)
		}
	}
	code, out, errOut = run(t, manyObjects, "-", "--render-max-objects", "2000")
	if code != 0 {
		t.Fatalf("exit %d with --render-max-objects 2000: %s", code, errOut)
	}
	if n := strings.Count(out, "kind: ConfigMap"); n != 1500 {
		t.Errorf("%d ConfigMaps, want 1500", n)
	}
	code, _, errOut = run(t, manyObjects, "-", "--render-max-objects", "2000", "--render-max-loop", "1000")
	if code == 0 || !strings.Contains(errOut, "until 1500 would make more than 1000 elements") {
		t.Errorf("exit %d with --render-max-loop 1000, stderr:\n%s", code, errOut)
	}
}
