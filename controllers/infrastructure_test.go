package controllers_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestInfrastructureMetadata: the labels and annotations of a Gateway's spec.infrastructure go
// on every object rendered for it (GEP-1867); the template's own keys and Gantry's win.
func TestInfrastructureMetadata(t *testing.T) {
	ns := namespace(t, nil)
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-infra
  labels:
    tier: proxy
data: {}
`
	create(t, blueprint("infra-"+ns, `{}`, map[string]string{"cm": tmpl}), gantryClass("class-"+ns, "infra-"+ns))
	gw := gateway(ns, "web", "class-"+ns)
	gw.Spec.Infrastructure = &gwv1.GatewayInfrastructure{
		Labels:      map[gwv1.LabelKey]gwv1.LabelValue{"team": "a", "tier": "tenant", v1alpha1.LabelTemplate: "forged"},
		Annotations: map[gwv1.AnnotationKey]gwv1.AnnotationValue{"example.com/note": "hello"},
	}
	create(t, gw)
	eventually(t, "infrastructure metadata on the rendered ConfigMap", func() error {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "web-infra"}, cm); err != nil {
			return err
		}
		want := map[string]string{"team": "a", "tier": "proxy", v1alpha1.LabelTemplate: "cm", v1alpha1.LabelGatewayName: "web"}
		for k, v := range want {
			if cm.Labels[k] != v {
				return fmt.Errorf("label %s = %q, want %q (labels %v)", k, cm.Labels[k], v, cm.Labels)
			}
		}
		if cm.Annotations["example.com/note"] != "hello" {
			return fmt.Errorf("annotations = %v, want example.com/note from spec.infrastructure", cm.Annotations)
		}
		return nil
	})
}
