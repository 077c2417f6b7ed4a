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

// TestRouteHostnamesOnlyWhereServed: issue 19. A tenant's route attached to a shared
// Gateway's `*.example.com` listener through one hostname it serves brought its other
// hostnames along into .Hostnames.Union and .Intersection, and so into the shared
// Certificate: `login.victim-bank.com`, `*.attacker.net`. Only what a listener serves counts.
func TestRouteHostnamesOnlyWhereServed(t *testing.T) {
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: names
data:
  union: {{ join "," .Hostnames.Union | quote }}
  intersection: {{ join "," .Hostnames.Intersection | quote }}
  attached: {{ join "," .Hostnames.Attached | quote }}
`
	l := listener("https", gwv1.HTTPProtocolType, 80, "*.example.com")
	l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	r := route("tenant", "shop", []string{"shop.example.com", "login.victim-bank.com", "*.attacker.net"}, parent())
	res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", l), Class: class(), Blueprint: blueprint(map[string]string{"names": tmpl}, `{}`), Routes: []*gwv1.HTTPRoute{r}})
	if err != nil {
		t.Fatalf("Gateway: %v", err)
	}
	data := res.Objects[0].Object["data"].(map[string]any)
	want := map[string]any{"union": "*.example.com,shop.example.com", "intersection": "*.example.com", "attached": "shop.example.com"}
	for k, v := range want {
		if data[k] != v {
			t.Errorf("%s = %v, want %q", k, data[k], v)
		}
	}
}
