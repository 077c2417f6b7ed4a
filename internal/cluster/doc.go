// Package cluster reads Gantry's inputs from a live API server into a manifests.Set, for the
// commands that look at a cluster (`gantry render --cluster`, `gantry diff`) and the
// playground. It only reads: ReadOnly makes a client configuration that refuses, before
// sending, every request that could change the cluster.
package cluster
