package samples_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gantry.dev/gantry/internal/cli"
	"gantry.dev/gantry/internal/golden"
)

// TestGolden renders every scenario from the repository root, as the READMEs tell users to,
// so that the command in each golden file is the one a user types.
func TestGolden(t *testing.T) {
	scenarios := scenarios(t)
	t.Chdir("..")
	for _, s := range scenarios {
		dir := "samples/" + s
		t.Run(s, func(t *testing.T) {
			golden.Check(t, "samples/testdata/"+s+".out.yaml", golden.Render(t, dir))
		})
		t.Run(s+"/explain", func(t *testing.T) {
			golden.Check(t, "samples/testdata/"+s+".explain.out.yaml", golden.Render(t, dir, "--explain"))
		})
	}
}

// TestReadmes checks that every scenario explains itself, and that the output pasted in
// README.md after a line `$ gantry render ...` is what that command prints today.
func TestReadmes(t *testing.T) {
	// The guides in docs/ are checked the same way.
	readmes := []string{"README.md", "../docs/blueprints.md", "../docs/tenants.md"}
	for _, s := range scenarios(t) {
		readmes = append(readmes, filepath.Join(s, "README.md"))
	}
	for _, readme := range readmes {
		b, err := os.ReadFile(readme)
		if err != nil {
			t.Errorf("every scenario needs a README: %v", err)
			continue
		}
		for _, ex := range golden.Examples(string(b)) {
			t.Run(readme+": "+ex.Command, func(t *testing.T) {
				t.Chdir("..")
				var stdout, stderr bytes.Buffer
				cli.Run(strings.Fields(ex.Command), strings.NewReader(""), &stdout, &stderr)
				if got := stderr.String() + stdout.String(); got != ex.Output {
					t.Errorf("samples/%s shows output for `gantry %s` that the command no longer prints; paste this instead:\n%s", readme, ex.Command, got)
				}
			})
		}
	}
}

// scenarios lists the scenario folders.
func scenarios(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "testdata" {
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		t.Fatal("no scenarios")
	}
	return out
}
