package controllers_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/internal/yamltext"
	"gantry.dev/gantry/manifests"
)

// TestOfflineRenderIsWhatTheClusterGets: the same manifests rendered offline (`gantry render`'s
// path: manifests.Load, then desired.Gateway) and through the controller on a real API server
// give the same objects, although the manifests leave out what the API server fills in (a
// parentRef's group and kind, a listener's allowedRoutes, a rule's default path match). The
// inputs as read back from the cluster equal the offline ones too.
func TestOfflineRenderIsWhatTheClusterGets(t *testing.T) {
	ns := namespace(t, nil)
	name := "offline-" + ns
	text := fmt.Sprintf(`apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: %[1]s
spec:
  gatewayTemplate:
    resourceTemplates:
      cm: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: listeners
        data:
          from: {{ (index .Gateway.spec.listeners 0).allowedRoutes.namespaces.from | quote }}
          listeners: {{ toJson .Gateway.spec.listeners | quote }}
  httpRouteTemplate:
    resourceTemplates:
      route: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: route-{{ .HTTPRoute.metadata.name }}
        data:
          parents: {{ toJson .HTTPRoute.spec.parentRefs | quote }}
          rules: {{ toJson .HTTPRoute.spec.rules | quote }}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: %[1]s
spec:
  controllerName: gantry.dev/gateway-controller
  parametersRef: {group: gateway.gantry.dev, kind: GatewayClassBlueprint, name: %[1]s}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: web
  namespace: %[2]s
spec:
  gatewayClassName: %[1]s
  listeners:
  - {name: http, port: 80, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: shop
  namespace: %[2]s
spec:
  parentRefs:
  - name: web
  rules:
  - backendRefs:
    - {name: shop, port: 8080}
`, name, ns)

	// Offline.
	set, err := manifests.Load([]string{"-"}, strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	res, err := desired.Gateway(set.Input(set.Gateways[0], controllerNS))
	if err != nil {
		t.Fatal(err)
	}
	offline := map[string]map[string]any{}
	for _, o := range res.Objects {
		offline[o.Object["metadata"].(map[string]any)["name"].(string)] = o.Object["data"].(map[string]any)
	}
	if len(offline) != 2 {
		t.Fatalf("offline render gave %d objects, want 2: %v", len(offline), offline)
	}

	// The cluster: the manifests as they are, without the offline defaults.
	docs, _ := yamltext.SplitDocuments(text)
	for _, doc := range docs {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		create(t, u)
	}
	for cmName, data := range offline {
		eventually(t, "ConfigMap "+cmName, func() error {
			cm := &corev1.ConfigMap{}
			if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: cmName}, cm); err != nil {
				return err
			}
			live := map[string]any{}
			for k, v := range cm.Data {
				live[k] = v
			}
			if !reflect.DeepEqual(live, data) {
				return fmt.Errorf("in the cluster\n%v\noffline\n%v", live, data)
			}
			return nil
		})
	}

	gw := &gwv1.Gateway{}
	if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "web"}, gw); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gw.Spec, set.Gateways[0].Spec) {
		t.Errorf("Gateway spec in the cluster\n%+v\noffline\n%+v", gw.Spec, set.Gateways[0].Spec)
	}
	route := &gwv1.HTTPRoute{}
	if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "shop"}, route); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(route.Spec, set.Routes[0].Spec) {
		t.Errorf("HTTPRoute spec in the cluster\n%+v\noffline\n%+v", route.Spec, set.Routes[0].Spec)
	}
}
