// Package samples holds runnable scenarios, one folder each: the blueprints, classes, Gateways
// and policies of a story, and a README saying what to look at. Each folder is a complete input
// for `gantry render samples/<scenario>`, run from the repository root.
//
// The golden tests render every scenario as a user would, plainly and with --explain, and
// compare the result with testdata/<scenario>.out.yaml and testdata/<scenario>.explain.out.yaml;
// scenarios that fail show the exit code and the error a user sees. `go test ./samples/ -update`
// rewrites them; review the diff against DESIGN.md's precedence rules before committing it.
package samples
