package cli_test

import (
	"bytes"
	"strings"
	"testing"

	"gantry.dev/gantry/internal/cli"
)

// TestPluginName: installed as kubectl-gantry, the binary's help and errors name the command
// kubectl users type.
func TestPluginName(t *testing.T) {
	if got := cli.NameFor("/usr/local/bin/kubectl-gantry"); got != "kubectl gantry" {
		t.Errorf("NameFor(kubectl-gantry) = %q", got)
	}
	if got := cli.NameFor("./bin/gantry"); got != "gantry" {
		t.Errorf("NameFor(gantry) = %q", got)
	}
	var out, errOut bytes.Buffer
	cli.RunAs("kubectl gantry", []string{"diff", "--help"}, strings.NewReader(""), &out, &errOut)
	if !strings.Contains(out.String(), "kubectl gantry diff [FILE|FOLDER|-]...") {
		t.Errorf("help does not name the plugin:\n%s", out.String())
	}
	out.Reset()
	code := cli.RunAs("kubectl gantry", []string{"diff", "--output", "xml"}, strings.NewReader(""), &out, &errOut)
	if code != cli.ExitUsage || !strings.Contains(errOut.String(), "Run 'kubectl gantry diff --help'") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}
