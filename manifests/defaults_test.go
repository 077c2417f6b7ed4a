package manifests_test

import (
	"reflect"
	"strings"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/manifests"
)

// TestAPIServerDefaults: offline inputs get the defaults the API server applies from the CRD
// schemas: a listener's allowedRoutes, a parentRef's group and kind, a policy's targetRef group.
func TestAPIServerDefaults(t *testing.T) {
	in := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: internet
  listeners:
  - {name: http, port: 80, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: team-a}
spec:
  parentRefs:
  - name: web
  rules:
  - backendRefs:
    - {name: shop, port: 8080}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: internet}
spec:
  controllerName: gantry.dev/gateway-controller
`
	set, err := manifests.Load([]string{"-"}, strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	l := set.Gateways[0].Spec.Listeners[0]
	same := gwv1.NamespacesFromSame
	wantRoutes := &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: &same}}
	if !reflect.DeepEqual(l.AllowedRoutes, wantRoutes) {
		t.Errorf("listener allowedRoutes = %+v, want %+v", l.AllowedRoutes, wantRoutes)
	}
	p := set.Routes[0].Spec.ParentRefs[0]
	if p.Group == nil || *p.Group != gwv1.GroupName || p.Kind == nil || *p.Kind != "Gateway" {
		t.Errorf("parentRef group %v kind %v, want %s Gateway", p.Group, p.Kind, gwv1.GroupName)
	}
	b := set.Routes[0].Spec.Rules[0].BackendRefs[0]
	if b.Kind == nil || *b.Kind != "Service" || b.Group == nil || *b.Group != "" {
		t.Errorf("backendRef group %v kind %v, want core Service", b.Group, b.Kind)
	}
	if m := set.Routes[0].Spec.Rules[0].Matches; len(m) != 1 || m[0].Path == nil || *m[0].Path.Value != "/" {
		t.Errorf("rule matches = %+v, want the default path prefix /", m)
	}
}
