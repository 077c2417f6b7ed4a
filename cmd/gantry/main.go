// Command gantry is Gantry's one binary: `gantry render` renders Gateways offline, `gantry
// controller` runs the controller.
package main

import (
	"os"

	"gantry.dev/gantry/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
