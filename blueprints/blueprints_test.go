package blueprints_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gantry.dev/gantry/internal/golden"
)

// TestGolden renders every blueprint's testdata/NAME.in.yaml with `gantry render` and compares
// the result with NAME.out.yaml. A first line `# args: --explain --set a=b` adds flags.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob("*/blueprint.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no blueprints found: %v", err)
	}
	for _, bp := range dirs {
		dir := filepath.Dir(bp)
		for _, name := range golden.Cases(t, dir) {
			t.Run(dir+"/"+name, func(t *testing.T) {
				in := filepath.Join(dir, "testdata", name+".in.yaml")
				args := append([]string{bp, in}, extraArgs(t, in)...)
				golden.Check(t, filepath.Join(dir, "testdata", name+".out.yaml"), golden.Render(t, args...))
			})
		}
	}
}

func extraArgs(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	if rest, ok := strings.CutPrefix(first, "# args:"); ok {
		return strings.Fields(rest)
	}
	return nil
}
