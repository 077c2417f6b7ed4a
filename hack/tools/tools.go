//go:build tools

// Package tools pins the versions of the code generators the build runs. It is its own module
// so that the generators' dependencies never leak into Gantry's.
package tools

import _ "sigs.k8s.io/controller-tools/cmd/controller-gen"
