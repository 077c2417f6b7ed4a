// Package render turns a blueprint's Go templates and a Gateway's context into Kubernetes
// objects. It is pure: plain inputs, plain outputs, no client.
//
// The engine is small and sealed, after Helm's pkg/engine: sprig without anything that reads
// the environment, the network, the clock or a random source (a controller re-renders all the
// time, and output that changes by itself would be written again and again); absent values
// that are nil, as in Helm, but an error when printed unhandled (absent.go); template panics
// become errors; `include` and `tpl` recursion is capped; errors name the blueprint, the
// template field and the line.
//
// Tenant values are data. Output is split into documents on separator lines only, every
// document must be a whole object, and namespaced objects land in the Gateway's (or route's)
// namespace. Whether a tenant value shaped the output is package boundary's to decide: a render
// with tenant values (Input.Tainted) runs its templates again for it with stand-ins (check.go
// is the engine's side), and a refusal fails the render with an error naming the value's
// origin.
package render
