package command

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestControllerBinaryDependencies: the controller's binary (what the image ships) leaves out the
// CLI's heavy dependencies. Each one it links is code and data the controller maps, and package
// state it initialises, for nothing: the one binary of both was 60 MB against 48 MB, and held
// more resident memory at every size (docs/performance.md).
func TestControllerBinaryDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "gantry.dev/gantry/cmd/gantry-controller").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 || !slices.Contains(deps, "sigs.k8s.io/controller-runtime") {
		t.Fatalf("go list gave %d packages without controller-runtime; the test reads nothing", len(deps))
	}
	for _, d := range deps {
		for _, banned := range []string{"helm.sh/", "sigs.k8s.io/kustomize/", "k8s.io/cli-runtime/", "sigs.k8s.io/controller-runtime/pkg/envtest", "gantry.dev/gantry/internal/cli", "gantry.dev/gantry/internal/playground"} {
			if strings.HasPrefix(d, banned) {
				t.Errorf("the controller's binary imports %s", d)
			}
		}
	}
}
