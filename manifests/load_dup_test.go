package manifests_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gantry.dev/gantry/manifests"
)

// TestObjectGivenTwice: issue 21. The same object in two input files silently counted once,
// the one read last; it is an error naming both places.
func TestObjectGivenTwice(t *testing.T) {
	dir := t.TempDir()
	policy := "apiVersion: gateway.gantry.dev/v1alpha1\nkind: GatewayConfig\nmetadata:\n  name: web\n  namespace: team-a\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: web}\n  default: {replicas: %s}\n"
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	if err := os.WriteFile(a, []byte(strings.Replace(policy, "%s", "2", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("---\n"+strings.Replace(policy, "%s", "3", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := manifests.Load([]string{a, b}, nil)
	if err == nil || !strings.Contains(err.Error(), "GatewayConfig team-a/web is given twice: in "+a+": document 1 (line 1) and in "+b+": document 1 (line 2)") {
		t.Errorf("Load: %v, want an error naming both places", err)
	}
	if _, err := manifests.Load([]string{a}, nil); err != nil {
		t.Errorf("one file: %v", err)
	}
}
