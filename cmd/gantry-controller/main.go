// Command gantry-controller is the controller alone, the binary the image ships as /gantry:
// `gantry controller` and its flags, without the CLI's other commands and their dependencies
// (Helm, kustomize, cli-runtime, envtest). It maps and initialises about 12 MB less code and
// data than cmd/gantry, which the controller's resident memory pays for (docs/performance.md).
package main

import (
	"os"

	"gantry.dev/gantry/internal/command"
)

func main() {
	root := command.NewControllerRoot(os.Stdin, os.Stdout, os.Stderr)
	os.Exit(command.Execute(root, "gantry", os.Args[1:], os.Stderr))
}
