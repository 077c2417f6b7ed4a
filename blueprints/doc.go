// Package blueprints holds Gantry's ready-made GatewayClassBlueprints, one folder each with a
// blueprint.yaml, a README and golden tests (testdata/NAME.in.yaml → NAME.out.yaml, the output
// of `gantry render blueprint.yaml NAME.in.yaml`). The tests also check every generated name
// against Kubernetes' and the provider's limits, and benchmark rendering one Gateway of each.
package blueprints
