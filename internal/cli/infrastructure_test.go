package cli_test

import (
	"strings"
	"testing"
)

// TestRenderInfrastructure: gantry render shows what the controller does with a Gateway's
// spec.infrastructure: its labels and annotations on the rendered objects, and the GatewayConfig
// its parametersRef names applied to it.
func TestRenderInfrastructure(t *testing.T) {
	manifests := `apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bp}
spec:
  values: {default: {size: small}}
  gatewayTemplate:
    resourceTemplates:
      cm: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ .Gateway.metadata.name }}}
        data: {size: {{ .Values.size | quote }}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: c}
spec:
  controllerName: gantry.dev/gateway-controller
  parametersRef: {group: gateway.gantry.dev, kind: GatewayClassBlueprint, name: bp}
---
apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayConfig
metadata: {name: big, namespace: team-a}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: other}
  default: {size: big}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: c
  infrastructure:
    labels: {team: a}
    annotations: {example.com/note: hello}
    parametersRef: {group: gateway.gantry.dev, kind: GatewayConfig, name: big}
  listeners: [{name: http, port: 80, protocol: HTTP}]
`
	code, out, errOut := run(t, manifests, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"team: a", "example.com/note: hello", "size: big"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
