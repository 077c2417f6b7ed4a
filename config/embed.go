// Package config holds the CustomResourceDefinitions Gantry ships: its own (crd/, generated
// by controller-gen) and Gateway API's (gateway-api/, copied by hack/gateway-api-crds.sh).
// They are embedded so that `gantry render` can apply the defaults their schemas declare, as
// the API server does.
package config

import "embed"

// CRDs holds crd/*.yaml and gateway-api/*.yaml.
//
//go:embed crd/*.yaml gateway-api/*.yaml
var CRDs embed.FS
