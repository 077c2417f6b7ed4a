package desired_test

import (
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/desired"
)

// TestCertificateRefsFlaggedInTemplates: issue 19. A listener's certificateRef to a Secret of
// another namespace that no ReferenceGrant allows made the listener RefNotPermitted, but the
// templates saw the reference as any other and could mount the platform's Secret. Templates
// now see, on each certificateRef, whether it resolves and why not.
func TestCertificateRefsFlaggedInTemplates(t *testing.T) {
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: refs
data:
  {{- range .Gateway.spec.listeners }}
  {{- range .tls.certificateRefs }}
  {{ .name }}: "{{ .resolved }} {{ .reason }}"
  {{- end }}
  {{- end }}
`
	https := listener("https", gwv1.HTTPSProtocolType, 443, "")
	https.TLS = &gwv1.ListenerTLSConfig{CertificateRefs: []gwv1.SecretObjectReference{
		{Name: "web-tls"},
		{Name: "wildcard", Namespace: ptr(gwv1.Namespace("platform"))},
	}}
	res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", https), Class: class(), Blueprint: blueprint(map[string]string{"refs": tmpl}, `{}`)})
	if err != nil {
		t.Fatalf("Gateway: %v", err)
	}
	data := res.Objects[0].Object["data"].(map[string]any)
	want := map[string]any{"web-tls": "false InvalidCertificateRef", "wildcard": "false RefNotPermitted"}
	for k, v := range want {
		if data[k] != v {
			t.Errorf("data[%s] = %v, want %q (data %v)", k, data[k], v, data)
		}
	}
}
