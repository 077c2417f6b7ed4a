package cli_test

import (
	"strings"
	"testing"
)

// TestPolicyTargetRefNamespace: bifrost-gateway-controller's policies carry
// spec.targetRef.namespace, which strict decoding refused (`json: unknown field "namespace"`),
// refusing the whole file. The policy's own namespace is accepted; another applies nowhere and
// `--explain` says why.
func TestPolicyTargetRefNamespace(t *testing.T) {
	input := func(targetNS string) string {
		return `apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: bifrost
spec:
  values:
    default: {size: small}
  gatewayTemplate:
    resourceTemplates:
      cm: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: size
        data:
          size: {{ .Values.size | quote }}
` + classAndGateway("bifrost") + `---
apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayConfig
metadata:
  name: tenant
  namespace: team-a
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: web, namespace: ` + targetNS + `}
  default: {size: large}
`
	}
	code, out, errOut := run(t, input("team-a"), "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `size: "large"`) && !strings.Contains(out, "size: large") {
		t.Errorf("the policy naming its own namespace did not apply:\n%s", out)
	}
	code, out, errOut = run(t, input("team-b"), "-", "--explain")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "size: large") || strings.Contains(out, `size: "large"`) {
		t.Errorf("a policy naming another namespace applied:\n%s", out)
	}
	if !strings.Contains(out, "spec.targetRef.namespace is team-b") {
		t.Errorf("--explain does not say why the policy does not apply:\n%s", out)
	}
}
