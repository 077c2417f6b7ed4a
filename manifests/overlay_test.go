package manifests_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gantry.dev/gantry/manifests"
)

func load(t *testing.T, yaml string) *manifests.Set {
	t.Helper()
	s, err := manifests.Load([]string{"-"}, strings.NewReader(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWith lays local files over a cluster's objects: same kind, namespace and name replaces
// (keeping what the API server set, which orders policies), anything else adds, and the
// cluster's set stays as it was.
func TestWith(t *testing.T) {
	cluster := load(t, `
apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web, namespace: team-a, uid: u1}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: web}
  default: {replicas: 2}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: team-a, uid: g1}
spec: {gatewayClassName: internet, listeners: [{name: http, port: 80, protocol: HTTP}]}
`)
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cluster.GatewayConfigs[0].CreationTimestamp = created
	local := load(t, `
apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web, namespace: team-a}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: web}
  default: {replicas: 3}
---
apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayConfig
metadata: {name: more, namespace: team-a}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: web}
  default: {image: x}
`)
	got := cluster.With(local)
	if len(got.GatewayConfigs) != 2 {
		t.Fatalf("GatewayConfigs = %d, want the replaced one and the added one", len(got.GatewayConfigs))
	}
	web := got.GatewayConfigs[0]
	if string(web.Spec.Default.Raw) != `{"replicas":3}` {
		t.Errorf("web = %s, want the local edit", web.Spec.Default.Raw)
	}
	if web.UID != "u1" || !web.CreationTimestamp.Equal(&created) {
		t.Errorf("web uid %q created %v: the replacement must keep what the API server set", web.UID, web.CreationTimestamp)
	}
	if got.GatewayConfigs[1].Name != "more" || len(got.Gateways) != 1 || got.Gateways[0].UID != "g1" {
		t.Errorf("added or kept objects wrong: %+v", got)
	}
	if string(cluster.GatewayConfigs[0].Spec.Default.Raw) != `{"replicas":2}` {
		t.Errorf("the cluster's set changed: %s", cluster.GatewayConfigs[0].Spec.Default.Raw)
	}
}
