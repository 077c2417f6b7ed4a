// Package command holds what gantry's two binaries share: the controller command, the render
// budget flags, usage errors and exit codes. The controller's own binary (cmd/gantry-controller,
// what the image ships) is built from this package alone, so it must not import the CLI's
// dependencies (Helm, kustomize, cli-runtime, envtest): each is megabytes of code and data the
// controller would map and initialise for nothing (TestControllerBinaryDependencies).
package command

import (
	"errors"
	"fmt"
	"io"
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

// Usagef is a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ErrReported ends a command that already printed its errors (exit 1, nothing more printed).
// Errors that wrap it end the same way.
var ErrReported = errors.New("errors reported above")

// ExitError ends a command with a code of its own (diff's errors exit 2, as kubectl diff's).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// NewRoot is a gantry root command without subcommands, writing to the given streams.
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
	return root
}

// NewControllerRoot is the root of the controller's own binary (cmd/gantry-controller, what the
// image ships): `gantry controller` and nothing else. Another command of the CLI is an error
// that says where that command is, rather than cobra's "unknown command".
func NewControllerRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := NewRoot(stdin, stdout, stderr)
	root.Short = "The Gantry controller (this binary carries only `gantry controller`; the gantry CLI has the other commands)"
	root.Args = cobra.ArbitraryArgs
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%q is not a command of this binary, which runs only `gantry controller` (the controller's image); the gantry CLI (cmd/gantry) has the others", args[0])}
	}
	root.AddCommand(NewController(stderr))
	return root
}

// Execute runs root with args and returns the process exit code, having printed the error if
// there was one. name is what the command answers to in its errors ("gantry", or "kubectl
// gantry" as a kubectl plugin).
func Execute(root *cobra.Command, name string, args []string, stderr io.Writer) int {
	if name != root.Name() {
		root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: name}
	}
	root.SetArgs(args)
	err := root.Execute()
	var usage *UsageError
	var exit *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrReported):
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
