// Command gantry is Gantry's CLI: `gantry render` renders Gateways offline, `gantry diff` and
// `gantry explain` look at a cluster, `gantry controller` runs the controller (the image ships
// the controller alone, cmd/gantry-controller). Named kubectl-gantry on the PATH, it is a kubectl
// plugin.
package main

import (
	"os"

	"gantry.dev/gantry/internal/cli"
)

func main() {
	// Installed as kubectl-gantry, it is a kubectl plugin: `kubectl gantry diff ...`.
	os.Exit(cli.RunAs(cli.NameFor(os.Args[0]), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
