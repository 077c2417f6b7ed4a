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

// perKindGateway is a Gateway with a listener for each route kind's protocol, and one route of
// each kind attached to it; the HTTPRoute and the TCPRoute share the name "shop".
func perKindGateway(tcpAnnotations map[string]string) (*gwv1.Gateway, []*gwv1.HTTPRoute, []client.Object) {
	gw := gateway("web",
		listener("http", gwv1.HTTPProtocolType, 80, ""),
		passthrough(listener("tls", gwv1.TLSProtocolType, 443, "*.example.com")),
		listener("tcp", gwv1.TCPProtocolType, 5432, ""),
		listener("udp", gwv1.UDPProtocolType, 53, ""))
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: created}
	}
	common := func(listener string) gwv1.CommonRouteSpec {
		return gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{section(listener)}}
	}
	db := []gwv1.BackendRef{{BackendObjectReference: gwv1.BackendObjectReference{Name: "db", Port: ptr(gwv1.PortNumber(5432))}}}
	tcp := &gwv1.TCPRoute{ObjectMeta: meta("shop"), Spec: gwv1.TCPRouteSpec{CommonRouteSpec: common("tcp"), Rules: []gwv1.TCPRouteRule{{BackendRefs: db}}}}
	tcp.Annotations = tcpAnnotations
	others := []client.Object{
		&gwv1.GRPCRoute{ObjectMeta: meta("api"), Spec: gwv1.GRPCRouteSpec{CommonRouteSpec: common("http")}},
		&gwv1.TLSRoute{ObjectMeta: meta("secure"), Spec: gwv1.TLSRouteSpec{CommonRouteSpec: common("tls"), Hostnames: []gwv1.Hostname{"db.example.com"}}},
		tcp,
		&gwv1.UDPRoute{ObjectMeta: meta("dns"), Spec: gwv1.UDPRouteSpec{CommonRouteSpec: common("udp")}},
	}
	return gw, []*gwv1.HTTPRoute{route(ns, "shop", nil, section("http"))}, others
}

// perKindBlueprint renders a ConfigMap per route of every kind, each kind from its own
// template field, all under the same key "config".
func perKindBlueprint(tcpTemplate string) *v1alpha1.GatewayClassBlueprint {
	bp := blueprint(map[string]string{"own": configMapTemplate("own", "a: b")}, `{"tier": "default"}`)
	bp.Spec.ListenerProtocols = []gwv1.ProtocolType{gwv1.HTTPProtocolType, gwv1.TLSProtocolType, gwv1.TCPProtocolType, gwv1.UDPProtocolType}
	generic := configMapTemplate("{{ lower .Route.kind }}-{{ .Route.metadata.name }}",
		`tier: {{ .Values.tier | quote }}`, `backends: {{ len .Backends | quote }}`)
	set := func(t string) *v1alpha1.RouteTemplate {
		return &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"config": t}}
	}
	bp.Spec.HTTPRouteTemplate = set(strings.Replace(generic, ".Route.metadata", ".HTTPRoute.metadata", 1))
	bp.Spec.GRPCRouteTemplate = set(strings.Replace(generic, ".Route.metadata", ".GRPCRoute.metadata", 1))
	bp.Spec.TLSRouteTemplate = set(strings.Replace(generic, ".Route.metadata", ".TLSRoute.metadata", 1))
	bp.Spec.TCPRouteTemplate = set(tcpTemplate)
	bp.Spec.UDPRouteTemplate = set(strings.Replace(generic, ".Route.metadata", ".UDPRoute.metadata", 1))
	return bp
}

// TestRouteTemplatesPerKind: issue 20, item 2. Each route kind renders its own template field,
// reads the route as .Route and by its kind, sees its .Backends, takes the values of a
// GatewayConfig targeting it (levels 6–7) and of no other kind's route of the same name, and
// its objects carry its kind's label and name it as owner.
func TestRouteTemplatesPerKind(t *testing.T) {
	gw, httpRoutes, others := perKindGateway(nil)
	bp := perKindBlueprint(configMapTemplate("tcproute-{{ .TCPRoute.metadata.name }}",
		`tier: {{ .Values.tier | quote }}`, `backends: {{ len .Backends | quote }}`, `db: {{ (index .Backends 0).name | quote }}`))
	policies := []*v1alpha1.GatewayConfig{gatewayConfig(ns, "tcp-shop", target("TCPRoute", "shop"), `{"tier": "tcp"}`, "")}
	res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: bp, Routes: httpRoutes, OtherRoutes: others, GatewayConfigs: policies})
	if err != nil {
		t.Fatal(err)
	}
	type got struct{ name, label, tier string }
	byOwner := map[string]got{}
	for _, o := range res.Objects {
		if o.Owner.Kind == "Gateway" {
			continue
		}
		meta := o.Object["metadata"].(map[string]any)
		labels := meta["labels"].(map[string]any)
		label, _ := labels[v1alpha1.RouteLabel(o.Owner.Kind)].(string)
		byOwner[o.Owner.Kind+" "+o.Owner.Name] = got{meta["name"].(string), label, o.Object["data"].(map[string]any)["tier"].(string)}
		for k := range labels {
			if strings.HasSuffix(k, "route-name") && k != v1alpha1.RouteLabel(o.Owner.Kind) {
				t.Errorf("%s %s's object carries %s", o.Owner.Kind, o.Owner.Name, k)
			}
		}
		if o.Owner.Kind == "TCPRoute" && o.Object["data"].(map[string]any)["db"] != "db" {
			t.Errorf("TCPRoute's .Backends: %v", o.Object["data"])
		}
	}
	want := map[string]got{
		"HTTPRoute shop":  {"httproute-shop", "shop", "default"},
		"GRPCRoute api":   {"grpcroute-api", "api", "default"},
		"TLSRoute secure": {"tlsroute-secure", "secure", "default"},
		"TCPRoute shop":   {"tcproute-shop", "shop", "tcp"},
		"UDPRoute dns":    {"udproute-dns", "dns", "default"},
	}
	for k, w := range want {
		if byOwner[k] != w {
			t.Errorf("%s: rendered %+v, want %+v", k, byOwner[k], w)
		}
	}
	if len(byOwner) != len(want) {
		t.Errorf("rendered for %v, want the five routes", byOwner)
	}
	for _, r := range res.Routes {
		if r.Err != nil || !r.Accepted {
			t.Errorf("%s %s: accepted %v, error %v", r.Kind, r.NamespacedName, r.Accepted, r.Err)
		}
	}
}

// TestRouteKindLiveObjects: .Resources of a route template holds the objects rendered for that
// route, of its kind: a TCPRoute does not read what was rendered for the HTTPRoute of its name.
func TestRouteKindLiveObjects(t *testing.T) {
	gw, httpRoutes, others := perKindGateway(nil)
	bp := perKindBlueprint(configMapTemplate("tcproute-{{ .TCPRoute.metadata.name }}",
		`seen: {{ range .Resources.config }}{{ .metadata.name }}{{ end }}`, `tier: "x"`))
	live := func(name string) map[string][]map[string]any {
		return map[string][]map[string]any{"config": {{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": ns}}}}
	}
	in := &desired.Input{Gateway: gw, Class: class(), Blueprint: bp, Routes: httpRoutes, OtherRoutes: others}
	in.AddLive(map[string]string{v1alpha1.LabelTemplate: "config", v1alpha1.LabelHTTPRoute: "shop"}, ns, live("httproute-shop")["config"][0])
	in.AddLive(map[string]string{v1alpha1.LabelTemplate: "config", v1alpha1.RouteLabel("TCPRoute"): "shop"}, ns, live("tcproute-shop")["config"][0])
	res, err := desired.Gateway(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range res.Objects {
		if o.Owner.Kind == "TCPRoute" {
			if seen := o.Object["data"].(map[string]any)["seen"]; seen != "tcproute-shop" {
				t.Errorf("TCPRoute shop's .Resources.config held %q, want only its own object", seen)
			}
			return
		}
	}
	t.Errorf("no object rendered for the TCPRoute: %+v", res.Routes)
}

// TestRouteKindInjection: a TCPRoute's own strings, printed bare by the TCPRoute template, fail
// that route alone, named by its kind; the Gateway and the other routes render.
func TestRouteKindInjection(t *testing.T) {
	gw, httpRoutes, others := perKindGateway(map[string]string{"note": "x\n  extra: field"})
	bp := perKindBlueprint(configMapTemplate("tcproute-{{ .TCPRoute.metadata.name }}", `note: {{ .TCPRoute.metadata.annotations.note }}`))
	res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: bp, Routes: httpRoutes, OtherRoutes: others})
	if err != nil {
		t.Fatalf("the Gateway failed with its route: %v", err)
	}
	failed := 0
	for _, r := range res.Routes {
		if r.Err == nil {
			continue
		}
		failed++
		if r.Kind != "TCPRoute" {
			t.Errorf("%s %s failed: %v", r.Kind, r.NamespacedName, r.Err)
			continue
		}
		desiredError(t, r.Err, desired.ReasonRenderFailed)
		want := "TCPRoute team-a/shop: blueprint proxy: tcpRouteTemplate.resourceTemplates.config: TCPRoute team-a/shop field metadata.annotations.note: this value changed the YAML structure"
		if !strings.HasPrefix(r.Err.Error(), want) {
			t.Errorf("TCPRoute error\n got %q\nwant %q…", r.Err, want)
		}
	}
	if failed != 1 {
		t.Errorf("%d routes failed, want the TCPRoute alone", failed)
	}
	kinds := map[string]bool{}
	for _, o := range res.Objects {
		kinds[o.Owner.Kind] = true
	}
	if kinds["TCPRoute"] || !kinds["Gateway"] || !kinds["UDPRoute"] || !kinds["HTTPRoute"] {
		t.Errorf("objects rendered for %v; want the Gateway and every route but the TCPRoute", kinds)
	}
}

// TestRouteClusterScopedObjectNamesItsNamespace: a route template's cluster-scoped object
// names its route's namespace in a label, so that routes of one name in two namespaces have
// distinct objects when pruning decides what to keep; a namespaced one does not need it.
func TestRouteClusterScopedObjectNamesItsNamespace(t *testing.T) {
	gw, httpRoutes, others := perKindGateway(nil)
	bp := perKindBlueprint(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tcproute-{{ .Route.metadata.namespace }}-{{ .Route.metadata.name }}
`)
	bp.Spec.ClusterScopedKinds = []v1alpha1.GroupKind{{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}}
	res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: bp, Routes: httpRoutes, OtherRoutes: others})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, o := range res.Objects {
		labels := o.Object["metadata"].(map[string]any)["labels"].(map[string]any)
		switch o.Owner.Kind {
		case "TCPRoute":
			seen++
			if labels[v1alpha1.LabelRouteNamespace] != ns || labels[v1alpha1.RouteLabel("TCPRoute")] != "shop" {
				t.Errorf("the TCPRoute's ClusterRole: labels %v", labels)
			}
		default:
			if _, ok := labels[v1alpha1.LabelRouteNamespace]; ok {
				t.Errorf("%s's namespaced object carries %s: %v", o.Owner.Kind, v1alpha1.LabelRouteNamespace, labels)
			}
		}
	}
	if seen != 1 {
		t.Errorf("%d objects rendered for the TCPRoute, want its ClusterRole", seen)
	}
}
