package desired_test

import (
	"strings"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/desired"
)

// TestGatewayListenerConflicts: two of a Gateway's own listeners on one port with protocols
// that cannot share it conflict; the first in spec order keeps the port, the later one is
// Conflicted (ProtocolConflict, naming both) and attaches no route. TCP and UDP share a port.
func TestGatewayListenerConflicts(t *testing.T) {
	gw := gateway("web",
		listener("http", gwv1.HTTPProtocolType, 80, ""),
		listener("https", gwv1.HTTPSProtocolType, 80, "a.example.com"),
		listener("dns-tcp", gwv1.TCPProtocolType, 53, ""),
		listener("dns-udp", gwv1.UDPProtocolType, 53, ""),
		listener("other", gwv1.HTTPProtocolType, 8080, ""),
	)
	listeners, routes, _ := desired.Attach(&desired.Input{Gateway: gw, Class: class()},
		[]*gwv1.HTTPRoute{route(ns, "via-https", []string{"a.example.com"}, section("https")), route(ns, "via-http", nil, section("http"))})
	conflict := map[gwv1.SectionName]string{}
	attached := map[gwv1.SectionName]int32{}
	for _, l := range listeners {
		conflict[l.Name] = string(l.Conflict)
		attached[l.Name] = l.AttachedRoutes
		if l.Name == "https" && !strings.Contains(l.ConflictMessage, "listener http") {
			t.Errorf("listener https: message %q does not name listener http", l.ConflictMessage)
		}
	}
	want := map[gwv1.SectionName]string{"http": "", "https": string(gwv1.ListenerReasonProtocolConflict), "dns-tcp": "", "dns-udp": "", "other": ""}
	for name, w := range want {
		if conflict[name] != w {
			t.Errorf("listener %s: conflict %q, want %q", name, conflict[name], w)
		}
	}
	if attached["https"] != 0 || attached["http"] != 1 {
		t.Errorf("attached routes: https %d, http %d; want 0 and 1", attached["https"], attached["http"])
	}
	for _, r := range routes {
		if r.Name == "via-https" && r.Accepted {
			t.Errorf("route via-https attached through a conflicted listener: %+v", r)
		}
	}
}
