package cli_test

import (
	"fmt"
	"strings"
	"testing"
)

// kindClass is a class whose blueprint renders one object of the given apiVersion and kind,
// listing cluster-scoped kinds given as "group/Kind".
func kindClass(apiVersion, kind string, clusterScoped ...string) string {
	list := ""
	for _, gk := range clusterScoped {
		g, k, _ := strings.Cut(gk, "/")
		list += fmt.Sprintf("\n  - {group: %q, kind: %s}", g, k)
	}
	if list != "" {
		list = "\n  clusterScopedKinds:" + list
	}
	return fmt.Sprintf(`apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: kinds
spec:%s
  gatewayTemplate:
    resourceTemplates:
      obj: |
        apiVersion: %s
        kind: %s
        metadata:
          name: x
`, list, apiVersion, kind) + classAndGateway("kinds")
}

const widgetCRD = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Cluster
  names: {kind: Widget, plural: widgets}
  versions: [{name: v1, served: true, storage: true}]
`

// Issue 7 item 6: offline and the controller agree on which kinds are namespaced,
// cluster-scoped or unknown.
func TestRenderKindScopes(t *testing.T) {
	for _, c := range []struct {
		name, in, want string // want "" succeeds
	}{
		{"List", kindClass("v1", "List"), "v1, Kind=List is not a kind the API server serves"},
		{"APIService", kindClass("apiregistration.k8s.io/v1", "APIService"), "APIService x is cluster-scoped and the blueprint does not list"},
		{"APIService listed", kindClass("apiregistration.k8s.io/v1", "APIService", "apiregistration.k8s.io/APIService"), ""},
		{"CRD of another group, namespaced by default", kindClass("example.com/v1", "Widget"), ""},
		{"CRD in the input says cluster-scoped", kindClass("example.com/v1", "Widget") + widgetCRD, "Widget x is cluster-scoped"},
		{"CRD in the input and listed", kindClass("example.com/v1", "Widget", "example.com/Widget") + widgetCRD, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := run(t, c.in, "-")
			if c.want == "" {
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				if !strings.Contains(out, "name: x") {
					t.Errorf("output lacks the object:\n%s", out)
				}
				return
			}
			if code == 0 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "gatewayTemplate.resourceTemplates.obj") {
				t.Errorf("exit %d, stderr %q; want the template and %q", code, errOut, c.want)
			}
		})
	}
}

// classAndGateway is a GatewayClass of the blueprint of the same name and a Gateway team-a/web
// of that class, as documents to follow a blueprint's.
func classAndGateway(name string) string {
	return fmt.Sprintf(`---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: %[1]s
spec:
  controllerName: gantry.dev/gateway-controller
  parametersRef: {group: gateway.gantry.dev, kind: GatewayClassBlueprint, name: %[1]s}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: web
  namespace: team-a
spec:
  gatewayClassName: %[1]s
  listeners:
  - {name: http, port: 80, protocol: HTTP}
`, name)
}
