package desired_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/desired"
)

// routesDump is a Gateway template that writes .Routes whole, quoted by toYaml.
const routesDump = `apiVersion: v1
kind: ConfigMap
metadata:
  name: routes
data:
  routes: {{ toYaml .Routes | quote }}
`

func dumpedRoutes(t *testing.T, res *desired.Result) []map[string]any {
	t.Helper()
	var out []map[string]any
	text := res.Objects[0].Object["data"].(map[string]any)["routes"].(string)
	if err := yaml.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf(".Routes as written: %v\n%s", err, text)
	}
	return out
}

// TestRoutesForGatewayTemplates: issue 20. A Gateway template reads every accepted route
// attached to the Gateway: oldest first (Gateway API's precedence among routes), then by
// namespace and name; with the listeners it attached through, its effective hostnames
// (listener ∩ route), and its rules with each backendRef's verdict. A route no listener
// accepts is not in it.
func TestRoutesForGatewayTemplates(t *testing.T) {
	l := listener("http", gwv1.HTTPProtocolType, 80, "*.example.com")
	l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	older := route("zeta", "old", []string{"old.example.com", "old.other.org"}, parent())
	older.CreationTimestamp = metav1.NewTime(created.Add(-time.Hour))
	older.Spec.Rules = []gwv1.HTTPRouteRule{{
		Matches:     []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: ptr(gwv1.PathMatchPathPrefix), Value: ptr("/api")}}},
		BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: "api", Port: ptr(gwv1.PortNumber(8080))}}}},
	}}
	b := route("alpha", "b", nil, parent())
	a := route("alpha", "a", []string{"a.example.com"}, parent())
	outside := route("alpha", "outside", []string{"www.other.org"}, parent())
	res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", l), Class: class(), Blueprint: blueprint(map[string]string{"routes": routesDump}, `{}`),
		Routes:          []*gwv1.HTTPRoute{b, outside, older, a},
		BackendServices: map[types.NamespacedName]bool{{Namespace: "zeta", Name: "api"}: true}})
	if err != nil {
		t.Fatal(err)
	}
	got := dumpedRoutes(t, res)
	var order []string
	for _, r := range got {
		order = append(order, r["namespace"].(string)+"/"+r["name"].(string))
	}
	if strings.Join(order, " ") != "zeta/old alpha/a alpha/b" {
		t.Fatalf(".Routes order %v, want zeta/old (oldest) then alpha/a, alpha/b; alpha/outside matches no listener", order)
	}
	old := got[0]
	if h := toStrings(old["hostnames"]); strings.Join(h, ",") != "old.example.com" {
		t.Errorf("old's hostnames %v, want old.example.com only (old.other.org is no listener's)", h)
	}
	if h := toStrings(got[2]["hostnames"]); strings.Join(h, ",") != "*.example.com" {
		t.Errorf("b (no hostnames) has %v, want the listener's *.example.com", h)
	}
	parents := old["parents"].([]any)
	if len(parents) != 1 || parents[0].(map[string]any)["sectionName"] != "http" || parents[0].(map[string]any)["kind"] != "Gateway" {
		t.Errorf("old's parents %v, want the Gateway's listener http", parents)
	}
	ref := old["rules"].([]any)[0].(map[string]any)["backendRefs"].([]any)[0].(map[string]any)
	if ref["resolved"] != true || ref["reason"] != "ResolvedRefs" || ref["namespace"] != "zeta" {
		t.Errorf("old's backendRef %v, want resolved in zeta", ref)
	}
	if old["kind"] != "HTTPRoute" || old["creationTimestamp"] != created.Add(-time.Hour).UTC().Format(time.RFC3339) {
		t.Errorf("old's identity %v %v", old["kind"], old["creationTimestamp"])
	}
}

// TestHostileRouteInRoutesIsSetApart: issue 20. Everything in .Routes is tenant input: a
// route whose path, inserted unquoted by a shared Gateway's template, would write a field of its
// own is set apart (its status names it), and the Gateway renders with the other routes.
func TestHostileRouteInRoutesIsSetApart(t *testing.T) {
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: paths
data:
  {{- range .Routes }}
  {{ .name }}: {{ (index (index .rules 0).matches 0).path.value }}
  {{- end }}
`
	l := listener("http", gwv1.HTTPProtocolType, 80, "")
	l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	withPath := func(r *gwv1.HTTPRoute, path string) *gwv1.HTTPRoute {
		r.Spec.Rules = []gwv1.HTTPRouteRule{{Matches: []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: ptr(gwv1.PathMatchPathPrefix), Value: ptr(path)}}}}}
		return r
	}
	hostile := withPath(route("mallory", "evil", nil, parent()), "/x\n  injected: \"true\"")
	good := withPath(route("blog", "blog", nil, parent()), "/blog")
	res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", l), Class: class(), Blueprint: blueprint(map[string]string{"paths": tmpl}, `{}`),
		Routes: []*gwv1.HTTPRoute{hostile, good}})
	if err != nil {
		t.Fatalf("Gateway: %v, want the hostile route set apart", err)
	}
	data := res.Objects[0].Object["data"].(map[string]any)
	if _, ok := data["injected"]; ok || data["blog"] != "/blog" || len(data) != 1 {
		t.Errorf("data %v, want blog's path alone", data)
	}
	for _, r := range res.Routes {
		switch r.Name {
		case "evil":
			if r.Err == nil || !strings.Contains(r.Err.Error(), "HTTPRoute mallory/evil field .Routes") {
				t.Errorf("evil's error %v, want one naming its field", r.Err)
			}
		default:
			if r.Err != nil {
				t.Errorf("%s: %v", r.Name, r.Err)
			}
		}
	}
}

// TestRoutesWhereRead: .Routes reaches the templates however they name it.
func TestRoutesWhereRead(t *testing.T) {
	for _, tmpl := range []string{`{{ len .Routes }}`, `{{ len $.Routes }}`, `{{ len (index $ "Routes") }}`, `{{ with $x := $ }}{{ len $x.Routes }}{{ end }}`} {
		res, err := desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(),
			Blueprint: blueprint(map[string]string{"n": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: count\ndata:\n  count: \"" + tmpl + "\"\n"}, `{}`),
			Routes:    []*gwv1.HTTPRoute{route(ns, "r", nil, parent())}})
		if err != nil {
			t.Fatalf("%s: %v", tmpl, err)
		}
		if n := res.Objects[0].Object["data"].(map[string]any)["count"]; n != "1" {
			t.Errorf("%s = %v, want 1 route", tmpl, n)
		}
	}
}

// TestTemplateFailureOnTenantContentIsNamed: issue 19's gap, and issue 20's quoting functions
// make it common. A template that fails on what a tenant wrote (a port that does not parse, a
// value a function refuses, the blueprint's own `fail` on a tenant string) failed the shared
// Gateway naming no one. With inert stand-ins for the tenant values the template renders: the
// value is named, and the route that holds it is set apart.
func TestTemplateFailureOnTenantContentIsNamed(t *testing.T) {
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: paths
data:
  {{- range .Routes }}
  {{- $path := (index (index .rules 0).matches 0).path.value }}
  {{- if hasPrefix "/admin" $path }}{{ fail (printf "route %s: /admin is the platform's" .name) }}{{ end }}
  {{ .name }}: {{ $path | quote }}
  {{- end }}
`
	l := listener("http", gwv1.HTTPProtocolType, 80, "")
	l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	withPath := func(r *gwv1.HTTPRoute, path string) *gwv1.HTTPRoute {
		r.Spec.Rules = []gwv1.HTTPRouteRule{{Matches: []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: ptr(gwv1.PathMatchPathPrefix), Value: ptr(path)}}}}}
		return r
	}
	res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", l), Class: class(), Blueprint: blueprint(map[string]string{"paths": tmpl}, `{}`),
		Routes: []*gwv1.HTTPRoute{withPath(route("mallory", "grab", nil, parent()), "/admin/x"), withPath(route("blog", "blog", nil, parent()), "/blog")}})
	if err != nil {
		t.Fatalf("Gateway: %v, want the route that fails the template set apart", err)
	}
	if data := res.Objects[0].Object["data"].(map[string]any); data["blog"] != "/blog" || len(data) != 1 {
		t.Errorf("data %v, want blog's path alone", data)
	}
	for _, r := range res.Routes {
		if r.Name == "grab" && (r.Err == nil || !strings.Contains(r.Err.Error(), "HTTPRoute mallory/grab field .Routes")) {
			t.Errorf("grab's error %v, want one naming its path", r.Err)
		}
		if r.Name == "blog" && r.Err != nil {
			t.Errorf("blog: %v", r.Err)
		}
	}
}
