package desired_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/render"
)

// Review attacks (independent review of issue 20 / security.md section 8). Each test fails if
// the attack succeeds.

func sharedListener() gwv1.Listener {
	l := listener("http", gwv1.HTTPProtocolType, 80, "")
	l.AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	return l
}

func withRules(r *gwv1.HTTPRoute, rules ...gwv1.HTTPRouteRule) *gwv1.HTTPRoute {
	r.Spec.Rules = rules
	return r
}

func pathRule(path string) gwv1.HTTPRouteRule {
	return gwv1.HTTPRouteRule{Matches: []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: ptr(gwv1.PathMatchPathPrefix), Value: ptr(path)}}}}
}

// checkOwnerAndBystander asserts that the Gateway rendered, the bystander route is fine and
// the attacker (namespace attackerNS) is the only one set apart.
func checkOwnerAndBystander(t *testing.T, res *desired.Result, err error, attackerNS string) {
	t.Helper()
	if err != nil {
		t.Fatalf("BROKE: the shared Gateway failed because of one tenant's route: %v", err)
	}
	for _, r := range res.Routes {
		if (r.Namespace == attackerNS) != (r.Err != nil) {
			t.Errorf("BROKE: route %s: error %v (want only %s set apart)", r.NamespacedName, r.Err, attackerNS)
		}
	}
}

// TestReviewRouteShapeFailsSharedGateway: the project's own .Routes template (from
// TestHostileRouteInRoutesIsSetApart) indexes the first rule's first match. A route of
// another namespace with an explicit `matches: []` (valid in Gateway API: an empty list is
// not defaulted) makes `index` fail. The error names no value, so nothing is set apart.
func TestReviewRouteShapeFailsSharedGateway(t *testing.T) {
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: paths
data:
  {{- range .Routes }}
  {{ .name }}: {{ (index (index .rules 0).matches 0).path.value | quote }}
  {{- end }}
`
	good := withRules(route("blog", "blog", nil, parent()), pathRule("/blog"))
	for name, evil := range map[string]*gwv1.HTTPRoute{
		"empty matches": withRules(route("mallory", "evil", nil, parent()), gwv1.HTTPRouteRule{Matches: []gwv1.HTTPRouteMatch{}}),
	} {
		t.Run(name, func(t *testing.T) {
			evil.CreationTimestamp = metav1.NewTime(created.Add(time.Hour))
			res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", sharedListener()), Class: class(),
				Blueprint: blueprint(map[string]string{"paths": tmpl}, `{}`), Routes: []*gwv1.HTTPRoute{good, evil}})
			checkOwnerAndBystander(t, res, err, "mallory")
		})
	}
}

// TestReviewRoutesObjectNameCollision: a Gateway template rendering one object per route
// (named namespace-name, as the docs' own advice warns joins alike). An attacker route WITHOUT
// hostnames that collides with a bystander's: the "rendered twice" fallback only considers
// routes with hostnames, though every route contributes when .Routes is read.
func TestReviewRoutesObjectNameCollision(t *testing.T) {
	tmpl := `{{- range .Routes }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ printf "%s-%s" .namespace .name | quote }}
data:
  hosts: {{ join "," .hostnames | quote }}
{{- end }}
`
	t.Run("neither has hostnames", func(t *testing.T) {
		by := route("a-b", "c", nil, parent())
		att := route("a", "b-c", nil, parent())
		att.CreationTimestamp = metav1.NewTime(created.Add(time.Hour))
		res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", sharedListener()), Class: class(),
			Blueprint: blueprint(map[string]string{"c": tmpl}, `{}`), Routes: []*gwv1.HTTPRoute{by, att}})
		checkOwnerAndBystander(t, res, err, "a")
	})
	t.Run("bystander has hostnames, attacker none", func(t *testing.T) {
		by := route("a-b", "c", []string{"shop.example.com"}, parent())
		att := route("a", "b-c", nil, parent())
		att.CreationTimestamp = metav1.NewTime(created.Add(time.Hour)) // came last
		res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", sharedListener()), Class: class(),
			Blueprint: blueprint(map[string]string{"c": tmpl}, `{}`), Routes: []*gwv1.HTTPRoute{by, att}})
		checkOwnerAndBystander(t, res, err, "a")
	})
	t.Run("attacker collides with the owner's own object", func(t *testing.T) {
		own := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: team-a-config\ndata: {}\n"
		att := route("team-a", "config", nil, parent()) // its own namespace is the Gateway's here: use another
		att.Namespace = "team"
		att.Name = "a-config"
		// With a bystander attached, the render passes with another contribution in: the
		// attacker's is set apart.
		by := route("blog", "blog", nil, parent())
		res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", sharedListener()), Class: class(),
			Blueprint: blueprint(map[string]string{"c": tmpl, "own": own}, `{}`), Routes: []*gwv1.HTTPRoute{by, att}})
		checkOwnerAndBystander(t, res, err, "team")
		// Alone, it cannot be told from a render that fails for every contribution (the
		// owner's to fix, see quarantine.search): the Gateway fails, and its owner reads why.
		_, err = desired.Gateway(&desired.Input{Gateway: gateway("web", sharedListener()), Class: class(),
			Blueprint: blueprint(map[string]string{"c": tmpl, "own": own}, `{}`), Routes: []*gwv1.HTTPRoute{att}})
		if err == nil || !strings.Contains(err.Error(), "rendered twice") {
			t.Errorf("a lone contribution colliding with the owner's object: %v, want the Gateway's failure", err)
		}
	})
}

// TestReviewBudgetRoundsExhausted: over a budget the namespace bringing the most BYTES is set
// apart first, one per round, at most 8 rounds. An attacker whose cost is objects (many short
// hostnames), on a Gateway shared with 9 tenants each bringing more bytes (long paths in
// .Routes), exhausts the rounds on bystanders and the whole Gateway fails.
func TestReviewBudgetRoundsExhausted(t *testing.T) {
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: routes
data:
  {{- range .Routes }}
  {{ printf "%s.%s" .namespace .name | quote }}: {{ len .rules | quote }}
  {{- end }}
{{- range .Hostnames.Attached }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: host-{{ . | replace "." "-" }}
{{- end }}
`
	var routes []*gwv1.HTTPRoute
	for i := range 9 {
		r := route(fmt.Sprintf("tenant%d", i), "app", []string{fmt.Sprintf("app%d.example.com", i)}, parent())
		var rules []gwv1.HTTPRouteRule
		for j := range 16 {
			rules = append(rules, pathRule(fmt.Sprintf("/service-%d/%s", j, strings.Repeat("segment/", 60))))
		}
		routes = append(routes, withRules(r, rules...))
	}
	for i := range 8 {
		var hosts []string
		for j := range 16 {
			hosts = append(hosts, fmt.Sprintf("%d%c.x.io", i, 'a'+j))
		}
		r := route("zz-attacker", fmt.Sprintf("r%d", i), hosts, parent())
		r.CreationTimestamp = metav1.NewTime(created.Add(time.Hour))
		routes = append(routes, r)
	}
	res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", sharedListener()), Class: class(),
		Blueprint: blueprint(map[string]string{"c": tmpl}, `{}`), Routes: routes, Limits: render.Limits{MaxObjects: 100}})
	checkOwnerAndBystander(t, res, err, "zz-attacker")
}

// TestReviewHeaderNamesAsKeys: a .Routes template that writes each header match as
// `name: "value"` (names are tokens per the CRD pattern, so an author may think them safe as
// keys). For every CRD-valid header name that YAML reads specially, the output must either hold
// that literal name as a string key with its value, or the attacker route must be set apart;
// the bystander's entry must be intact either way.
func TestReviewHeaderNamesAsKeys(t *testing.T) {
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: headers
data:
  {{- range .Routes }}{{ range .rules }}{{ range .matches }}{{ range .headers }}
  {{ .name }}: {{ .value | quote }}
  {{- end }}{{ end }}{{ end }}{{ end }}
`
	hdr := func(nsName string, age time.Duration, names ...string) *gwv1.HTTPRoute {
		var hs []gwv1.HTTPHeaderMatch
		for _, n := range names {
			hs = append(hs, gwv1.HTTPHeaderMatch{Name: gwv1.HTTPHeaderName(n), Value: "v-" + n})
		}
		r := route(nsName, "r", nil, parent())
		r.CreationTimestamp = metav1.NewTime(created.Add(age))
		r.Spec.Rules = []gwv1.HTTPRouteRule{{Matches: []gwv1.HTTPRouteMatch{{Headers: hs}}}}
		return r
	}
	for _, names := range [][]string{{"~"}, {"on"}, {"Y"}, {"0x1F"}, {"1_000"}, {"&a"}, {"*a"}, {"!x"}, {"|"}, {">"}, {"%x"}, {"'"}, {"`x"}, {"#x"}, {"-"}, {"?"}, {"."}, {"&a", "*a"}, {"=", "!!binary"}, {".inf"}, {"0o17"}, {"+1"}, {"1e3"}, {"true", "True"}, {"x-y", "X-Y"}} {
		t.Run(strings.Join(names, ","), func(t *testing.T) {
			by := hdr("bystander", 0, "x-team")
			att := hdr("attacker", time.Hour, names...)
			res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", sharedListener()), Class: class(),
				Blueprint: blueprint(map[string]string{"h": tmpl}, `{}`), Routes: []*gwv1.HTTPRoute{by, att}})
			if err != nil {
				t.Fatalf("BROKE: Gateway failed: %v", err)
			}
			data := res.Objects[0].Object["data"].(map[string]any)
			if data["x-team"] != "v-x-team" {
				t.Errorf("BROKE: bystander entry lost: %v", data)
			}
			var attApart bool
			for _, r := range res.Routes {
				if r.Namespace == "bystander" && r.Err != nil {
					t.Errorf("BROKE: bystander set apart: %v", r.Err)
				}
				if r.Namespace == "attacker" {
					attApart = r.Err != nil
				}
			}
			if !attApart {
				for _, n := range names {
					if data[n] != "v-"+n {
						t.Errorf("BROKE: attacker kept, but its header %q is not in the output as written: %v", n, data)
					}
				}
				if len(data) != 1+len(names) {
					t.Errorf("BROKE: %d keys: %v", len(data), data)
				}
			}
			t.Logf("set apart=%v data=%v", attApart, data)
		})
	}
}

// TestReviewSetApartMessageIsAnOracle: the message on the attacker's own route status carries
// the Gateway's render error, whose Origin is the first source holding the failing value. If
// the Gateway owner's GatewayConfig holds the same string (the attacker's guess), the
// attacker's status names the owner's GatewayConfig and value path: a guess-confirmation
// oracle on another tenant's (the Gateway owner's) values.
func TestReviewSetApartMessageIsAnOracle(t *testing.T) {
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: paths
data:
  secret: {{ .Values.dbPassword | quote }}
  {{- range .Routes }}
  {{ .name }}: {{ (index (index .rules 0).matches 0).path.value }}
  {{- end }}
`
	for _, guess := range []string{"/s3cr3t: #1", "/wrong: #2"} {
		t.Run(guess, func(t *testing.T) {
			owner := gatewayConfig(ns, "web", target("Gateway", "web"), `{"dbPassword": "/s3cr3t: #1"}`, "")
			att := withRules(route("mallory", "evil", nil, parent()), pathRule(guess))
			res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", sharedListener()), Class: class(),
				Blueprint: blueprint(map[string]string{"paths": tmpl}, `{}`), Routes: []*gwv1.HTTPRoute{att},
				GatewayConfigs: []*v1alpha1.GatewayConfig{owner}})
			if err != nil {
				t.Fatalf("Gateway: %v", err)
			}
			for _, r := range res.Routes {
				if r.Err == nil {
					t.Fatalf("attacker route not set apart")
				}
				msg := r.Err.Error()
				t.Logf("attacker's status message: %s", msg)
				if strings.Contains(msg, "GatewayConfig team-a/web") || strings.Contains(msg, "dbPassword") {
					t.Errorf("BROKE: the attacker's route status names the owner's value that equals its guess: %s", msg)
				}
			}
		})
	}
}

// TestReviewOptionalRouteFieldsFailSharedGateway: optional fields of a route that a .Routes
// template reads under `with` or per backendRef. A missing optional key prints "no value", an
// error that names no tenant value, so the whole shared Gateway fails.
func TestReviewOptionalRouteFieldsFailSharedGateway(t *testing.T) {
	for name, tc := range map[string]struct {
		tmpl string
		evil func(*gwv1.HTTPRoute)
	}{
		"timeouts.request under with": {
			tmpl: `apiVersion: v1
kind: ConfigMap
metadata:
  name: timeouts
data:
  {{- range .Routes }}{{ range .rules }}{{ with .timeouts }}
  {{ $.Gateway.metadata.name }}-{{ len .request }}: {{ .request | quote }}
  {{- end }}{{ end }}{{ end }}
`,
			evil: func(r *gwv1.HTTPRoute) {
				r.Spec.Rules = []gwv1.HTTPRouteRule{{Timeouts: &gwv1.HTTPRouteTimeouts{BackendRequest: ptr(gwv1.Duration("5s"))}}}
			},
		},
		"backendRef port": {
			tmpl: `apiVersion: v1
kind: ConfigMap
metadata:
  name: upstreams
data:
  {{- range .Routes }}{{ $r := . }}{{ range .rules }}{{ range .backendRefs }}
  {{ printf "%s.%s" $r.namespace $r.name | quote }}: {{ printf "%s.%s.svc:%v" .name .namespace .port | quote }}
  {{- end }}{{ end }}{{ end }}
`,
			evil: func(r *gwv1.HTTPRoute) {
				r.Spec.Rules = []gwv1.HTTPRouteRule{{BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{
					Group: ptr(gwv1.Group("example.com")), Kind: ptr(gwv1.Kind("Bucket")), Name: "b"}}}}}}
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			good := route("blog", "blog", nil, parent())
			good.Spec.Rules = []gwv1.HTTPRouteRule{{Timeouts: &gwv1.HTTPRouteTimeouts{Request: ptr(gwv1.Duration("10s"))},
				BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: "blog", Port: ptr(gwv1.PortNumber(80))}}}}}}
			evil := route("mallory", "evil", nil, parent())
			evil.CreationTimestamp = metav1.NewTime(created.Add(time.Hour))
			tc.evil(evil)
			res, err := desired.Gateway(&desired.Input{Gateway: gateway("web", sharedListener()), Class: class(),
				Blueprint: blueprint(map[string]string{"c": tc.tmpl}, `{}`), Routes: []*gwv1.HTTPRoute{good, evil}})
			checkOwnerAndBystander(t, res, err, "mallory")
		})
	}
}
