// Package desired computes the desired state of one Gateway: its effective values and their
// provenance, the objects its blueprint renders for it and for each attached HTTPRoute, its
// status addresses, listener attachment and hostnames.
//
// It is the "compute" of gather → compute → apply: pure, no client. The controller gathers an
// Input from the API server and `gantry render` gathers one from files; both call Gateway.
package desired
