package precedence

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// The world every test resolves in: Gateway team-a/web of class internet, controller in
// gantry-system, blueprint envoy, and (for route chains) HTTPRoute team-b/shop.
const (
	ctrlNS    = "gantry-system"
	className = "internet"
	gwNS      = "team-a"
	gwName    = "web"
	routeNS   = "team-b"
	routeName = "shop"
	bpName    = "envoy"
)

type vals = map[string]any

var (
	bpRef  = Ref{Kind: KindBlueprint, Name: bpName}
	cliRef = Ref{Kind: KindCommandLine}
	epoch  = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
)

// minute returns a creationTimestamp n minutes after epoch: a smaller n is older.
func minute(n int) time.Time { return epoch.Add(time.Duration(n) * time.Minute) }

func gatewayInput(bp Blueprint, policies ...Policy) Input {
	bp.Name = bpName
	return Input{
		ControllerNamespace: ctrlNS,
		ClassName:           className,
		Gateway:             ObjectKey{Namespace: gwNS, Name: gwName},
		Blueprint:           bp,
		Policies:            policies,
	}
}

func routeInput(route ObjectKey, bp Blueprint, policies ...Policy) Input {
	in := gatewayInput(bp, policies...)
	in.Route = &route
	return in
}

// Policy constructors, one per level of DESIGN.md's table (route levels for team-b/shop).

func globalGCC(name string, created time.Time) Policy {
	return gcc(ctrlNS, name, created, Target{Group: GatewayGroup, Kind: TargetGatewayClass, Name: className})
}

func namespaceGCC(name string, created time.Time) Policy {
	return gcc(gwNS, name, created, Target{Kind: TargetNamespace, Name: gwNS})
}

func classGCC(name string, created time.Time) Policy {
	return gcc(gwNS, name, created, Target{Group: GatewayGroup, Kind: TargetGatewayClass, Name: className})
}

func namespaceGC(name string, created time.Time) Policy {
	return gc(gwNS, name, created, Target{Kind: TargetNamespace, Name: gwNS})
}

func gatewayGC(name string, created time.Time) Policy {
	return gc(gwNS, name, created, Target{Group: GatewayGroup, Kind: TargetGateway, Name: gwName})
}

func routeNamespaceGC(name string, created time.Time) Policy {
	return gc(routeNS, name, created, Target{Kind: TargetNamespace, Name: routeNS})
}

func routeGC(name string, created time.Time) Policy {
	return gc(routeNS, name, created, Target{Group: GatewayGroup, Kind: TargetHTTPRoute, Name: routeName})
}

func gcc(ns, name string, created time.Time, t Target) Policy {
	return Policy{Ref: Ref{Kind: KindGatewayClassConfig, Namespace: ns, Name: name}, CreationTimestamp: created, Target: t}
}

func gc(ns, name string, created time.Time, t Target) Policy {
	return Policy{Ref: Ref{Kind: KindGatewayConfig, Namespace: ns, Name: name}, CreationTimestamp: created, Target: t}
}

// policyAt builds a policy that applies at level l (1..7; 6 and 7 need the route team-b/shop).
func policyAt(l Level, name string, created time.Time) Policy {
	build := map[Level]func(string, time.Time) Policy{
		LevelGlobal:               globalGCC,
		LevelNamespaceClassConfig: namespaceGCC,
		LevelClass:                classGCC,
		LevelNamespace:            namespaceGC,
		LevelGateway:              gatewayGC,
		LevelRouteNamespace:       routeNamespaceGC,
		LevelRoute:                routeGC,
	}[l]
	if build == nil {
		panic(fmt.Sprintf("no policy at level %d", l))
	}
	return build(name, created)
}

func withDefault(p Policy, v vals) Policy  { p.Default = v; return p }
func withOverride(p Policy, v vals) Policy { p.Override = v; return p }

func srcOf(r Ref, stanza Stanza, l Level) Source { return Source{Ref: r, Stanza: stanza, Level: l} }

// wantEqual fails with both sides as indented JSON (and Go syntax, which shows int vs int64)
// when got and want differ.
func wantEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	t.Errorf("%s differs\n got: %s\nwant: %s\n got (Go): %#v\nwant (Go): %#v", what, asJSON(got), asJSON(want), got, want)
}

func asJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}

// checkResult compares every field of a Result.
func checkResult(t *testing.T, got, want *Result) {
	t.Helper()
	wantEqual(t, "Values", got.Values, want.Values)
	wantEqual(t, "Leaves", got.Leaves, want.Leaves)
	wantEqual(t, "Chain", got.Chain, want.Chain)
	wantEqual(t, "Outcomes", got.Outcomes, want.Outcomes)
}
