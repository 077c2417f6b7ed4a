// Package conformance runs the upstream Gateway API conformance suite
// (sigs.k8s.io/gateway-api/conformance) against Gantry on envtest: a real kube-apiserver and
// etcd, Gantry's controller in-process, and the blueprint in blueprint.yaml.
//
// `go test ./conformance` (part of `make test`) runs the core Gateway and HTTPRoute status
// tests; `make conformance` runs every test of the GATEWAY-HTTP profile and writes the GEP-1709
// report and the list of what was skipped and why to docs/conformance/.
package conformance
