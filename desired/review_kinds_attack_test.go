package desired_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// Review attacks on issue 20 item 2: per-route templates for every route kind. Each test fails
// if the attack succeeds. "mallory" is the attacker's namespace; the Gateway "web" lives in ns
// (team-a) and lets routes of every namespace attach.

const mallory = "mallory"

// kindsGateway is a shared Gateway with a listener per protocol, every one open to routes of
// all namespaces.
func kindsGateway() *gwv1.Gateway {
	open := func(l gwv1.Listener) gwv1.Listener {
		l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
		return l
	}
	return gateway("web",
		open(listener("http", gwv1.HTTPProtocolType, 80, "")),
		open(passthrough(listener("tls", gwv1.TLSProtocolType, 443, "*.example.com"))),
		open(listener("tcp", gwv1.TCPProtocolType, 5432, "")),
		open(listener("udp", gwv1.UDPProtocolType, 53, "")))
}

// kindsBlueprint renders an "own" ConfigMap for the Gateway and, per route of each non-HTTP
// kind, the given template (the same for every kind); HTTPRoutes get a plain ConfigMap.
func kindsBlueprint(routeTemplate string) *v1alpha1.GatewayClassBlueprint {
	bp := blueprint(map[string]string{"own": configMapTemplate("own", "a: b")}, `{"tier": "default"}`)
	bp.Spec.ListenerProtocols = []gwv1.ProtocolType{gwv1.HTTPProtocolType, gwv1.TLSProtocolType, gwv1.TCPProtocolType, gwv1.UDPProtocolType}
	set := func(t string) *v1alpha1.RouteTemplate {
		return &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"config": t}}
	}
	bp.Spec.HTTPRouteTemplate = set(configMapTemplate("{{ lower .Route.kind }}-{{ .Route.metadata.name }}", `tier: {{ .Values.tier | quote }}`))
	bp.Spec.GRPCRouteTemplate = set(routeTemplate)
	bp.Spec.TLSRouteTemplate = set(routeTemplate)
	bp.Spec.TCPRouteTemplate = set(routeTemplate)
	bp.Spec.UDPRouteTemplate = set(routeTemplate)
	return bp
}

func kindMeta(namespace, name string, age time.Duration) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: namespace, Name: name, CreationTimestamp: metav1.NewTime(created.Add(age))}
}

func webParent(sectionName string) gwv1.CommonRouteSpec {
	p := section(sectionName)
	p.Namespace = ptr(gwv1.Namespace(ns))
	return gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{p}}
}

func backendRef(namespace, name string, port gwv1.PortNumber) gwv1.BackendRef {
	ref := gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: gwv1.ObjectName(name), Port: ptr(port)}}
	if namespace != "" {
		ref.Namespace = ptr(gwv1.Namespace(namespace))
	}
	return ref
}

func tcpRoute(namespace, name string, age time.Duration, backends ...gwv1.BackendRef) *gwv1.TCPRoute {
	return &gwv1.TCPRoute{ObjectMeta: kindMeta(namespace, name, age), Spec: gwv1.TCPRouteSpec{CommonRouteSpec: webParent("tcp"), Rules: []gwv1.TCPRouteRule{{BackendRefs: backends}}}}
}

func tlsRoute(namespace, name string, age time.Duration, backends ...gwv1.BackendRef) *gwv1.TLSRoute {
	return &gwv1.TLSRoute{ObjectMeta: kindMeta(namespace, name, age), Spec: gwv1.TLSRouteSpec{CommonRouteSpec: webParent("tls"),
		Hostnames: []gwv1.Hostname{"db.example.com"}, Rules: []gwv1.TLSRouteRule{{BackendRefs: backends}}}}
}

func grpcRouteOf(namespace, name string, age time.Duration, backends ...gwv1.BackendRef) *gwv1.GRPCRoute {
	refs := make([]gwv1.GRPCBackendRef, len(backends))
	for i, b := range backends {
		refs[i] = gwv1.GRPCBackendRef{BackendRef: b}
	}
	return &gwv1.GRPCRoute{ObjectMeta: kindMeta(namespace, name, age), Spec: gwv1.GRPCRouteSpec{CommonRouteSpec: webParent("http"), Rules: []gwv1.GRPCRouteRule{{BackendRefs: refs}}}}
}

func udpRoute(namespace, name string, age time.Duration, backends ...gwv1.BackendRef) *gwv1.UDPRoute {
	return &gwv1.UDPRoute{ObjectMeta: kindMeta(namespace, name, age), Spec: gwv1.UDPRouteSpec{CommonRouteSpec: webParent("udp"), Rules: []gwv1.UDPRouteRule{{BackendRefs: backends}}}}
}

// objectsBy indexes rendered objects by "Kind ns/name" of their owner.
func objectsBy(res *desired.Result) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	for _, o := range res.Objects {
		k := o.Owner.Kind + " " + o.Owner.NamespacedName.String()
		out[k] = append(out[k], o.Object)
	}
	return out
}

// routeErrs maps "Kind ns/name" to each route's error.
func routeErrs(res *desired.Result) map[string]error {
	out := map[string]error{}
	for _, r := range res.Routes {
		out[r.Kind+" "+r.NamespacedName.String()] = r.Err
	}
	return out
}

func dataOf(o map[string]any) map[string]any {
	d, _ := o["data"].(map[string]any)
	return d
}

// onlyFailed checks that the Gateway rendered its own object, that exactly the routes in
// failed failed, and that every other route rendered an object.
func onlyFailed(t *testing.T, res *desired.Result, err error, failed ...string) {
	t.Helper()
	if err != nil {
		t.Fatalf("BROKE: the shared Gateway failed because of a tenant's route: %v", err)
	}
	objs, errs := objectsBy(res), routeErrs(res)
	if len(objs["Gateway "+ns+"/web"]) == 0 {
		t.Errorf("BROKE: the Gateway's own object is missing: %v", objs)
	}
	for k, e := range errs {
		want := false
		for _, f := range failed {
			want = want || f == k
		}
		switch {
		case want && e == nil:
			t.Errorf("BROKE: %s rendered, want it failed", k)
		case want && len(objs[k]) > 0:
			t.Errorf("BROKE: %s failed but its objects were rendered: %v", k, objs[k])
		case !want && e != nil:
			t.Errorf("BROKE: %s failed with another's route: %v", k, e)
		case !want && len(objs[k]) == 0:
			t.Errorf("BROKE: %s rendered nothing", k)
		}
	}
	for _, f := range failed {
		if _, ok := errs[f]; !ok {
			t.Errorf("%s is not among the routes: %v", f, errs)
		}
	}
}

// TestReviewKindsPolicyInjectsKindTemplate: a tenant GatewayConfig targeting its own route of
// each non-HTTP kind, with a value that adds a field when the kind's template prints it bare.
// The route fails alone (named by its kind and the policy), the Gateway and an HTTPRoute and
// TCPRoute of the same name in the owner's namespace render, and the policy does not reach them.
func TestReviewKindsPolicyInjectsKindTemplate(t *testing.T) {
	bp := kindsBlueprint(configMapTemplate("{{ lower .Route.kind }}-{{ .Route.metadata.name }}", `tier: {{ .Values.tier }}`))
	for _, kind := range []string{"GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"} {
		t.Run(kind, func(t *testing.T) {
			var evil client.Object
			switch kind {
			case "GRPCRoute":
				evil = &gwv1.GRPCRoute{ObjectMeta: kindMeta(mallory, "shop", time.Hour), Spec: gwv1.GRPCRouteSpec{CommonRouteSpec: webParent("http")}}
			case "TLSRoute":
				evil = tlsRoute(mallory, "shop", time.Hour)
			case "TCPRoute":
				evil = tcpRoute(mallory, "shop", time.Hour)
			case "UDPRoute":
				evil = udpRoute(mallory, "shop", time.Hour)
			}
			policy := gatewayConfig(mallory, "evil", target(kind, "shop"), `{"tier": "x\n  extra: field"}`, "")
			// Another "tier" through the same kind and name, in the owner's namespace.
			ownerTCP := tcpRoute(ns, "shop", 0)
			in := &desired.Input{Gateway: kindsGateway(), Class: class(), Blueprint: bp,
				Routes: []*gwv1.HTTPRoute{route(ns, "shop", nil, section("http"))}, OtherRoutes: []client.Object{ownerTCP, evil},
				GatewayConfigs: []*v1alpha1.GatewayConfig{policy}}
			res, err := desired.Gateway(in)
			onlyFailed(t, res, err, kind+" mallory/shop")
			if e := routeErrs(res)[kind+" mallory/shop"]; e != nil {
				msg := e.Error()
				if !strings.Contains(msg, kind+" mallory/shop") || !strings.Contains(msg, "GatewayConfig mallory/evil") || strings.Contains(msg, "extra") {
					t.Errorf("error %q: want it to name the route and the policy, not the value", msg)
				}
			}
			for _, k := range []string{"TCPRoute team-a/shop", "HTTPRoute team-a/shop"} {
				for _, o := range objectsBy(res)[k] {
					if tier := dataOf(o)["tier"]; tier != "default" {
						t.Errorf("BROKE: %s has tier %q: mallory's policy reached another namespace's route", k, tier)
					}
				}
			}
		})
	}
}

// TestReviewKindsPolicyOfOtherKindSameName: a GatewayConfig in the route's own namespace
// targeting HTTPRoute "shop" does not reach the TCPRoute "shop" (and vice versa); the values
// reach exactly the kind named.
func TestReviewKindsPolicyOfOtherKindSameName(t *testing.T) {
	bp := kindsBlueprint(configMapTemplate("{{ lower .Route.kind }}-{{ .Route.metadata.name }}", `tier: {{ .Values.tier | quote }}`))
	for _, c := range []struct{ target, hit, miss string }{
		{"HTTPRoute", "HTTPRoute mallory/shop", "TCPRoute mallory/shop"},
		{"TCPRoute", "TCPRoute mallory/shop", "HTTPRoute mallory/shop"},
		{"UDPRoute", "", "TCPRoute mallory/shop"},
	} {
		t.Run(c.target, func(t *testing.T) {
			policy := gatewayConfig(mallory, "p", target(c.target, "shop"), `{"tier": "mine"}`, "")
			res, err := desired.Gateway(&desired.Input{Gateway: kindsGateway(), Class: class(), Blueprint: bp,
				Routes: []*gwv1.HTTPRoute{route(mallory, "shop", nil, func() gwv1.ParentReference {
					p := section("http")
					p.Namespace = ptr(gwv1.Namespace(ns))
					return p
				}())},
				OtherRoutes:    []client.Object{tcpRoute(mallory, "shop", 0)},
				GatewayConfigs: []*v1alpha1.GatewayConfig{policy}})
			onlyFailed(t, res, err)
			objs := objectsBy(res)
			if c.hit != "" && (len(objs[c.hit]) != 1 || dataOf(objs[c.hit][0])["tier"] != "mine") {
				t.Errorf("%s: %v, want the policy's tier", c.hit, objs[c.hit])
			}
			if len(objs[c.miss]) != 1 || dataOf(objs[c.miss][0])["tier"] != "default" {
				t.Errorf("BROKE: %s: %v: a policy for %s shop reached it", c.miss, objs[c.miss], c.target)
			}
		})
	}
}

// TestReviewKindsBackendsInject: a TLS/TCP/UDP route's backendRef strings (name, namespace,
// kind, group), printed bare by the kind's template, add a field: the route fails alone, named
// by its own field or .Backends, never the Gateway or the owner's route of the same kind.
func TestReviewKindsBackendsInject(t *testing.T) {
	bad := map[string]func(*gwv1.BackendRef){
		"name":      func(b *gwv1.BackendRef) { b.Name = "db\n  extra: field" },
		"namespace": func(b *gwv1.BackendRef) { b.Namespace = ptr(gwv1.Namespace("x\n  extra: field")) },
		"kind":      func(b *gwv1.BackendRef) { b.Kind = ptr(gwv1.Kind("K\n  extra: field")) },
		"group":     func(b *gwv1.BackendRef) { b.Group = ptr(gwv1.Group("g\n  extra: field")) },
		"message":   func(b *gwv1.BackendRef) { b.Name = "db: x" }, // not found: the message holds it
	}
	field := map[string]string{"name": "name", "namespace": "namespace", "kind": "kind", "group": "group", "message": "message"}
	for what, spoil := range bad {
		for _, kind := range []string{"TLSRoute", "TCPRoute", "UDPRoute"} {
			t.Run(what+"/"+kind, func(t *testing.T) {
				bp := kindsBlueprint(configMapTemplate("{{ lower .Route.kind }}-{{ .Route.metadata.name }}",
					`b: {{ range .Backends }}{{ .`+field[what]+` }}{{ end }}`, `port: {{ range .Backends }}{{ .port }}{{ end }}`))
				ref := backendRef("", "db", 5432)
				spoil(&ref)
				good := backendRef("", "db", 5432)
				var evil, owner client.Object
				switch kind {
				case "TLSRoute":
					evil, owner = tlsRoute(mallory, "shop", time.Hour, ref), tlsRoute(ns, "shop", 0, good)
				case "TCPRoute":
					evil, owner = tcpRoute(mallory, "shop", time.Hour, ref), tcpRoute(ns, "shop", 0, good)
				case "UDPRoute":
					evil, owner = udpRoute(mallory, "shop", time.Hour, ref), udpRoute(ns, "shop", 0, good)
				}
				in := &desired.Input{Gateway: kindsGateway(), Class: class(), Blueprint: bp, OtherRoutes: []client.Object{owner, evil}}
				res, err := desired.Gateway(in)
				onlyFailed(t, res, err, kind+" mallory/shop")
				// Named by the route's own field or its .Backends (which hold the same string).
				if e := routeErrs(res)[kind+" mallory/shop"]; e != nil && !strings.Contains(e.Error(), "config: "+kind+" mallory/shop ") &&
					!strings.Contains(e.Error(), ": "+kind+" mallory/shop ") {
					t.Errorf("error %q does not name the route's own value", e)
				}
			})
		}
	}
}

// TestReviewKindsGrantIsPerKind: a ReferenceGrant that lets HTTPRoutes of mallory refer to
// Service team-a/db does not let mallory's TCPRoute (or TLSRoute) refer to it: its .Backends
// says RefNotPermitted, and whether the Service exists is not told.
func TestReviewKindsGrantIsPerKind(t *testing.T) {
	bp := kindsBlueprint(configMapTemplate("{{ lower .Route.kind }}-{{ .Route.metadata.name }}",
		`resolved: {{ range .Backends }}{{ .resolved }}/{{ .reason }}{{ end }}`))
	grant := &gwv1beta1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "http-only"}, Spec: gwv1beta1.ReferenceGrantSpec{
		From: []gwv1beta1.ReferenceGrantFrom{{Group: gwv1.GroupName, Kind: "HTTPRoute", Namespace: mallory}},
		To:   []gwv1beta1.ReferenceGrantTo{{Group: "", Kind: "Service"}},
	}}
	for _, exists := range []bool{true, false} {
		t.Run(fmt.Sprint("service exists ", exists), func(t *testing.T) {
			in := &desired.Input{Gateway: kindsGateway(), Class: class(), Blueprint: bp,
				OtherRoutes:     []client.Object{tcpRoute(mallory, "a", 0, backendRef(ns, "db", 5432)), tlsRoute(mallory, "b", 0, backendRef(ns, "db", 5432))},
				ReferenceGrants: []*gwv1beta1.ReferenceGrant{grant},
				BackendServices: map[types.NamespacedName]bool{{Namespace: ns, Name: "db"}: exists},
			}
			res, err := desired.Gateway(in)
			onlyFailed(t, res, err)
			for _, k := range []string{"TCPRoute mallory/a", "TLSRoute mallory/b"} {
				objs := objectsBy(res)[k]
				if len(objs) != 1 || dataOf(objs[0])["resolved"] != "false/RefNotPermitted" {
					t.Errorf("BROKE: %s: %v: an HTTPRoute's grant let another kind refer across namespaces (or told the Service exists)", k, objs)
				}
			}
		})
	}
}

// TestReviewKindsRouteErrorOracle: a route template of any kind prints a route annotation
// bare; the Gateway owner's GatewayConfig holds a secret (a value the route's tenant cannot
// read, never printed where a tenant reads it). The attacker sets the annotation to a guess.
// The refusal names the first source holding the failing string: with a right guess that is
// the owner's GatewayConfig and its value path, in the route's own error (its Rendered
// condition and a Warning Event): a guess-confirmation oracle on the owner's values. The
// quarantine's reason (desired/quarantine.go) avoids it for the Gateway's render; the route
// render's error does not.
func TestReviewKindsRouteErrorOracle(t *testing.T) {
	bp := kindsBlueprint(configMapTemplate("{{ lower .Route.kind }}-{{ .Route.metadata.name }}",
		`note: {{ .Route.metadata.annotations.note }}`, `digest: {{ .Values.dbPassword | sha256sum | quote }}`))
	owner := gatewayConfig(ns, "web", target("Gateway", "web"), `{"dbPassword": "s3cr3t: #1"}`, "")
	msgs := map[string]string{}
	for _, guess := range []string{"s3cr3t: #1", "wrong: #2"} {
		evil := tcpRoute(mallory, "shop", 0)
		evil.Annotations = map[string]string{"note": guess}
		res, err := desired.Gateway(&desired.Input{Gateway: kindsGateway(), Class: class(), Blueprint: bp,
			OtherRoutes: []client.Object{evil}, GatewayConfigs: []*v1alpha1.GatewayConfig{owner}})
		onlyFailed(t, res, err, "TCPRoute mallory/shop")
		e := routeErrs(res)["TCPRoute mallory/shop"]
		if e == nil {
			t.Fatalf("guess %q: the route rendered", guess)
		}
		msgs[guess] = strings.ReplaceAll(e.Error(), guess, "GUESS")
		if strings.Contains(e.Error(), "GatewayConfig "+ns+"/web") || strings.Contains(e.Error(), "dbPassword") {
			t.Errorf("BROKE: the attacker's route error names the owner's value that equals its guess: %s", e)
		}
	}
	if msgs["s3cr3t: #1"] != msgs["wrong: #2"] {
		t.Errorf("BROKE: the route error tells a right guess from a wrong one:\n right: %s\n wrong: %s", msgs["s3cr3t: #1"], msgs["wrong: #2"])
	}
}

// TestReviewKindsRoutesQuarantine: a Gateway template that lists .Routes prints a field of
// every route bare; a TCPRoute (or UDPRoute, TLSRoute, GRPCRoute) of another namespace with a hostile backend name
// is set apart, named by its kind, and the Gateway and the owner's routes render.
func TestReviewKindsRoutesQuarantine(t *testing.T) {
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: routes
data:
  {{- range .Routes }}{{ $r := . }}{{ range .rules }}{{ range .backendRefs }}
  {{ printf "%s.%s.%s" $r.kind $r.namespace $r.name | quote }}: {{ .name }}
  {{- end }}{{ end }}{{ end }}
`
	for _, kind := range []string{"TCPRoute", "UDPRoute", "TLSRoute", "GRPCRoute"} {
		t.Run(kind, func(t *testing.T) {
			bp := blueprint(map[string]string{"routes": tmpl}, `{}`)
			bp.Spec.ListenerProtocols = []gwv1.ProtocolType{gwv1.HTTPProtocolType, gwv1.TLSProtocolType, gwv1.TCPProtocolType, gwv1.UDPProtocolType}
			hostile := backendRef("", "db\n  extra: field", 1)
			var evil client.Object
			switch kind {
			case "TCPRoute":
				evil = tcpRoute(mallory, "evil", time.Hour, hostile)
			case "UDPRoute":
				evil = udpRoute(mallory, "evil", time.Hour, hostile)
			case "TLSRoute":
				evil = tlsRoute(mallory, "evil", time.Hour, hostile)
			case "GRPCRoute":
				evil = grpcRouteOf(mallory, "evil", time.Hour, hostile)
			}
			res, err := desired.Gateway(&desired.Input{Gateway: kindsGateway(), Class: class(), Blueprint: bp,
				OtherRoutes: []client.Object{tcpRoute(ns, "db", 0, backendRef("", "db", 5432)), evil}})
			if err != nil {
				t.Fatalf("BROKE: the shared Gateway failed with mallory's %s: %v", kind, err)
			}
			errs := routeErrs(res)
			if errs[kind+" mallory/evil"] == nil || errs["TCPRoute team-a/db"] != nil {
				t.Errorf("BROKE: route errors %v, want mallory's %s alone set apart", errs, kind)
			}
			data := dataOf(objectsBy(res)["Gateway team-a/web"][0])
			if data["TCPRoute.team-a.db"] != "db" || len(data) != 1 {
				t.Errorf("routes ConfigMap %v, want the owner's route alone", data)
			}
		})
	}
}

// TestReviewKindsNamespaceEscape: a TCPRoute template writes metadata.namespace from the values,
// and the attacker's GatewayConfig for its TCPRoute names the Gateway's namespace: the object
// must not land there (nor anywhere but the route's namespace).
func TestReviewKindsNamespaceEscape(t *testing.T) {
	bp := kindsBlueprint(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ lower .Route.kind }}-{{ .Route.metadata.name }}
  namespace: {{ .Values.where | default .Route.metadata.namespace | quote }}
data: {}
`)
	policy := gatewayConfig(mallory, "evil", target("TCPRoute", "shop"), `{"where": "team-a"}`, "")
	res, err := desired.Gateway(&desired.Input{Gateway: kindsGateway(), Class: class(), Blueprint: bp,
		OtherRoutes: []client.Object{tcpRoute(mallory, "shop", 0)}, GatewayConfigs: []*v1alpha1.GatewayConfig{policy}})
	if err != nil {
		t.Fatalf("BROKE: the Gateway failed with mallory's route: %v", err)
	}
	rendered := 0
	for _, o := range res.Objects {
		if o.Owner.Kind != "TCPRoute" {
			continue
		}
		rendered++
		if got := o.Object["metadata"].(map[string]any)["namespace"]; got != mallory {
			t.Errorf("BROKE: mallory's TCPRoute rendered an object into namespace %v", got)
		}
	}
	if e := routeErrs(res)["TCPRoute mallory/shop"]; rendered == 0 && (e == nil || !strings.Contains(e.Error(), `must be in namespace "mallory"`)) {
		t.Errorf("mallory's TCPRoute rendered nothing, with error %v", e)
	}
}

// TestReviewKindsSameNameAcrossKinds: in one namespace an HTTPRoute and a TCPRoute named alike,
// whose templates name their objects after the route alone: the later route fails with the
// collision (named by kind), the earlier keeps its object, the Gateway and the others render.
func TestReviewKindsSameNameAcrossKinds(t *testing.T) {
	bp := kindsBlueprint(configMapTemplate("{{ .Route.metadata.name }}", `kind: {{ .Route.kind | quote }}`))
	bp.Spec.HTTPRouteTemplate.ResourceTemplates["config"] = configMapTemplate("{{ .Route.metadata.name }}", `kind: {{ .Route.kind | quote }}`)
	http := route(ns, "shop", nil, section("http"))
	tcp := tcpRoute(ns, "shop", time.Hour) // created later
	res, err := desired.Gateway(&desired.Input{Gateway: kindsGateway(), Class: class(), Blueprint: bp,
		Routes: []*gwv1.HTTPRoute{http}, OtherRoutes: []client.Object{tcp, udpRoute(mallory, "shop", 0)}})
	onlyFailed(t, res, err, "TCPRoute team-a/shop")
	if e := routeErrs(res)["TCPRoute team-a/shop"]; e != nil && !strings.Contains(e.Error(), "collides") {
		t.Errorf("TCPRoute error %v, want the collision", e)
	}
	if objs := objectsBy(res)["HTTPRoute team-a/shop"]; len(objs) != 1 || dataOf(objs[0])["kind"] != "HTTPRoute" {
		t.Errorf("HTTPRoute's object %v", objs)
	}
}

// TestReviewKindsLiveObjectsStayPerNamespace: objects filed by AddLive under the labels of a
// route of one kind and name, but in the attacker's namespace, or under another kind, never
// reach the owner's TCPRoute of that name; an object without a (non-empty) route label is the
// Gateway's (the controller must prove it is).
func TestReviewKindsLiveObjectsStayPerNamespace(t *testing.T) {
	bp := kindsBlueprint(configMapTemplate("{{ lower .Route.kind }}-{{ .Route.metadata.name }}",
		`seen: {{ range .Resources.config }}{{ .metadata.namespace }}/{{ .metadata.name }},{{ end }}`))
	bp.Spec.GatewayTemplate.ResourceTemplates["config"] = configMapTemplate("gw-config",
		`seen: {{ range .Resources.config }}{{ .metadata.namespace }}/{{ .metadata.name }},{{ end }}`)
	in := &desired.Input{Gateway: kindsGateway(), Class: class(), Blueprint: bp, OtherRoutes: []client.Object{tcpRoute(ns, "shop", 0)}}
	obj := func(namespace, name string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"namespace": namespace, "name": name}}
	}
	in.AddLive(map[string]string{v1alpha1.LabelTemplate: "config", v1alpha1.RouteLabel("TCPRoute"): "shop"}, ns, obj(ns, "own"))
	in.AddLive(map[string]string{v1alpha1.LabelTemplate: "config", v1alpha1.RouteLabel("TCPRoute"): "shop"}, mallory, obj(mallory, "a"))
	in.AddLive(map[string]string{v1alpha1.LabelTemplate: "config", v1alpha1.RouteLabel("UDPRoute"): "shop"}, ns, obj(ns, "b"))
	in.AddLive(map[string]string{v1alpha1.LabelTemplate: "config", v1alpha1.RouteLabel("TCPRoute"): "shop"}, "", obj("", "c"))
	res, err := desired.Gateway(in)
	onlyFailed(t, res, err)
	objs := objectsBy(res)
	if got := dataOf(objs["TCPRoute team-a/shop"][0])["seen"]; got != ns+"/own," {
		t.Errorf("BROKE: the TCPRoute's .Resources.config held %q, want its own object only", got)
	}
	for _, o := range objs["Gateway team-a/web"] {
		if seen := dataOf(o)["seen"]; seen != nil && seen != "" {
			t.Errorf("BROKE: the Gateway's .Resources.config held %q: a route's object reached the Gateway's render", seen)
		}
	}
}

// TestReviewKindsTenantRouteLabelsNotTaken: a blueprint copies the route's labels and
// annotations onto its object (a common Helm idiom). The tenant labels its TCPRoute with
// another kind's route label (gateway.gantry.dev/httproute-name) and annotates it with
// gateway.gantry.dev/keep: the rendered object then carries two route labels, and
// v1alpha1.RouteOfLabels, which takes the first kind in RouteTemplateFields order, files the
// live object (pruning key, .Resources) under HTTPRoute <tenant's value> instead of its
// TCPRoute, and the keep annotation stops Gantry from ever pruning it. DESIGN: Gantry's own
// labels and annotations are never taken from tenants.
func TestReviewKindsTenantRouteLabelsNotTaken(t *testing.T) {
	bp := kindsBlueprint(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ lower .Route.kind }}-{{ .Route.metadata.name }}
  labels: {{ toJson .Route.metadata.labels }}
  annotations: {{ toJson .Route.metadata.annotations }}
data: {}
`)
	evil := tcpRoute(mallory, "shop", 0)
	evil.Labels = map[string]string{v1alpha1.LabelHTTPRoute: "victim", "app": "shop"}
	evil.Annotations = map[string]string{v1alpha1.AnnotationKeep: "true", "note": "x"}
	res, err := desired.Gateway(&desired.Input{Gateway: kindsGateway(), Class: class(), Blueprint: bp, OtherRoutes: []client.Object{evil}})
	if err != nil {
		t.Fatal(err)
	}
	objs := objectsBy(res)["TCPRoute mallory/shop"]
	if len(objs) != 1 {
		if e := routeErrs(res)["TCPRoute mallory/shop"]; e != nil {
			return // refused: holds
		}
		t.Fatalf("TCPRoute objects %v", objs)
	}
	meta := objs[0]["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	strLabels := map[string]string{}
	for k, v := range labels {
		strLabels[k], _ = v.(string)
	}
	if kind, name, _ := v1alpha1.RouteOfLabels(strLabels); kind != "TCPRoute" || name != "shop" {
		t.Errorf("BROKE: the TCPRoute's object reads as %s %q's by its labels %v", kind, name, labels)
	}
	if ann, _ := meta["annotations"].(map[string]any); ann[v1alpha1.AnnotationKeep] != nil {
		t.Errorf("BROKE: the tenant's %s annotation reached its rendered object: %v", v1alpha1.AnnotationKeep, ann)
	}
}
