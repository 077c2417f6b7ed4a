package controllers_test

import (
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestDroppedFieldsRemoved: when the render stops producing a field (a data key, a label), the
// live object loses it too. Skipping applies whose content the live object already holds must
// not keep fields the render dropped.
func TestDroppedFieldsRemoved(t *testing.T) {
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("dropped", `{"a": "1", "b": "2", "team": "blue"}`, map[string]string{"cm": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-cm
  labels:
    {{- if hasKey .Values "team" }}
    team: {{ .Values.team | quote }}
    {{- end }}
data:
  a: {{ .Values.a | quote }}
  {{- if hasKey .Values "b" }}
  b: {{ .Values.b | quote }}
  {{- end }}
`}))
	create(t, gateway(ns, "web", class))
	cm := &corev1.ConfigMap{}
	key := client.ObjectKey{Namespace: ns, Name: "web-cm"}
	eventually(t, "ConfigMap with a, b and the label", func() error {
		if err := k8s.Get(t.Context(), key, cm); err != nil {
			return err
		}
		if cm.Data["b"] != "2" || cm.Labels["team"] != "blue" {
			return fmt.Errorf("data %v labels %v", cm.Data, cm.Labels)
		}
		return nil
	})
	create(t, gatewayConfig(ns, "drop", "Gateway", "web", `{"b": null, "team": null}`, ""))
	eventually(t, "b and the label removed", func() error {
		if err := k8s.Get(t.Context(), key, cm); err != nil {
			return err
		}
		if _, ok := cm.Data["b"]; ok {
			return fmt.Errorf("data still has b: %v", cm.Data)
		}
		if _, ok := cm.Labels["team"]; ok {
			return fmt.Errorf("labels still have team: %v", cm.Labels)
		}
		if cm.Data["a"] != "1" {
			return fmt.Errorf("data lost a: %v", cm.Data)
		}
		return nil
	})
}

// TestKeptClusterScopedObjectDoesNotHoldDeletion: a cluster-scoped object annotated to be kept
// stays when its Gateway is deleted, and the Gateway's deletion completes.
func TestKeptClusterScopedObjectDoesNotHoldDeletion(t *testing.T) {
	ns := namespace(t, nil)
	bp := blueprint("kept", `{}`, map[string]string{"role": `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kept-{{ .Gateway.metadata.namespace }}
  annotations:
    gateway.gantry.dev/keep: "true"
rules: []
`})
	bp.Spec.ClusterScopedKinds = []v1alpha1.GroupKind{{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}}
	class := setup(t, ns, bp)
	gw := gateway(ns, "web", class)
	create(t, gw)
	role := &rbacv1.ClusterRole{}
	eventually(t, "ClusterRole rendered", func() error { return k8s.Get(t.Context(), client.ObjectKey{Name: "kept-" + ns}, role) })
	t.Cleanup(func() { _ = k8s.Delete(t.Context(), role) })
	eventually(t, "finalizer set", func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(gw), gw); err != nil {
			return err
		}
		if len(gw.Finalizers) == 0 {
			return errors.New("no finalizer yet")
		}
		return nil
	})
	if err := k8s.Delete(t.Context(), gw); err != nil {
		t.Fatal(err)
	}
	waitGone(t, gw)
	if err := k8s.Get(t.Context(), client.ObjectKey{Name: "kept-" + ns}, role); err != nil {
		t.Errorf("the kept ClusterRole was deleted with its Gateway: %v", err)
	}
}
