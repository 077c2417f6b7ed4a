// Package cli holds gantry's commands. Each is built by a function taking its output streams,
// so tests run the real command and compare what a user would see.
package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	ExitOK     = 0
	ExitFailed = 1
	ExitUsage  = 2
)

// UsageError is a mistake in how the command was called.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usagef(format string, args ...any) error { return &UsageError{Err: fmt.Errorf(format, args...)} }

// errReported is returned after the command already printed its errors.
var errReported = errors.New("errors reported above")

// NewRoot is the gantry command with its subcommands.
func NewRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "gantry",
		Short:         "Gantry provisions the infrastructure behind Gateway API Gateways from blueprints",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{Err: err} })
	root.AddCommand(newRenderCommand(stdin, stdout, stderr), newDiffCommand(stdin, stdout, stderr), newExplainCommand(stdout), newLintCommand(stdin, stdout, stderr), newControllerCommand(stderr), newPlaygroundCommand(stdout, stderr), newRolloutCommand(stdout))
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
	if name != root.Name() {
		root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: name}
	}
	root.AddCommand(extra...)
	root.SetArgs(args)
	err := root.Execute()
	var usage *UsageError
	var exit *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errReported), errors.Is(err, errChanges):
		return ExitFailed
	case errors.As(err, &exit):
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exit.Code
	case errors.As(err, &usage) || isCobraUsage(err):
		fmt.Fprintf(stderr, "Error: %v\nRun '%s %s --help' for usage.\n", err, name, subcommand(args))
		return ExitUsage
	default:
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return ExitFailed
	}
}

// isCobraUsage recognises cobra's own argument errors (unknown command, bad args).
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func subcommand(args []string) string {
	for _, a := range args {
		if a != "" && a[0] != '-' {
			return a
		}
	}
	return ""
}
