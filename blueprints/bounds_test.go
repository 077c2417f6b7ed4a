package blueprints_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/internal/cli"
	"gantry.dev/gantry/manifests"
)

// TestTenantValuesAreBounded: each ready blueprint's values schema bounds what a tenant's
// GatewayConfig can add (how many keys, how long a string, how many items), so that a tenant
// cannot make a shared render large. A GatewayConfig over a bound is refused naming the path.
func TestTenantValuesAreBounded(t *testing.T) {
	many := func(n int, value string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q: %q", fmt.Sprintf("example.com/k%d", i), value)
		}
		b.WriteString("}")
		return b.String()
	}
	// list is n distinct items, from a format with two %d.
	list := func(n int, format string) string {
		items := make([]string, n)
		for i := range items {
			items[i] = fmt.Sprintf("%q", fmt.Sprintf(format, i/256, i%256))
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	long := strings.Repeat("x", 70000)
	cases := []struct{ blueprint, values, path string }{
		{"proxy", `{"service": {"annotations": ` + many(200, "v") + `}}`, "values.service.annotations"},
		{"proxy", `{"service": {"annotations": {"a": "` + long + `"}}}`, "values.service.annotations.a"},
		{"proxy", `{"image": "` + long + `"}`, "values.image"},
		{"proxy", `{"resources": {"limits": ` + many(200, "1") + `}}`, "values.resources.limits"},
		{"lb-in-front", `{"annotations": ` + many(200, "v") + `}`, "values.annotations"},
		{"lb-in-front", `{"ingress": {"annotations": {"a": "` + long + `"}}}`, "values.ingress.annotations.a"},
		{"lb-in-front", `{"child": {"gatewayClassName": "` + long + `"}}`, "values.child.gatewayClassName"},
		{"cloud-lb", `{"allowedCIDRs": ` + list(500, "10.%d.%d.0/24") + `}`, "values.allowedCIDRs"},
		{"cloud-lb", `{"subnets": ` + list(500, "subnet-%04x%04x") + `}`, "values.subnets"},
		{"cloud-lb", `{"sslPolicy": "` + long + `"}`, "values.sslPolicy"},
	}
	for _, c := range cases {
		t.Run(c.blueprint+"/"+c.path, func(t *testing.T) {
			in := fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: %[1]s}
spec:
  controllerName: gantry.dev/gateway-controller
  parametersRef: {group: gateway.gantry.dev, kind: GatewayClassBlueprint, name: %[1]s}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a}
spec:
  gatewayClassName: %[1]s
  listeners:
  - {name: http, port: 80, protocol: HTTP}
---
apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayConfig
metadata: {name: big, namespace: team-a}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: web}
  default: %[2]s
`, c.blueprint, c.values)
			file := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(file, []byte(in), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := cli.Run([]string{"render", filepath.Join(c.blueprint, "blueprint.yaml"), file}, strings.NewReader(""), &stdout, &stderr)
			if code == 0 {
				t.Fatalf("a GatewayConfig setting %s over its bound rendered", c.path)
			}
			// The controller's path: the Gateway's condition reason is InvalidValues.
			set, err := manifests.Load([]string{filepath.Join(c.blueprint, "blueprint.yaml"), file}, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = desired.Gateway(set.Input(set.Gateways[0], desired.DefaultControllerNamespace))
			var de *desired.Error
			if !errors.As(err, &de) || de.Reason != desired.ReasonInvalidValues || !strings.Contains(err.Error(), c.path+":") {
				t.Errorf("desired.Gateway: %.300v, want %s naming %s", err, desired.ReasonInvalidValues, c.path)
			}
			msg := stderr.String()
			for _, want := range []string{c.path + ":", "GatewayConfig team-a/big"} {
				if !strings.Contains(msg, want) {
					t.Errorf("stderr does not name %q:\n%.600s", want, msg)
				}
			}
		})
	}
}
