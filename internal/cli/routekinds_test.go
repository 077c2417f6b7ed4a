package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gantry.dev/gantry/internal/cli"
)

// tcpManifests: a blueprint with a tcpRouteTemplate, a Gateway with a TCP listener, a TCPRoute
// attached to it, and a GatewayConfig for the TCPRoute (levels 6–7 for a TCPRoute).
const tcpManifests = `apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: tcp
spec:
  listenerProtocols: [TCP]
  values:
    default:
      port: 1
  gatewayTemplate:
    resourceTemplates:
      own: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: own
  tcpRouteTemplate:
    resourceTemplates:
      forward: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: forward-{{ .TCPRoute.metadata.name }}
        data:
          port: {{ .Values.port | quote }}
          backend: {{ (index .Backends 0).name | quote }}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: tcp
spec:
  controllerName: gantry.dev/gateway-controller
  parametersRef:
    group: gateway.gantry.dev
    kind: GatewayClassBlueprint
    name: tcp
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: edge
  namespace: team-a
spec:
  gatewayClassName: tcp
  listeners:
  - name: db
    protocol: TCP
    port: 5432
---
apiVersion: gateway.networking.k8s.io/v1
kind: TCPRoute
metadata:
  name: db
  namespace: team-a
spec:
  parentRefs:
  - name: edge
  rules:
  - backendRefs:
    - name: postgres
      port: 5432
---
apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayConfig
metadata:
  name: db-port
  namespace: team-a
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: TCPRoute
    name: db
  default:
    port: 5432
`

// TestRenderTCPRouteTemplate: issue 20. `gantry render` renders a TCPRoute's own template with
// the GatewayConfig that targets it, says which template and route each object came from,
// writes it under tcproutes/ with --output-dir, and --explain shows the route's values.
func TestRenderTCPRouteTemplate(t *testing.T) {
	code, out, errOut := run(t, tcpManifests, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"# Source: tcp/tcpRouteTemplate/forward (TCPRoute team-a/db)",
		"name: forward-db",
		`port: "5432"`,
		`backend: postgres`,
		"gateway.gantry.dev/tcproute-name: db",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	code, out, errOut = run(t, tcpManifests, "-", "--explain")
	if code != 0 {
		t.Fatalf("--explain: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "TCPRoute team-a/db on team-a/edge") || !strings.Contains(out, "GatewayConfig team-a/db-port") {
		t.Errorf("--explain does not show the TCPRoute's values and their policy:\n%s", out)
	}

	dir := t.TempDir()
	if code, _, errOut := run(t, tcpManifests, "-", "--output-dir", dir); code != 0 {
		t.Fatalf("--output-dir: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "team-a", "edge", "tcproutes", "team-a", "db", "forward.yaml"))
	if err != nil || !bytes.Contains(b, []byte("name: forward-db")) {
		t.Errorf("tcproutes/team-a/db/forward.yaml: %v\n%s", err, b)
	}
}

// TestLintRouteTemplateNoListenerAccepts: a route template for a kind no listener protocol of
// the blueprint accepts can never render; lint says so, and renders the kinds that can.
func TestLintRouteTemplateNoListenerAccepts(t *testing.T) {
	bp := strings.SplitN(tcpManifests, "\n---\n", 2)[0] + `
  udpRouteTemplate:
    resourceTemplates:
      dns: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: dns-{{ .UDPRoute.metadata.name }}
`
	file := filepath.Join(t.TempDir(), "bp.yaml")
	if err := os.WriteFile(file, []byte(bp), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := cli.Run([]string{"lint", file}, strings.NewReader(""), &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), "udpRouteTemplate never renders: no listener protocol of the blueprint (TCP) accepts UDPRoutes") {
		t.Errorf("stderr %q does not warn of the UDPRoute template", errOut.String())
	}
	if !strings.Contains(out.String(), "ok (2 objects") {
		t.Errorf("stdout %q: want the Gateway's object and the TCPRoute's", out.String())
	}
}

// TestLintStrictAndClusterScopedKinds: issue 21. lint warns of clusterScopedKinds entries that
// name a namespaced kind or none the API server serves, names the kinds it emitted, and with
// --strict, as Helm's, a warning fails it.
func TestLintStrictAndClusterScopedKinds(t *testing.T) {
	bp := strings.SplitN(tcpManifests, "\n---\n", 2)[0] + `
  clusterScopedKinds:
  - {group: apps, kind: Deployment}
  - {group: rbac.authorization.k8s.io, kind: ClusterRoleBindng}
  - {group: rbac.authorization.k8s.io, kind: ClusterRole}
  - {group: example.com, kind: Widget}
`
	file := filepath.Join(t.TempDir(), "bp.yaml")
	if err := os.WriteFile(file, []byte(bp), 0o644); err != nil {
		t.Fatal(err)
	}
	lint := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := cli.Run(append([]string{"lint", file}, args...), strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	code, out, errOut := lint()
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{
		"clusterScopedKinds: Deployment.apps is namespaced",
		"clusterScopedKinds: ClusterRoleBindng.rbac.authorization.k8s.io is not a kind the API server serves",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "ClusterRole.rbac") || strings.Contains(errOut, "Widget") {
		t.Errorf("warned of a cluster-scoped built-in or a kind of another group:\n%s", errOut)
	}
	if !strings.Contains(out, "2 v1 ConfigMap") {
		t.Errorf("stdout does not name the kinds emitted: %s", out)
	}
	if code, out, errOut := lint("--strict"); code != 1 || !strings.Contains(errOut, "2 warnings, and --strict") {
		t.Errorf("--strict: exit %d:\n%s%s", code, out, errOut)
	}
}
