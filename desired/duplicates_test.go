package desired_test

import (
	"strings"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// Issue 7 item 6: two templates rendering the same object made it flip between them.

func TestDuplicateGatewayObjects(t *testing.T) {
	for name, second := range map[string]string{
		"same apiVersion":                        configMapTemplate("shared", `from: b`),
		"other namespace given as the Gateway's": strings.Replace(configMapTemplate("shared", `from: b`), "  name: shared", "  name: shared\n  namespace: "+ns, 1),
		"other version of the group":             strings.Replace(configMapTemplate("shared", `from: b`), "apiVersion: v1", "apiVersion: v1beta9", 1),
	} {
		t.Run(name, func(t *testing.T) {
			bp := blueprint(map[string]string{"a": configMapTemplate("shared", `from: a`), "b": second}, "")
			res, err := desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(), Blueprint: bp})
			if err == nil {
				t.Fatalf("rendered %d objects; want RenderFailed", len(res.Objects))
			}
			desiredError(t, err, desired.ReasonRenderFailed)
			for _, want := range []string{"gatewayTemplate.resourceTemplates.a", "gatewayTemplate.resourceTemplates.b", "ConfigMap " + ns + "/shared"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
			}
		})
	}
	// Deployments of apps/v1 and apps/v1beta1 are one object.
	dep := func(version string) string {
		return "apiVersion: apps/" + version + "\nkind: Deployment\nmetadata:\n  name: proxy\nspec: {}\n"
	}
	bp := blueprint(map[string]string{"a": dep("v1"), "b": dep("v1beta1")}, "")
	if _, err := desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(), Blueprint: bp}); err == nil {
		t.Error("apps/v1 and apps/v1beta1 Deployment proxy accepted twice")
	} else {
		desiredError(t, err, desired.ReasonRenderFailed)
	}
	// One template rendering the same object twice is a duplicate too.
	bp = blueprint(map[string]string{"a": configMapTemplate("x") + "---\n" + configMapTemplate("x")}, "")
	if _, err := desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(), Blueprint: bp}); err == nil {
		t.Error("one template's two ConfigMaps x accepted")
	}
}

func TestDuplicateRouteObjects(t *testing.T) {
	https := listener("https", gwv1.HTTPSProtocolType, 443, "*.example.com")
	https.AllowedRoutes = from(gwv1.NamespacesFromAll, nil)
	gw := gateway("web", https)
	bp := blueprint(map[string]string{"gateway": configMapTemplate("gw-config")}, "")
	bp.Spec.HTTPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{
		// A route named gw-config renders the Gateway's object; routes named "same" in two
		// namespaces are fine; "twin-*" routes both render twin; "double" renders one object
		// from two templates.
		"config": configMapTemplate(`{{ if hasPrefix "twin" .HTTPRoute.metadata.name }}twin{{ else }}{{ .HTTPRoute.metadata.name }}{{ end }}`),
		"extra":  configMapTemplate(`{{ if eq .HTTPRoute.metadata.name "double" }}double{{ else }}{{ .HTTPRoute.metadata.name }}-extra{{ end }}`),
	}}
	routes := []*gwv1.HTTPRoute{
		route(ns, "gw-config", []string{"a.example.com"}, parent()),
		route(ns, "twin-a", []string{"b.example.com"}, parent()),
		route(ns, "twin-b", []string{"c.example.com"}, parent()),
		route(ns, "double", []string{"d.example.com"}, parent()),
		route(ns, "fine", []string{"e.example.com"}, parent()),
		route("team-b", "fine", []string{"f.example.com"}, parent()),
	}
	res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: bp, Routes: routes})
	if err != nil {
		t.Fatalf("the Gateway failed for its routes' collisions: %v", err)
	}
	failed := map[string][]string{
		ns + "/gw-config": {"collides with", "gatewayTemplate.resourceTemplates.gateway", "ConfigMap " + ns + "/gw-config"},
		ns + "/twin-b":    {"collides with", "HTTPRoute " + ns + "/twin-a", "ConfigMap " + ns + "/twin"},
		ns + "/double":    {"httpRouteTemplate.resourceTemplates.config", "httpRouteTemplate.resourceTemplates.extra", "ConfigMap " + ns + "/double"},
	}
	for _, r := range res.Routes {
		wants, fails := failed[r.String()]
		if !fails {
			if r.Err != nil {
				t.Errorf("route %s failed: %v", r.NamespacedName, r.Err)
			}
			continue
		}
		if r.Err == nil {
			t.Errorf("route %s rendered an object another template renders", r.NamespacedName)
			continue
		}
		desiredError(t, r.Err, desired.ReasonRenderFailed)
		for _, w := range wants {
			if !strings.Contains(r.Err.Error(), w) {
				t.Errorf("route %s error %q does not name %q", r.NamespacedName, r.Err, w)
			}
		}
	}
	// Only the Gateway's object and those of the routes that did not fail are desired.
	var names []string
	for _, o := range res.Objects {
		names = append(names, o.Object["metadata"].(map[string]any)["namespace"].(string)+"/"+o.Object["metadata"].(map[string]any)["name"].(string))
	}
	want := []string{ns + "/gw-config", ns + "/fine", ns + "/fine-extra", ns + "/twin", ns + "/twin-a-extra", "team-b/fine", "team-b/fine-extra"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("objects %v, want %v", names, want)
	}
}
