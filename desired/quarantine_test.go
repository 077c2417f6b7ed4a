package desired_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/render"
)

// TestRouteHostnameCannotFailASharedGateway: issue 19. A tenant's route hostname
// `*.shop.example.com`, which the shared Gateway's template lists unquoted, made the Gateway
// RenderFailed naming no culprit. Route hostnames are the route owner's words: the route is
// set apart (its status says why, naming it), and the Gateway and the other tenant's route go
// on without its hostnames.
func TestRouteHostnameCannotFailASharedGateway(t *testing.T) {
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: names
data:
  attached: [{{ join ", " .Hostnames.Attached }}]
`
	l := listener("http", gwv1.HTTPProtocolType, 80, "*.example.com")
	l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	bad := route("shop", "shop", []string{"*.shop.example.com"}, parent())
	good := route("blog", "blog", []string{"blog.example.com"}, parent())
	res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", l), Class: class(), Blueprint: blueprint(map[string]string{"names": tmpl}, `{}`),
		Routes: []*gwv1.HTTPRoute{bad, good}})
	if err != nil {
		t.Fatalf("Gateway: %v, want the shop route set apart", err)
	}
	if got := res.Objects[0].Object["data"].(map[string]any)["attached"]; !slices.Equal(toStrings(got), []string{"blog.example.com"}) {
		t.Errorf("attached = %v, want blog.example.com alone", got)
	}
	if !slices.Equal(res.Hostnames.Attached, []string{"blog.example.com"}) {
		t.Errorf(".Hostnames.Attached = %v", res.Hostnames.Attached)
	}
	for _, r := range res.Routes {
		switch r.NamespacedName {
		case types.NamespacedName{Namespace: "shop", Name: "shop"}:
			if r.Err == nil || !strings.Contains(r.Err.Error(), "HTTPRoute shop/shop hostname") {
				t.Errorf("shop route error %v, want one naming its hostname", r.Err)
			}
		default:
			if r.Err != nil {
				t.Errorf("route %s: %v, want none", r.NamespacedName, r.Err)
			}
		}
	}
}

// TestListenerSetOfAnotherNamespaceIsSetApart: a ListenerSet of another namespace whose
// content fails the shared Gateway's render is set apart, with every other contribution of its
// namespace; the owner's ListenerSet and the Gateway go on.
func TestListenerSetOfAnotherNamespaceIsSetApart(t *testing.T) {
	gw := allowListeners(gateway("web"), gwv1.NamespacesFromAll, nil)
	hostile := listenerSet("tenant", "hostile", "web", 0, listener("extra", gwv1.HTTPProtocolType, 8080, "tenant.example.com"))
	hostile.Annotations = map[string]string{"note": "x\n  injected: true"}
	second := listenerSet("tenant", "second", "web", 0, listener("more", gwv1.HTTPProtocolType, 8081, "more.example.com"))
	own := listenerSet(ns, "own", "web", 0, listener("own", gwv1.HTTPProtocolType, 8082, "own.example.com"))
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: sets
data:
  {{- range .ListenerSets }}
  {{ .metadata.name }}: {{ .metadata.annotations.note | default "none" }}
  {{- end }}
`
	res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: blueprint(map[string]string{"sets": tmpl}, `{}`),
		ListenerSets: []*gwv1.ListenerSet{hostile, second, own}})
	if err != nil {
		t.Fatalf("Gateway: %v", err)
	}
	data := res.Objects[0].Object["data"].(map[string]any)
	if len(data) != 1 || data["own"] != "none" {
		t.Errorf("data = %v, want the owner's ListenerSet alone", data)
	}
	for _, o := range res.ListenerSets {
		apart := o.Namespace == "tenant"
		if apart != (o.Reason == desired.ReasonContributionFailed) {
			t.Errorf("ListenerSet %s: reason %q, message %q", o.NamespacedName, o.Reason, o.Message)
		}
		if apart && !strings.Contains(o.Message, "ListenerSet tenant/hostile") {
			t.Errorf("ListenerSet %s: message %q does not name the culprit", o.NamespacedName, o.Message)
		}
	}
}

func toStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, e := range list {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

// TestBudgetIsNotSharedOut: issue 19. 63 routes × 16 hostnames from one tenant exhausted a
// shared Gateway's object budget (a template rendering one object per hostname), and the
// whole Gateway failed. A budget exceeded names no value, so the namespace that contributes
// most is set apart: the Gateway renders the owner's hostnames, and the tenant's routes say why.
func TestBudgetIsNotSharedOut(t *testing.T) {
	tmpl := `{{- range .Hostnames.Attached }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: host-{{ . | replace "." "-" }}
{{- end }}
`
	l := listener("http", gwv1.HTTPProtocolType, 80, "*.example.com")
	l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	routes := []*gwv1.HTTPRoute{route(ns, "own", []string{"www.example.com", "api.example.com"}, parent())}
	for i := range 10 {
		var hosts []string
		for j := range 16 {
			hosts = append(hosts, fmt.Sprintf("h%d-%d.example.com", i, j))
		}
		routes = append(routes, route("greedy", fmt.Sprintf("r%d", i), hosts, parent()))
	}
	res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", l), Class: class(), Blueprint: blueprint(map[string]string{"hosts": tmpl}, `{}`),
		Routes: routes, Limits: render.Limits{MaxObjects: 100}})
	if err != nil {
		t.Fatalf("Gateway: %v, want the greedy namespace set apart", err)
	}
	if len(res.Objects) != 2 {
		t.Errorf("%d objects, want the owner's 2", len(res.Objects))
	}
	for _, r := range res.Routes {
		if greedy := r.Namespace == "greedy"; greedy != (r.Err != nil) {
			t.Errorf("route %s: error %v", r.NamespacedName, r.Err)
		} else if greedy && !strings.Contains(r.Err.Error(), "namespace greedy") {
			t.Errorf("route %s: error %v does not name its namespace", r.NamespacedName, r.Err)
		}
	}
}

// TestSetApartTheHolderThatContributes: the second review's break. The check substitutes by
// value, so an error names the first source holding the failing string: a tenant route
// hostname `true` equal to the owner's Gateway annotation "true" failed the whole Gateway,
// blamed on the owner; equal to a bystander's or the owner's ListenerSet annotation, it got
// those set apart first. Every holder is named now, contributions are set apart before the
// owner is blamed, and what was set apart for nothing is tried back in.
func TestSetApartTheHolderThatContributes(t *testing.T) {
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: names
data:
  attached: [{{ join ", " .Hostnames.Attached }}]
`
	l := listener("http", gwv1.HTTPProtocolType, 80, "")
	l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	evil := route("evil", "r", []string{"true"}, parent())
	bystanderRoute := route("bystander", "br", []string{"by2.example.com"}, parent())
	for _, tt := range []struct {
		name string
		gw   func() *gwv1.Gateway
		sets func() []*gwv1.ListenerSet
	}{
		{"the owner's Gateway annotation", func() *gwv1.Gateway {
			gw := gateway("web", l)
			gw.Annotations = map[string]string{"example.com/internal": "true"}
			return gw
		}, nil},
		{"a bystander's ListenerSet annotation", nil, func() []*gwv1.ListenerSet {
			ls := listenerSet("bystander", "ls", "web", 0, listener("extra", gwv1.HTTPProtocolType, 8080, "by.example.com"))
			ls.Annotations = map[string]string{"note": "true"}
			return []*gwv1.ListenerSet{ls}
		}},
		{"the owner's ListenerSet annotation", nil, func() []*gwv1.ListenerSet {
			ls := listenerSet(ns, "own", "web", 0, listener("own", gwv1.HTTPProtocolType, 8081, "own.example.com"))
			ls.Annotations = map[string]string{"note": "true"}
			return []*gwv1.ListenerSet{ls}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gw := gateway("web", l)
			if tt.gw != nil {
				gw = tt.gw()
			}
			gw = allowListeners(gw, gwv1.NamespacesFromAll, nil)
			var sets []*gwv1.ListenerSet
			if tt.sets != nil {
				sets = tt.sets()
			}
			res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: blueprint(map[string]string{"names": tmpl}, `{}`),
				Routes: []*gwv1.HTTPRoute{evil, bystanderRoute}, ListenerSets: sets})
			if err != nil {
				t.Fatalf("Gateway: %v, want the evil route set apart", err)
			}
			for _, o := range res.ListenerSets {
				if !o.Accepted() {
					t.Errorf("ListenerSet %s set apart (%s: %s), want it kept", o.NamespacedName, o.Reason, o.Message)
				}
			}
			for _, r := range res.Routes {
				if isEvil := r.Namespace == "evil"; isEvil != (r.Err != nil) {
					t.Errorf("route %s: error %v", r.NamespacedName, r.Err)
				}
			}
			if got := toStrings(res.Objects[0].Object["data"].(map[string]any)["attached"]); !slices.Contains(got, "by2.example.com") || slices.Contains(got, "true") {
				t.Errorf("attached = %v, want the bystander's hostname and not the evil one", got)
			}
		})
	}
}

// TestThirdReviewSetApart: the third review's breaks of the render quarantine. Over a budget,
// the namespace counted most by listeners and hostnames was set apart though another brought
// 3,000 bytes; two objects named alike after hostnames (`shop.example.com` and a tenant's
// `shop-example.com`) failed the whole Gateway; a set-apart ListenerSet still won a listener
// conflict against a later one.
func TestThirdReviewSetApart(t *testing.T) {
	l := listener("http", gwv1.HTTPProtocolType, 80, "")
	l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	t.Run("budget by what is brought", func(t *testing.T) {
		tmpl := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  hosts: {{ join \",\" .Hostnames.Attached | quote }}\n" +
			"  {{- range .ListenerSets }}\n  {{ .metadata.name }}: {{ .metadata.annotations.note | quote }}\n  {{- end }}\n"
		gw := allowListeners(gateway("web", l), gwv1.NamespacesFromAll, nil)
		big := listenerSet("zz-attacker", "big", "web", 0, listener("x", gwv1.HTTPProtocolType, 8080, "att.example.com"))
		big.Annotations = map[string]string{"note": strings.Repeat("a", 3000)}
		by := route("bystander", "r", []string{"one.example.com", "two.example.com", "three.example.com"}, parent())
		res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: blueprint(map[string]string{"c": tmpl}, `{}`),
			Routes: []*gwv1.HTTPRoute{by}, ListenerSets: []*gwv1.ListenerSet{big}, Limits: render.Limits{MaxBytes: 3100}})
		if err != nil {
			t.Fatalf("Gateway: %v", err)
		}
		if res.ListenerSets[0].Accepted() || res.Routes[0].Err != nil {
			t.Errorf("ListenerSet %s (%s), route error %v: want the big ListenerSet set apart, the route kept", res.ListenerSets[0].NamespacedName, res.ListenerSets[0].Reason, res.Routes[0].Err)
		}
	})
	t.Run("two objects named alike", func(t *testing.T) {
		tmpl := "{{- range .Hostnames.Attached }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ . | replace \".\" \"-\" }}\n{{- end }}\n"
		by := route("a-bystander", "r", []string{"shop.example.com"}, parent())
		att := route("z-attacker", "r", []string{"shop-example.com"}, parent())
		att.CreationTimestamp = metav1.NewTime(created.Add(time.Hour)) // came last
		res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", l), Class: class(), Blueprint: blueprint(map[string]string{"c": tmpl}, `{}`),
			Routes: []*gwv1.HTTPRoute{by, att}})
		if err != nil {
			t.Fatalf("Gateway: %v", err)
		}
		for _, r := range res.Routes {
			if (r.Namespace == "z-attacker") != (r.Err != nil) {
				t.Errorf("route %s: error %v", r.NamespacedName, r.Err)
			}
		}
	})
	t.Run("a set-apart ListenerSet claims no port", func(t *testing.T) {
		tmpl := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sets\ndata:\n  {{- range .ListenerSets }}\n  {{ .metadata.name }}: {{ .metadata.annotations.note | default \"none\" }}\n  {{- end }}\n"
		gw := allowListeners(gateway("web"), gwv1.NamespacesFromAll, nil)
		old := listenerSet("attacker", "old", "web", 0, listener("a", gwv1.HTTPProtocolType, 8080, "by.example.com"))
		old.Annotations = map[string]string{"note": "x\n  injected: true"}
		later := listenerSet("bystander", "new", "web", time.Hour, listener("b", gwv1.HTTPProtocolType, 8080, "by.example.com"))
		res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: blueprint(map[string]string{"sets": tmpl}, `{}`),
			ListenerSets: []*gwv1.ListenerSet{old, later}})
		if err != nil {
			t.Fatalf("Gateway: %v", err)
		}
		for _, o := range res.ListenerSets {
			if (o.Namespace == "bystander") != o.Accepted() || o.Namespace == "bystander" && o.Message != "" {
				t.Errorf("ListenerSet %s: accepted %v, %s %q", o.NamespacedName, o.Accepted(), o.Reason, o.Message)
			}
		}
	})
}
