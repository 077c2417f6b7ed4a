package precedence_test

import (
	"encoding/json"
	"fmt"
	"time"

	"gantry.dev/gantry/precedence"
)

// A blueprint defaults replicas and logLevel. The tenant's GatewayConfig for Gateway team-a/web
// sets its own defaults, which beat the blueprint's (the more specific default wins). The
// platform's global GatewayClassConfig overrides replicas, which beats every default.
func ExampleResolve() {
	created := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	res := precedence.Resolve(precedence.Input{
		ControllerNamespace: "gantry-system",
		ClassName:           "internet",
		Gateway:             precedence.ObjectKey{Namespace: "team-a", Name: "web"},
		Blueprint: precedence.Blueprint{
			Name:    "envoy",
			Default: map[string]any{"replicas": 1, "logLevel": "info"},
		},
		Policies: []precedence.Policy{
			{
				Ref:               precedence.Ref{Kind: precedence.KindGatewayConfig, Namespace: "team-a", Name: "web"},
				CreationTimestamp: created,
				Target:            precedence.Target{Group: precedence.GatewayGroup, Kind: precedence.TargetGateway, Name: "web"},
				Default:           map[string]any{"replicas": 3, "logLevel": "debug"},
			},
			{
				Ref:               precedence.Ref{Kind: precedence.KindGatewayClassConfig, Namespace: "gantry-system", Name: "limits"},
				CreationTimestamp: created,
				Target:            precedence.Target{Group: precedence.GatewayGroup, Kind: precedence.TargetGatewayClass, Name: "internet"},
				Override:          map[string]any{"replicas": 2},
			},
		},
	})

	values, _ := json.Marshal(res.Values)
	fmt.Println(string(values))
	for _, leaf := range res.Leaves {
		fmt.Printf("%s = %v from %s\n", leaf.Path, leaf.Value, leaf.Source)
		for _, s := range leaf.Shadowed {
			fmt.Printf("  shadowed %v from %s\n", s.Value, s.Source)
		}
	}
	for _, o := range res.Outcomes {
		fmt.Printf("%s: %s\n", o.Ref, o.State)
		for _, s := range o.Superseded {
			fmt.Printf("  %s (%s) superseded by %s\n", s.Path, s.Stanza, s.By)
		}
	}
	// Output:
	// {"logLevel":"debug","replicas":2}
	// logLevel = debug from GatewayConfig team-a/web (default, level 5)
	//   shadowed info from GatewayClassBlueprint envoy (default, level 0)
	// replicas = 2 from GatewayClassConfig gantry-system/limits (override, level 1)
	//   shadowed 3 from GatewayConfig team-a/web (default, level 5)
	//   shadowed 1 from GatewayClassBlueprint envoy (default, level 0)
	// GatewayClassConfig gantry-system/limits: Enforced
	// GatewayConfig team-a/web: PartiallyEnforced
	//   replicas (default) superseded by GatewayClassConfig gantry-system/limits (override, level 1)
}
