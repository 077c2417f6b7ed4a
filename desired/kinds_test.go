package desired_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// TestEveryRouteKindAttaches: issue 20. GRPCRoute, TLSRoute, TCPRoute and UDPRoute attach to
// the listeners whose protocol carries them, count in attachedRoutes, reach .Routes (with
// their hostnames in .Hostnames for GRPCRoute and TLSRoute), and a route of a kind the
// listener does not carry is NotAllowedByListeners.
func TestEveryRouteKindAttaches(t *testing.T) {
	gw := gateway("web",
		listener("http", gwv1.HTTPProtocolType, 80, ""),
		passthrough(listener("tls", gwv1.TLSProtocolType, 443, "*.example.com")),
		listener("tcp", gwv1.TCPProtocolType, 5432, ""),
		listener("udp", gwv1.UDPProtocolType, 53, ""))
	bp := blueprint(map[string]string{"routes": routesDump}, `{}`)
	bp.Spec.ListenerProtocols = []gwv1.ProtocolType{gwv1.HTTPProtocolType, gwv1.TLSProtocolType, gwv1.TCPProtocolType, gwv1.UDPProtocolType}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: created}
	}
	grpc := &gwv1.GRPCRoute{ObjectMeta: meta("grpc"), Spec: gwv1.GRPCRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{section("http")}},
		Hostnames: []gwv1.Hostname{"api.example.com"}}}
	tls := &gwv1.TLSRoute{ObjectMeta: meta("tls"), Spec: gwv1.TLSRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{section("tls")}},
		Hostnames: []gwv1.Hostname{"db.example.com"}, Rules: []gwv1.TLSRouteRule{{BackendRefs: []gwv1.BackendRef{{BackendObjectReference: gwv1.BackendObjectReference{Name: "db", Port: ptr(gwv1.PortNumber(5432))}}}}}}}
	tcp := &gwv1.TCPRoute{ObjectMeta: meta("tcp"), Spec: gwv1.TCPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{section("tcp")}}}}
	udp := &gwv1.UDPRoute{ObjectMeta: meta("udp"), Spec: gwv1.UDPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{section("udp")}}}}
	tcpOnHTTP := &gwv1.TCPRoute{ObjectMeta: meta("tcp-on-http"), Spec: gwv1.TCPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{section("http")}}}}
	res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: bp,
		OtherRoutes: []client.Object{grpc, tls, tcp, udp, tcpOnHTTP}})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range res.Listeners {
		if l.AttachedRoutes != 1 {
			t.Errorf("listener %s: attachedRoutes %d, want 1 (%+v)", l.Name, l.AttachedRoutes, l)
		}
	}
	for _, r := range res.Routes {
		want := r.Name != "tcp-on-http"
		if r.Accepted != want {
			t.Errorf("%s %s: accepted %v (%s: %s)", r.Kind, r.Name, r.Accepted, r.Reason, r.Message)
		}
		if r.Name == "tcp-on-http" && (r.Reason != gwv1.RouteReasonNotAllowedByListeners || !strings.Contains(r.Message, "TCPRoutes")) {
			t.Errorf("tcp-on-http: %s: %s", r.Reason, r.Message)
		}
	}
	if got := strings.Join(res.Hostnames.Union, ","); got != "*.example.com,api.example.com,db.example.com" {
		t.Errorf(".Hostnames.Union = %s", got)
	}
	kinds := map[string]bool{}
	for _, r := range dumpedRoutes(t, res) {
		kinds[r["kind"].(string)] = true
		if r["name"] == "tls" {
			ref := r["rules"].([]any)[0].(map[string]any)["backendRefs"].([]any)[0].(map[string]any)
			if ref["resolved"] != false || ref["reason"] != "BackendNotFound" {
				t.Errorf("tls backendRef %v, want BackendNotFound", ref)
			}
		}
	}
	if len(kinds) != 4 {
		t.Errorf(".Routes kinds %v, want the four given", kinds)
	}
}

// TestBlueprintDeclaresRouteKinds: a blueprint narrows the kinds a protocol's listeners accept;
// a GRPCRoute on an HTTP listener of an HTTPRoute-only blueprint is NotAllowedByListeners, and
// a listener that asks for it is InvalidRouteKinds.
func TestBlueprintDeclaresRouteKinds(t *testing.T) {
	bp := blueprint(map[string]string{"routes": routesDump}, `{}`)
	bp.Spec.RouteKinds = []v1alpha1.ProtocolRouteKinds{{Protocol: gwv1.HTTPProtocolType, Kinds: []string{desired.KindHTTPRoute}}}
	asks := listener("grpc", gwv1.HTTPProtocolType, 8080, "")
	asks.AllowedRoutes = &gwv1.AllowedRoutes{Kinds: []gwv1.RouteGroupKind{{Kind: "GRPCRoute"}}}
	grpc := &gwv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "grpc"}, Spec: gwv1.GRPCRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{parent()}}}}
	res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", listener("http", gwv1.HTTPProtocolType, 80, ""), asks), Class: class(), Blueprint: bp,
		OtherRoutes: []client.Object{grpc}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Routes) != 1 || res.Routes[0].Accepted || res.Routes[0].Reason != gwv1.RouteReasonNotAllowedByListeners {
		t.Errorf("routes %+v, want the GRPCRoute NotAllowedByListeners", res.Routes)
	}
	if l := res.Listeners[1]; l.Invalid == "" || len(l.SupportedKinds) != 0 {
		t.Errorf("listener grpc %+v, want InvalidRouteKinds and no kinds", l)
	}
}

func passthrough(l gwv1.Listener) gwv1.Listener {
	l.TLS = &gwv1.ListenerTLSConfig{Mode: ptr(gwv1.TLSModePassthrough)}
	return l
}

// TestTLSTerminateListenerNotAccepted: conformance's TLSRouteListenerTerminateNotSupported. A
// TLS listener that terminates TLS (the default mode) is not accepted (UnsupportedValue),
// supports no kind, and no TLSRoute attaches through it.
func TestTLSTerminateListenerNotAccepted(t *testing.T) {
	bp := blueprint(nil, `{}`)
	bp.Spec.ListenerProtocols = []gwv1.ProtocolType{gwv1.TLSProtocolType}
	tls := &gwv1.TLSRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tls"}, Spec: gwv1.TLSRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{parent()}},
		Hostnames: []gwv1.Hostname{"db.example.com"}}}
	res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", listener("tls", gwv1.TLSProtocolType, 443, "")), Class: class(), Blueprint: bp,
		OtherRoutes: []client.Object{tls}})
	if err != nil {
		t.Fatal(err)
	}
	l := res.Listeners[0]
	if l.UnsupportedReason != gwv1.ListenerReasonUnsupportedValue || len(l.SupportedKinds) != 0 || l.AttachedRoutes != 0 {
		t.Errorf("listener %+v, want UnsupportedValue, no kinds, nothing attached", l)
	}
	if len(res.Routes) != 1 || res.Routes[0].Accepted {
		t.Errorf("routes %+v, want the TLSRoute not accepted", res.Routes)
	}
}
