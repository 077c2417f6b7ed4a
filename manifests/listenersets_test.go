package manifests_test

import (
	"strings"
	"testing"

	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/manifests"
)

// TestListenerSetsOffline: `gantry render` reads ListenerSets from the manifests and gives them
// to the render as the controller does: the attached ones reach .ListenerSets and .Hostnames.
func TestListenerSetsOffline(t *testing.T) {
	in := `apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: proxy}
spec:
  gatewayTemplate:
    resourceTemplates:
      config: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ .Gateway.metadata.name }}}
        data:
          sets: {{ range .ListenerSets }}{{ .metadata.name }}{{ end }}
          hosts: {{ join "," .Hostnames.Union | quote }}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: internet}
spec:
  controllerName: gantry.dev/gateway-controller
  parametersRef: {group: gateway.gantry.dev, kind: GatewayClassBlueprint, name: proxy}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: internet
  allowedListeners: {namespaces: {from: Same}}
  listeners:
  - {name: http, port: 80, protocol: HTTP, hostname: web.example.com}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: shop, namespace: team-a}
spec:
  parentRef: {name: web}
  listeners:
  - {name: shop, port: 80, protocol: HTTP, hostname: shop.example.com}
`
	set, err := manifests.Load([]string{"-"}, strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	res, err := desired.Gateway(set.Input(set.Gateways[0], ""))
	if err != nil {
		t.Fatal(err)
	}
	data := res.Objects[0].Object["data"].(map[string]any)
	if data["sets"] != "shop" || data["hosts"] != "shop.example.com,web.example.com" {
		t.Errorf("rendered %v, want the ListenerSet and both hostnames", data)
	}
}
