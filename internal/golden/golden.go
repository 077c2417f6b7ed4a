// Package golden compares output with reviewed golden files: testdata/NAME.in.yaml is the
// input, testdata/NAME.out.yaml what a user would see. `go test ./... -update` rewrites the
// .out.yaml files; review the diff before committing it.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gantry.dev/gantry/internal/cli"
)

var update = flag.Bool("update", false, "rewrite golden .out.yaml files instead of comparing")

// Check compares got with the file at path, or rewrites it under -update.
func Check(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run with -update and review the diff):\n%s", path, diff(string(want), string(got)))
	}
}

// diff shows the first lines where want and got part.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  want: %q\n  got:  %q", i+1, wl, gl)
		}
	}
	return "(identical lines; trailing bytes differ)"
}

// Render runs `gantry render ARGS...` as a user would and returns what they see: the exit code,
// stdout and stderr, in one text.
func Render(t *testing.T, args ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Run(append([]string{"render"}, args...), strings.NewReader(""), &stdout, &stderr)
	var b bytes.Buffer
	fmt.Fprintf(&b, "# gantry render %s\n# exit code: %d\n", strings.Join(relative(args), " "), code)
	if stderr.Len() > 0 {
		for _, l := range strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n") {
			fmt.Fprintf(&b, "# stderr: %s\n", l)
		}
	}
	b.Write(stdout.Bytes())
	return b.Bytes()
}

func relative(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = filepath.ToSlash(a)
	}
	return out
}

// Cases lists the golden cases in dir: the NAME of every testdata/NAME.in.yaml.
func Cases(t *testing.T, dir string) []string {
	t.Helper()
	ins, err := filepath.Glob(filepath.Join(dir, "testdata", "*.in.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) == 0 {
		t.Fatalf("no golden cases in %s/testdata", dir)
	}
	names := make([]string, len(ins))
	for i, in := range ins {
		names[i] = strings.TrimSuffix(filepath.Base(in), ".in.yaml")
	}
	return names
}

// Diff shows the first line where want and got part.
func Diff(want, got string) string { return diff(want, got) }
