// Package cli holds gantry's commands. Each is built by a function taking its output streams,
// so tests run the real command and compare what a user would see.
package cli

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"gantry.dev/gantry/internal/command"
)

// Exit codes.
const (
	ExitOK     = command.ExitOK
	ExitFailed = command.ExitFailed
	ExitUsage  = command.ExitUsage
)

// UsageError is a mistake in how the command was called.
type UsageError = command.UsageError

func usagef(format string, args ...any) error { return command.Usagef(format, args...) }

// errReported is returned after the command already printed its errors.
var errReported = command.ErrReported

// NewRoot is the gantry command with its subcommands.
func NewRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := command.NewRoot(stdin, stdout, stderr)
	root.AddCommand(newRenderCommand(stdin, stdout, stderr), newDiffCommand(stdin, stdout, stderr), newExplainCommand(stdout), newLintCommand(stdin, stdout, stderr), command.NewController(stderr), newPlaygroundCommand(stdout, stderr), newRolloutCommand(stdout))
	return root
}

// Run executes gantry with args and returns the process exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, extra ...*cobra.Command) int {
	return RunAs("gantry", args, stdin, stdout, stderr, extra...)
}

// PluginName is the name kubectl users type when the binary is installed as kubectl-gantry.
const PluginName = "kubectl gantry"

// NameFor returns the name a binary called as argv0 answers to in help and errors: "kubectl
// gantry" as a kubectl plugin (kubectl-gantry on the PATH), else "gantry".
func NameFor(argv0 string) string {
	if strings.HasPrefix(filepath.Base(argv0), "kubectl-") {
		return PluginName
	}
	return "gantry"
}

// RunAs is Run for a command that answers to name in its help and errors.
func RunAs(name string, args []string, stdin io.Reader, stdout, stderr io.Writer, extra ...*cobra.Command) int {
	root := NewRoot(stdin, stdout, stderr)
	root.AddCommand(extra...)
	return command.Execute(root, name, args, stderr)
}
