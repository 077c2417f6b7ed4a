package precedence

import (
	"strings"
	"testing"
)

// A GatewayConfig for a route applies to the route of the kind it names, and to no route of
// another kind that shares the name: a TCPRoute's policy is not an HTTPRoute's.
func TestRouteLevelFollowsTheRouteKind(t *testing.T) {
	kinds := []string{TargetHTTPRoute, TargetGRPCRoute, TargetTLSRoute, TargetTCPRoute, TargetUDPRoute}
	for _, target := range kinds {
		p := gc(routeNS, "cfg", minute(0), Target{Group: GatewayGroup, Kind: target, Name: routeName})
		for _, kind := range append(kinds, "") {
			in := routeInput(ObjectKey{Namespace: routeNS, Name: routeName}, Blueprint{})
			in.RouteKind = kind
			level, why := Applies(&in, &p)
			applies := target == kind || kind == "" && target == TargetHTTPRoute
			if applies && level != LevelRoute {
				t.Errorf("GatewayConfig targeting %s, route of kind %q: level %v (%s), want %v", target, kind, level, why, LevelRoute)
			}
			if !applies && (level != 0 || !strings.Contains(why, "targets "+target)) {
				t.Errorf("GatewayConfig targeting %s, route of kind %q: level %v, reason %q; want it not to apply, saying what it targets", target, kind, level, why)
			}
		}
		gwIn := gatewayInput(Blueprint{})
		if level, why := Applies(&gwIn, &p); level != 0 || !strings.Contains(why, "route's templates") {
			t.Errorf("GatewayConfig targeting %s on the Gateway's chain: level %v, reason %q", target, level, why)
		}
	}
	other := gc(routeNS, "cfg", minute(0), Target{Group: GatewayGroup, Kind: "ServiceImport", Name: routeName})
	in := routeInput(ObjectKey{Namespace: routeNS, Name: routeName}, Blueprint{})
	if level, _ := Applies(&in, &other); level != 0 {
		t.Errorf("a GatewayConfig targeting a kind that is no route applied at level %v", level)
	}
}
