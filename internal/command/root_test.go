package command

import (
	"bytes"
	"strings"
	"testing"
)

// TestControllerRoot: the controller's own binary answers `gantry controller` (its flags parse),
// prints help when called bare, and says where the CLI's other commands are, exit 2.
func TestControllerRoot(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		code      int
		stdout    string
		stderr    string
		notStderr string
	}{
		{args: nil, code: ExitOK, stdout: "controller"},
		{args: []string{"controller", "--help"}, code: ExitOK, stdout: "--kube-api-qps"},
		{args: []string{"render", "x.yaml"}, code: ExitUsage, stderr: `"render" is not a command of this binary`, notStderr: "--help"},
		{args: []string{"controller", "--no-such-flag"}, code: ExitUsage, stderr: "unknown flag: --no-such-flag"},
	} {
		var stdout, stderr bytes.Buffer
		root := NewControllerRoot(strings.NewReader(""), &stdout, &stderr)
		code := Execute(root, "gantry", tt.args, &stderr)
		if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) ||
			(tt.notStderr != "" && strings.Contains(stderr.String(), tt.notStderr)) {
			t.Errorf("gantry %q: exit %d, stdout\n%s\nstderr\n%s\nwant exit %d, stdout with %q, stderr with %q and without %q",
				tt.args, code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr, tt.notStderr)
		}
	}
}
