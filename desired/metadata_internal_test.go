package desired

import (
	"reflect"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestMetadataPolicy: which of a Gateway's infrastructure labels reach which object.
func TestMetadataPolicy(t *testing.T) {
	infra := &gwv1.GatewayInfrastructure{Labels: map[gwv1.LabelKey]gwv1.LabelValue{
		"team": "a", "example.com/x": "1", "other.io/y": "2", "gateway.gantry.dev/keep": "true",
		"GANTRY.DEV/z": "3", "gateway.networking.k8s.io/gateway-name": "victim", "notgantry.dev/w": "4",
	}}
	tests := []struct {
		name string
		spec *v1alpha1.InfrastructureMetadata
		ns   string // the object's namespace; "" for cluster-scoped
		want map[string]any
	}{
		{"the Gateway's namespace", nil, "team-a", map[string]any{"team": "a", "example.com/x": "1", "other.io/y": "2", "notgantry.dev/w": "4"}},
		{"a route's namespace", nil, "team-b", map[string]any{}},
		{"cluster-scoped", nil, "", map[string]any{}},
		{"cluster-scoped, opted in", &v1alpha1.InfrastructureMetadata{ClusterScoped: true}, "", map[string]any{"team": "a", "example.com/x": "1", "other.io/y": "2", "notgantry.dev/w": "4"}},
		{"allowed keys", &v1alpha1.InfrastructureMetadata{AllowedKeys: []string{"example.com/", "te*", "gateway.gantry.dev/keep"}}, "team-a", map[string]any{"team": "a", "example.com/x": "1"}},
		{"denied keys", &v1alpha1.InfrastructureMetadata{DeniedKeys: []string{"other.io/", "team"}}, "team-a", map[string]any{"example.com/x": "1", "notgantry.dev/w": "4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw := &gwv1.Gateway{Spec: gwv1.GatewaySpec{Infrastructure: infra}}
			gw.Namespace = "team-a"
			bp := &v1alpha1.GatewayClassBlueprint{Spec: v1alpha1.GatewayClassBlueprintSpec{InfrastructureMetadata: tt.spec}}
			meta := map[string]any{}
			if tt.ns != "" {
				meta["namespace"] = tt.ns
			}
			labels := map[string]any{}
			newMetadataPolicy(gw, bp).apply(meta, labels)
			if !reflect.DeepEqual(labels, tt.want) {
				t.Errorf("labels = %v, want %v", labels, tt.want)
			}
		})
	}
}
