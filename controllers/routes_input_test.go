package controllers_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestRoutesInputFollowsTheRoutes: issue 20. A Gateway template that reads .Routes renders
// again when a route's rules change (not only its hostnames), and when a route goes.
func TestRoutesInputFollowsTheRoutes(t *testing.T) {
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("routesin", "", map[string]string{"paths": `apiVersion: v1
kind: ConfigMap
metadata:
  name: paths
data:
  {{- range .Routes }}
  {{ .name }}: {{ (index (index .rules 0).matches 0).path.value | quote }}
  {{- end }}
`}))
	create(t, gateway(ns, "web", class))
	route := httpRoute(ns, "shop", ns, "web")
	route.Spec.Rules = []gwv1.HTTPRouteRule{{Matches: []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: ptr(gwv1.PathMatchPathPrefix), Value: ptr("/cart")}}}}}
	create(t, route)
	data := func(want map[string]string) {
		t.Helper()
		eventually(t, fmt.Sprintf("ConfigMap paths = %v", want), func() error {
			cm := &corev1.ConfigMap{}
			if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "paths"}, cm); err != nil {
				return err
			}
			if len(cm.Data) != len(want) {
				return fmt.Errorf("data = %v", cm.Data)
			}
			for k, v := range want {
				if cm.Data[k] != v {
					return fmt.Errorf("data = %v", cm.Data)
				}
			}
			return nil
		})
	}
	data(map[string]string{"shop": "/cart"})
	update(t, route, func(r *gwv1.HTTPRoute) { r.Spec.Rules[0].Matches[0].Path.Value = ptr("/basket") })
	data(map[string]string{"shop": "/basket"})
	if err := k8s.Delete(t.Context(), route); err != nil {
		t.Fatal(err)
	}
	data(map[string]string{})
}
