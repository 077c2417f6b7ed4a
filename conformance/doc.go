// Package conformance runs the upstream Gateway API conformance suite
// (sigs.k8s.io/gateway-api/conformance) against Gantry on envtest: a real kube-apiserver and
// etcd, Gantry's controller in-process, and the blueprint in blueprint.yaml.
//
// It runs the profiles of every route kind Gantry attaches: GATEWAY-HTTP, GATEWAY-GRPC,
// GATEWAY-TLS, GATEWAY-TCP and GATEWAY-UDP. `go test ./conformance` (part of `make test`) runs
// their core status tests; `make conformance` runs every test of them and writes the GEP-1709
// report and the list of what was skipped and why to docs/conformance/. Envtest has no data
// plane: tests run their status assertions and are skipped at their traffic
// (traffic_test.go).
package conformance
