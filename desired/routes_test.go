package desired_test

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

func route(namespace, name string, hostnames []string, parents ...gwv1.ParentReference) *gwv1.HTTPRoute {
	r := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, CreationTimestamp: created}}
	r.Spec.ParentRefs = parents
	for _, h := range hostnames {
		r.Spec.Hostnames = append(r.Spec.Hostnames, gwv1.Hostname(h))
	}
	return r
}

// parent refers to the Gateway web of team-a, from any namespace.
func parent() gwv1.ParentReference {
	return gwv1.ParentReference{Namespace: ptr(gwv1.Namespace(ns)), Name: "web"}
}

func section(name string) gwv1.ParentReference {
	p := parent()
	p.SectionName = ptr(gwv1.SectionName(name))
	return p
}

func port(n gwv1.PortNumber) gwv1.ParentReference {
	p := parent()
	p.Port = ptr(n)
	return p
}

func from(f gwv1.FromNamespaces, selector *metav1.LabelSelector) *gwv1.AllowedRoutes {
	return &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(f), Selector: selector}}
}

var httpRoute = gwv1.RouteGroupKind{Group: ptr(gwv1.Group(gwv1.GroupName)), Kind: "HTTPRoute"}
var grpcRoute = gwv1.RouteGroupKind{Group: ptr(gwv1.Group(gwv1.GroupName)), Kind: "GRPCRoute"}

func key(namespace, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: namespace, Name: name}
}

func TestAttachment(t *testing.T) {
	http := listener("http", gwv1.HTTPProtocolType, 80, "") // allows routes from its own namespace
	https := listener("https", gwv1.HTTPSProtocolType, 443, "*.example.com")
	https.AllowedRoutes = from(gwv1.NamespacesFromAll, nil)
	selected := listener("selected", gwv1.HTTPProtocolType, 8080, "")
	selected.AllowedRoutes = from(gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "shop"}})
	none := listener("none", gwv1.HTTPProtocolType, 8081, "")
	none.AllowedRoutes = from(gwv1.NamespacesFromNone, nil)
	tcp := listener("tcp", gwv1.TCPProtocolType, 9000, "")
	grpc := listener("grpc", gwv1.HTTPProtocolType, 8082, "")
	grpc.AllowedRoutes = &gwv1.AllowedRoutes{Kinds: []gwv1.RouteGroupKind{{Kind: "GRPCRoute"}}}
	explicit := listener("explicit", gwv1.HTTPProtocolType, 8083, "explicit.example.org")
	explicit.AllowedRoutes = &gwv1.AllowedRoutes{Kinds: []gwv1.RouteGroupKind{{Kind: "HTTPRoute"}}}
	gw := gateway("web", http, https, selected, none, tcp, grpc, explicit)

	mesh := parent()
	mesh.Kind = ptr(gwv1.Kind("Service"))
	sameNS := gwv1.ParentReference{Name: "web"} // namespace defaults to the route's
	routes := []*gwv1.HTTPRoute{
		route("team-c", "none-listener", nil, section("none")),
		route(ns, "two-sections", []string{"b.example.com"}, section("http"), section("https")),
		route("team-b", "other-ns", nil, parent()),
		route(ns, "same-ns", []string{"a.example.com"}, sameNS),
		route(ns, "port-443", []string{"shop.other.org"}, port(443)),
		route(ns, "no-such-section", nil, section("nope")),
		route(ns, "tcp-only", nil, section("tcp")),
		route("team-b", "section-http", nil, section("http")),
		route(ns, "other-gateway", nil, gwv1.ParentReference{Name: "other"}),
		route(ns, "mesh", nil, mesh),
		route("team-b", "elsewhere", nil, sameNS), // the Gateway web of team-b
		route(ns, "first-ref-fails", nil, section("nope"), section("explicit")),
	}
	nsLabels := map[string]map[string]string{ns: {}, "team-b": {"team": "shop"}, "team-c": {"team": "blog"}}
	bp := blueprint(nil, "")
	res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: bp, Routes: routes, NamespaceLabels: nsLabels})
	if err != nil {
		t.Fatalf("Gateway: %v", err)
	}

	// HTTP and HTTPS listeners accept HTTPRoutes and GRPCRoutes (Gateway API's kinds for them),
	// unless allowedRoutes.kinds narrows them; a TCP listener is not served by this blueprint.
	web := []gwv1.RouteGroupKind{httpRoute, grpcRoute}
	wantListeners := []desired.Listener{
		{Name: "http", SupportedKinds: web, AttachedRoutes: 2},
		{Name: "https", SupportedKinds: web, AttachedRoutes: 3},
		{Name: "selected", SupportedKinds: web, AttachedRoutes: 1},
		{Name: "none", SupportedKinds: web, AttachedRoutes: 0},
		{Name: "tcp", SupportedKinds: []gwv1.RouteGroupKind{}, Unsupported: "protocol TCP is not supported: blueprint proxy serves HTTP, HTTPS", UnsupportedReason: gwv1.ListenerReasonUnsupportedProtocol},
		{Name: "grpc", SupportedKinds: []gwv1.RouteGroupKind{grpcRoute}},
		{Name: "explicit", SupportedKinds: []gwv1.RouteGroupKind{httpRoute}, AttachedRoutes: 1},
	}
	if !reflect.DeepEqual(res.Listeners, wantListeners) {
		t.Errorf("Listeners =\n%+v\nwant\n%+v", res.Listeners, wantListeners)
	}

	notAllowed := func(namespace string) string {
		return "no listener of Gateway team-a/web allows HTTPRoutes from namespace " + namespace
	}
	wantRoutes := []desired.Route{
		{Kind: "HTTPRoute", NamespacedName: key(ns, "first-ref-fails"), ParentRef: section("explicit"), Accepted: true, Reason: gwv1.RouteReasonAccepted},
		{Kind: "HTTPRoute", NamespacedName: key(ns, "no-such-section"), ParentRef: section("nope"), Reason: gwv1.RouteReasonNoMatchingParent,
			Message: "Gateway team-a/web has no listener matching this parentRef's sectionName/port"},
		{Kind: "HTTPRoute", NamespacedName: key(ns, "port-443"), ParentRef: port(443), Reason: gwv1.RouteReasonNoMatchingListenerHostname,
			Message: "none of the route's hostnames (shop.other.org) matches a listener of Gateway team-a/web"},
		{Kind: "HTTPRoute", NamespacedName: key(ns, "same-ns"), ParentRef: sameNS, Accepted: true, Reason: gwv1.RouteReasonAccepted},
		{Kind: "HTTPRoute", NamespacedName: key(ns, "tcp-only"), ParentRef: section("tcp"), Reason: gwv1.RouteReasonNotAllowedByListeners, Message: notAllowed(ns)},
		{Kind: "HTTPRoute", NamespacedName: key(ns, "two-sections"), ParentRef: section("http"), Accepted: true, Reason: gwv1.RouteReasonAccepted},
		{Kind: "HTTPRoute", NamespacedName: key("team-b", "other-ns"), ParentRef: parent(), Accepted: true, Reason: gwv1.RouteReasonAccepted},
		{Kind: "HTTPRoute", NamespacedName: key("team-b", "section-http"), ParentRef: section("http"), Reason: gwv1.RouteReasonNotAllowedByListeners, Message: notAllowed("team-b")},
		{Kind: "HTTPRoute", NamespacedName: key("team-c", "none-listener"), ParentRef: section("none"), Reason: gwv1.RouteReasonNotAllowedByListeners, Message: notAllowed("team-c")},
	}
	if !reflect.DeepEqual(res.Routes, wantRoutes) {
		t.Errorf("Routes =\n%+v\nwant\n%+v", res.Routes, wantRoutes)
	}

	// http serves same-ns and two-sections (a, b); https the same and, for other-ns, which has
	// no hostnames, its own wildcard, which covers a and b; explicit its own hostname.
	wantUnion := []string{"*.example.com", "a.example.com", "b.example.com", "explicit.example.org"}
	wantAttached := []string{"*.example.com", "explicit.example.org"}
	// bifrost's Intersection: the Union without what its wildcard covers; here the same names.
	wantIntersection := []string{"*.example.com", "explicit.example.org"}
	if !reflect.DeepEqual(res.Hostnames.Union, wantUnion) || !reflect.DeepEqual(res.Hostnames.Attached, wantAttached) || !reflect.DeepEqual(res.Hostnames.Intersection, wantIntersection) {
		t.Errorf("Hostnames = %+v, want Union %q, Attached %q, Intersection %q", res.Hostnames, wantUnion, wantAttached, wantIntersection)
	}
}

func TestSelectorWithoutSelector(t *testing.T) {
	l := listener("http", gwv1.HTTPProtocolType, 80, "")
	l.AllowedRoutes = from(gwv1.NamespacesFromSelector, nil)
	res, err := desired.Gateway(&desired.Input{
		Gateway: gateway("web", l), Class: class(), Blueprint: blueprint(nil, ""),
		Routes: []*gwv1.HTTPRoute{route(ns, "r", nil, parent())},
	})
	if err != nil {
		t.Fatalf("Gateway: %v", err)
	}
	if len(res.Routes) != 1 || res.Routes[0].Accepted || res.Routes[0].Reason != gwv1.RouteReasonNotAllowedByListeners {
		t.Errorf("Routes = %+v, want one not allowed", res.Routes)
	}
}

// TestRouteTemplates: route templates render per accepted route, in the route's namespace, with
// the Gateway's chain of values continued by the route's namespace and the route.
func TestRouteTemplates(t *testing.T) {
	https := listener("https", gwv1.HTTPSProtocolType, 443, "*.example.com")
	https.AllowedRoutes = from(gwv1.NamespacesFromAll, nil)
	gw := gateway("web", https)
	bp := blueprint(map[string]string{"gateway": configMapTemplate("gw-{{ .Values.tier }}", `color: {{ .Values.color | quote }}`)}, `{"tier": "blueprint", "color": "grey"}`)
	bp.Spec.HTTPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{
		"config": configMapTemplate("{{ .HTTPRoute.metadata.name }}-{{ .Values.tier }}",
			`color: {{ .Values.color | quote }}`,
			`gateway: {{ .Gateway.metadata.name | quote }}`,
			`hosts: {{ join "," .Hostnames.Attached | quote }}`),
	}}
	policies := []*v1alpha1.GatewayConfig{
		gatewayConfig(ns, "gateway", target("Gateway", "web"), `{"tier": "gateway", "color": "blue"}`, ""),
		gatewayConfig("team-b", "shop", target("HTTPRoute", "shop"), `{"tier": "route"}`, ""),
		gatewayConfig("team-b", "namespace", target("Namespace", "team-b"), `{"color": "green"}`, ""),
		gatewayConfig(ns, "blog-in-other-ns", target("HTTPRoute", "shop"), `{"tier": "wrong namespace"}`, ""),
	}
	routes := []*gwv1.HTTPRoute{
		route("team-b", "shop", []string{"shop.example.com"}, parent()),
		route(ns, "blog", []string{"blog.example.com"}, parent()),
		route(ns, "rejected", []string{"blog.example.org"}, parent()),
	}
	res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: bp, Routes: routes, GatewayConfigs: policies})
	if err != nil {
		t.Fatalf("Gateway: %v", err)
	}
	object := func(namespace, name string, data map[string]any, labels map[string]any) map[string]any {
		labels["gateway.networking.k8s.io/gateway-name"] = "web"
		labels["gateway.networking.k8s.io/gateway-class-name"] = className
		return map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "data": data,
			"metadata": map[string]any{"name": name, "namespace": namespace, "labels": labels},
		}
	}
	hosts := "blog.example.com,shop.example.com"
	want := []desired.Object{{
		Owner:    desired.Owner{Kind: "Gateway", NamespacedName: key(ns, "web")},
		Template: "gateway",
		Object:   object(ns, "gw-gateway", map[string]any{"color": "blue"}, map[string]any{"gateway.gantry.dev/template": "gateway"}),
	}, {
		Owner:    desired.Owner{Kind: "HTTPRoute", NamespacedName: key(ns, "blog")},
		Template: "config",
		Object: object(ns, "blog-gateway", map[string]any{"color": "blue", "gateway": "web", "hosts": hosts},
			map[string]any{"gateway.gantry.dev/template": "config", "gateway.gantry.dev/httproute-name": "blog"}),
	}, {
		Owner:    desired.Owner{Kind: "HTTPRoute", NamespacedName: key("team-b", "shop")},
		Template: "config",
		Object: object("team-b", "shop-route", map[string]any{"color": "green", "gateway": "web", "hosts": hosts},
			map[string]any{"gateway.gantry.dev/template": "config", "gateway.gantry.dev/httproute-name": "shop"}),
	}}
	if !reflect.DeepEqual(res.Objects, want) {
		t.Errorf("Objects =\n%v\nwant\n%v", res.Objects, want)
	}

	if got, want := res.Values.Values, map[string]any{"tier": "gateway", "color": "blue"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Gateway values = %v, want %v", got, want)
	}
	wantValues := map[types.NamespacedName]map[string]any{
		key(ns, "blog"):       {"tier": "gateway", "color": "blue"},
		key("team-b", "shop"): {"tier": "route", "color": "green"},
		key(ns, "rejected"):   nil,
	}
	if len(res.Routes) != len(wantValues) {
		t.Fatalf("Routes = %+v, want %d", res.Routes, len(wantValues))
	}
	for _, r := range res.Routes {
		var got map[string]any
		if r.Values != nil {
			got = r.Values.Values
		}
		if want := wantValues[r.NamespacedName]; !reflect.DeepEqual(got, want) {
			t.Errorf("route %s values = %v, want %v", r.NamespacedName, got, want)
		}
	}
}

// TestRouteInjection: tenant strings reaching a route template fail that route's render,
// naming the route, the policy or field, and the path — and only that route's: the Gateway's own
// objects still render, so a tenant in another namespace cannot stop someone else's Gateway.
func TestRouteInjection(t *testing.T) {
	https := listener("https", gwv1.HTTPSProtocolType, 443, "")
	https.AllowedRoutes = from(gwv1.NamespacesFromAll, nil)
	changed := func(origin string) string {
		return "HTTPRoute team-b/shop: blueprint proxy: httpRouteTemplate.resourceTemplates.config: " + origin +
			": this value changed the YAML structure of the output (it would add documents or fields); the template must quote it, e.g. `| quote`, or use toYaml"
	}
	annotated := route("team-b", "shop", nil, parent())
	annotated.Annotations = map[string]string{"note": "x\n  extra: field"}
	// A backendRef whose name, printed by a template through .Backends, would add a field. The
	// API server would refuse such a name; offline input and a template reading the message
	// (which Gantry composes around the name) must be caught all the same.
	badBackend := route("team-b", "shop", nil, parent())
	badBackend.Spec.Rules = []gwv1.HTTPRouteRule{{BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{
		BackendObjectReference: gwv1.BackendObjectReference{Name: "x\n  extra: field", Port: ptr(gwv1.PortNumber(80))}}}}}}
	tests := []struct {
		name     string
		template string
		route    *gwv1.HTTPRoute
		policies []*v1alpha1.GatewayConfig
		want     string
	}{{
		name:     "GatewayConfig targeting the route",
		template: configMapTemplate("cm", `tier: {{ .Values.tier }}`),
		route:    route("team-b", "shop", nil, parent()),
		policies: []*v1alpha1.GatewayConfig{gatewayConfig("team-b", "shop", target("HTTPRoute", "shop"), `{"tier": "x\n  extra: field"}`, "")},
		want:     changed("GatewayConfig team-b/shop value tier"),
	}, {
		name:     "HTTPRoute annotation",
		template: configMapTemplate("cm", `note: {{ .HTTPRoute.metadata.annotations.note }}`),
		route:    annotated,
		want:     changed("HTTPRoute team-b/shop field metadata.annotations.note"),
	}, {
		name:     "backend name through .Backends",
		template: configMapTemplate("cm", `backend: {{ (index .Backends 0).name }}`),
		route:    badBackend,
		want:     changed("HTTPRoute team-b/shop field spec.rules[0].backendRefs[0].name"),
	}, {
		name:     "backend message through .Backends",
		template: configMapTemplate("cm", `why: {{ (index .Backends 0).message }}`),
		route:    badBackend,
		want:     changed("HTTPRoute team-b/shop .Backends[0].message"),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bp := blueprint(nil, `{"tier": "default"}`)
			bp.Spec.HTTPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"config": tt.template}}
			bp.Spec.GatewayTemplate.ResourceTemplates = map[string]string{"own": configMapTemplate("own", "a: b")}
			res, err := desired.Gateway(&desired.Input{
				Gateway: gateway("web", https), Class: class(), Blueprint: bp,
				Routes: []*gwv1.HTTPRoute{tt.route}, GatewayConfigs: tt.policies,
			})
			if err != nil {
				t.Fatalf("the Gateway failed with its route: %v", err)
			}
			if len(res.Routes) != 1 || res.Routes[0].Err == nil {
				t.Fatalf("routes = %+v, want one with an error", res.Routes)
			}
			desiredError(t, res.Routes[0].Err, desired.ReasonRenderFailed)
			if got := res.Routes[0].Err.Error(); got != tt.want {
				t.Errorf("route error\n got %q\nwant %q", got, tt.want)
			}
			for _, o := range res.Objects {
				if o.Owner.Kind == "HTTPRoute" {
					t.Errorf("the failed route rendered %s", o.Template)
				}
			}
			if len(res.Objects) == 0 {
				t.Error("the Gateway's own objects were not rendered")
			}
		})
	}
}

// TestRouteBackends: route templates see the route's backendRefs in .Backends, in the order of
// its rules and their backendRefs, each with the defaults filled in and whether it resolves,
// as the route's ResolvedRefs condition decides it.
func TestRouteBackends(t *testing.T) {
	https := listener("https", gwv1.HTTPSProtocolType, 443, "")
	https.AllowedRoutes = from(gwv1.NamespacesFromAll, nil)
	bp := blueprint(map[string]string{"own": configMapTemplate("own", "a: b")}, "")
	bp.Spec.HTTPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{
		"backends": configMapTemplate("{{ .HTTPRoute.metadata.name }}-backends", `backends: {{ toJson .Backends | quote }}`),
	}}
	ref := func(ns, name, kind string, port int32, weight int32) gwv1.HTTPBackendRef {
		b := gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: gwv1.ObjectName(name)}}}
		if ns != "" {
			b.Namespace = ptr(gwv1.Namespace(ns))
		}
		if kind != "" {
			b.Group, b.Kind = ptr(gwv1.Group("example.com")), ptr(gwv1.Kind(kind))
		}
		if port != 0 {
			b.Port = ptr(gwv1.PortNumber(port))
		}
		if weight != 0 {
			b.Weight = ptr(weight)
		}
		return b
	}
	r := route("team-b", "shop", nil, parent())
	r.Spec.Rules = []gwv1.HTTPRouteRule{
		{BackendRefs: []gwv1.HTTPBackendRef{ref("", "shop", "", 8080, 3), ref("", "gone", "", 80, 0)}},
		{BackendRefs: []gwv1.HTTPBackendRef{ref("", "bucket", "Bucket", 0, 0), ref("team-c", "private", "", 80, 0), ref("team-d", "shared", "", 80, 0)}},
	}
	grant := &gwv1beta1.ReferenceGrant{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-d", Name: "allow-team-b"},
		Spec: gwv1beta1.ReferenceGrantSpec{
			From: []gwv1beta1.ReferenceGrantFrom{{Group: gwv1.GroupName, Kind: "HTTPRoute", Namespace: "team-b"}},
			To:   []gwv1beta1.ReferenceGrantTo{{Group: "", Kind: "Service"}},
		},
	}
	res, err := desired.Gateway(&desired.Input{
		Gateway: gateway("web", https), Class: class(), Blueprint: bp, Routes: []*gwv1.HTTPRoute{r},
		ReferenceGrants: []*gwv1beta1.ReferenceGrant{grant},
		BackendServices: map[types.NamespacedName]bool{key("team-b", "shop"): true, key("team-c", "private"): true, key("team-d", "shared"): true},
	})
	if err != nil {
		t.Fatalf("Gateway: %v", err)
	}
	if len(res.Routes) != 1 || res.Routes[0].Err != nil {
		t.Fatalf("routes = %+v", res.Routes)
	}
	var got string
	for _, o := range res.Objects {
		if o.Template == "backends" {
			got = o.Object["data"].(map[string]any)["backends"].(string)
		}
	}
	want := `[` +
		`{"group":"","index":0,"kind":"Service","message":"","name":"shop","namespace":"team-b","port":8080,"reason":"ResolvedRefs","resolved":true,"rule":0,"weight":3},` +
		`{"group":"","index":1,"kind":"Service","message":"Service team-b/gone does not exist","name":"gone","namespace":"team-b","port":80,"reason":"BackendNotFound","resolved":false,"rule":0,"weight":1},` +
		`{"group":"example.com","index":0,"kind":"Bucket","message":"Gantry's backends are core Services, not Bucket.example.com","name":"bucket","namespace":"team-b","reason":"InvalidKind","resolved":false,"rule":1,"weight":1},` +
		`{"group":"","index":1,"kind":"Service","message":"Service team-c/private is in another namespace, and no ReferenceGrant in namespace team-c allows HTTPRoutes of namespace team-b to refer to it","name":"private","namespace":"team-c","port":80,"reason":"RefNotPermitted","resolved":false,"rule":1,"weight":1},` +
		`{"group":"","index":2,"kind":"Service","message":"","name":"shared","namespace":"team-d","port":80,"reason":"ResolvedRefs","resolved":true,"rule":1,"weight":1}` +
		`]`
	if got != want {
		t.Errorf(".Backends =\n%s\nwant\n%s", got, want)
	}
}
