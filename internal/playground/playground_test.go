package playground_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gantry.dev/gantry/internal/playground"
	"gantry.dev/gantry/internal/testenv"
)

// TestOnce runs the README's playground on the flagship sample, as `make demo` does with
// --once, and checks that it shows what a newcomer is promised: the objects applied, a
// programmed Gateway, and values with the policy that set them.
func TestOnce(t *testing.T) {
	var out bytes.Buffer
	err := playground.Run(t.Context(), &out, playground.Options{
		Paths:      []string{filepath.Join(testenv.Root(), "samples", "defaults-vs-overrides")},
		Once:       true,
		Kubeconfig: filepath.Join(t.TempDir(), "kubeconfig"),
		Timeout:    2 * time.Minute,
	})
	if err != nil {
		t.Fatalf("playground: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"======== Gateway team-a/web (class internet) ========",
		"Deployment team-a/web (template deployment)",
		"Service team-a/web (template service)",
		"type: Programmed",
		"reason: Programmed",
		"GatewayClassConfig gantry-system/internet-global",
		"======== Gateway team-b/api (class internet) ========",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "status: \"True\"") < 2 {
		t.Errorf("expected True conditions in the output:\n%s", got)
	}
}
