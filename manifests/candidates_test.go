package manifests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/precedence"
)

// candidatesSet is a set where most policies reach nothing of the Gateway under test: other
// namespaces' policies aimed at its name, its class and its namespace; a wrong group; routes'
// policies, one route attached through a ListenerSet from a third namespace; a
// namespace-scoped class policy; a parametersRef GatewayConfig; a Gateway in the controller
// namespace. The test renders it with two controller namespaces.
var candidatesSet = `
apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bp}
spec:
  values:
    default: {replicas: 1, who: blueprint}
  gatewayTemplate:
    resourceTemplates:
      cm: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ .Gateway.metadata.name }}, namespace: {{ .Gateway.metadata.namespace }}}
        data: {replicas: {{ .Values.replicas | quote }}, who: {{ .Values.who | quote }}}
  httpRouteTemplate:
    resourceTemplates:
      rt: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ .HTTPRoute.metadata.name }}-rt, namespace: {{ .HTTPRoute.metadata.namespace }}}
        data: {who: {{ .Values.who | quote }}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: c}
spec:
  controllerName: ` + v1alpha1.ControllerName + `
  parametersRef: {group: gateway.gantry.dev, kind: GatewayClassBlueprint, name: bp}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: a}
spec:
  gatewayClassName: c
  infrastructure:
    parametersRef: {group: gateway.gantry.dev, kind: GatewayConfig, name: params}
  allowedListeners: {namespaces: {from: All}}
  listeners:
  - {name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: ls, namespace: c}
spec:
  parentRef: {name: gw, namespace: a}
  listeners:
  - {name: shop, port: 8080, protocol: HTTP, hostname: shop.example.com}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r3, namespace: c}
spec:
  parentRefs: [{kind: ListenerSet, name: ls}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: gantry-system}
spec:
  gatewayClassName: c
  listeners:
  - {name: http, port: 80, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: b}
spec:
  gatewayClassName: c
  listeners:
  - {name: http, port: 80, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: b}
spec:
  parentRefs: [{name: gw, namespace: a}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r2, namespace: a}
spec:
  parentRefs: [{name: gw}]
` + policies

// policies: for every kind, namespace and target a policy could name, one.
var policies = func() string {
	var b strings.Builder
	n := 0
	for _, kind := range []string{"GatewayClassConfig", "GatewayConfig"} {
		for _, ns := range []string{"gantry-system", "a", "b", "c"} {
			for _, target := range []string{
				"{group: gateway.networking.k8s.io, kind: GatewayClass, name: c}",
				"{group: '', kind: Namespace, name: a}", "{group: '', kind: Namespace, name: b}",
				"{group: '', kind: Namespace, name: c}", "{group: '', kind: Namespace, name: gantry-system}",
				"{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r3}",
				"{group: gateway.networking.k8s.io, kind: Gateway, name: gw}",
				"{group: wrong.example.com, kind: Gateway, name: gw}",
				"{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}",
				"{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r2}",
			} {
				n++
				name := "p" + strings.Repeat("x", n%3) + string(rune('a'+n%26)) + "-" + itoa(n)
				b.WriteString("---\napiVersion: gateway.gantry.dev/v1alpha1\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: " + ns + "}\n" +
					"spec:\n  targetRef: " + target + "\n  default: {replicas: " + itoa(n) + ", who: " + name + "}\n")
			}
		}
	}
	b.WriteString("---\napiVersion: gateway.gantry.dev/v1alpha1\nkind: GatewayConfig\nmetadata: {name: params, namespace: a}\n" +
		"spec:\n  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: elsewhere}\n  override: {who: params}\n")
	return b.String()
}()

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestCandidateInputRendersTheSame: narrowing the policies to the candidates changes nothing a
// render produces — objects, values and every outcome other than NotApplicable, for the
// Gateway and each route — on a set built to tempt it, the samples and the blueprints' golden
// inputs, with the default controller namespace and another.
func TestCandidateInputRendersTheSame(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "set.yaml"), []byte(candidatesSet), 0o644); err != nil {
		t.Fatal(err)
	}
	sets := [][]string{{dir}}
	samples, _ := filepath.Glob("../samples/*")
	for _, s := range samples {
		if fi, err := os.Stat(s); err == nil && fi.IsDir() && !strings.HasSuffix(s, "testdata") {
			sets = append(sets, []string{s})
		}
	}
	golden, _ := filepath.Glob("../blueprints/*/testdata/*.in.yaml")
	for _, in := range golden {
		sets = append(sets, []string{filepath.Join(filepath.Dir(filepath.Dir(in)), "blueprint.yaml"), in})
	}
	compared := 0
	for _, paths := range sets {
		set, err := Load(paths, nil)
		if err != nil {
			t.Fatalf("%v: %v", paths, err)
		}
		for _, gw := range set.Gateways {
			if !set.Serves(gw) {
				continue
			}
			for _, controllerNS := range []string{"gantry-system", "b"} {
				what := strings.Join(paths, ",") + " Gateway " + gw.Namespace + "/" + gw.Name + " controller namespace " + controllerNS
				full := set.Input(gw, controllerNS)
				narrow := set.CandidateInput(gw, controllerNS)
				if len(narrow.GatewayClassConfigs)+len(narrow.GatewayConfigs) > len(full.GatewayClassConfigs)+len(full.GatewayConfigs) {
					t.Errorf("%s: more candidates than policies", what)
				}
				a, errA := desired.Gateway(full)
				b, errB := desired.Gateway(narrow)
				if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
					t.Errorf("%s: error %v with every policy, %v with the candidates", what, errA, errB)
					continue
				}
				if errA != nil {
					continue
				}
				if ja, jb := mustJSON(t, a.Objects), mustJSON(t, b.Objects); ja != jb {
					t.Errorf("%s: objects differ:\nall policies: %s\ncandidates:   %s", what, ja, jb)
				}
				results := [][2]*precedence.Result{{a.Values, b.Values}}
				if len(a.Routes) != len(b.Routes) {
					t.Fatalf("%s: %d routes with every policy, %d with the candidates", what, len(a.Routes), len(b.Routes))
				}
				for i := range a.Routes {
					results = append(results, [2]*precedence.Result{a.Routes[i].Values, b.Routes[i].Values})
				}
				for _, r := range results {
					if r[0] == nil || r[1] == nil {
						if r[0] != r[1] {
							t.Errorf("%s: values computed on one side only", what)
						}
						continue
					}
					if ja, jb := mustJSON(t, r[0].Leaves), mustJSON(t, r[1].Leaves); ja != jb {
						t.Errorf("%s: values differ:\nall policies: %s\ncandidates:   %s", what, ja, jb)
					}
					if ja, jb := mustJSON(t, applicable(r[0].Outcomes)), mustJSON(t, applicable(r[1].Outcomes)); ja != jb {
						t.Errorf("%s: outcomes differ:\nall policies: %s\ncandidates:   %s", what, ja, jb)
					}
				}
				compared++
			}
		}
	}
	if compared < 10 {
		t.Fatalf("only %d Gateways compared", compared)
	}
	t.Logf("%d Gateways rendered both ways", compared)
}

func applicable(os []precedence.Outcome) []precedence.Outcome {
	out := slices.DeleteFunc(slices.Clone(os), func(o precedence.Outcome) bool { return o.State == precedence.StateNotApplicable })
	if len(out) == 0 {
		return nil
	}
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
