package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"gantry.dev/gantry/internal/testenv"
)

// TestLint: issue 21. A blueprint alone gave `no Gateway of a Gantry class … in the manifests`;
// gantry lint checks it with a synthetic Gateway of each protocol it serves: the ready
// blueprints pass (with the platform's values they leave out given by --set), a broken one
// fails naming each template and line, and a required platform value is named when missing.
func TestLint(t *testing.T) {
	root := testenv.Root()
	for _, bp := range []string{"nginx", "haproxy", "proxy"} {
		code, out, errOut := gantry("lint", filepath.Join(root, "blueprints", bp, "blueprint.yaml"))
		if code != 0 || !strings.Contains(out, "blueprint "+bp+": ok") {
			t.Errorf("lint %s: exit %d:\n%s%s", bp, code, out, errOut)
		}
	}
	code, out, errOut := gantry("lint", filepath.Join(root, "blueprints", "lb-in-front", "blueprint.yaml"))
	if code != 1 || !strings.Contains(errOut, "child.gatewayClassName must name the GatewayClass") {
		t.Errorf("lb-in-front without its platform values: exit %d:\n%s%s", code, out, errOut)
	}
	code, out, errOut = gantry("lint", filepath.Join(root, "blueprints", "lb-in-front", "blueprint.yaml"),
		"--set", "child.gatewayClassName=internal,certificate.issuerRef.name=le,ingress.className=nginx")
	if code != 0 {
		t.Errorf("lb-in-front with them: exit %d:\n%s%s", code, out, errOut)
	}
	code, _, errOut = gantry("lint", filepath.Join(root, "samples", "broken-blueprint", "blueprint.yaml"))
	if code != 1 || !strings.Contains(errOut, "gatewayTemplate.resourceTemplates.deployment:9: function \"defualt\" not defined") ||
		!strings.Contains(errOut, "gatewayTemplate.resourceTemplates.service:13") {
		t.Errorf("broken: exit %d, stderr:\n%s", code, errOut)
	}
}
