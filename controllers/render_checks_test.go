package controllers_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Issue 7 items 5 and 6 in the controller: a List, two templates rendering one object, and a
// render over its budget are each RenderFailed with a message that says why, and nothing of
// the render is written.
func TestRenderChecksInTheController(t *testing.T) {
	for _, c := range []struct {
		name      string
		templates map[string]string
		want      []string
	}{{
		name: "list",
		templates: map[string]string{"list": `apiVersion: v1
kind: List
metadata:
  name: wrapped
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: item
`},
		want: []string{"gatewayTemplate.resourceTemplates.list", "List"},
	}, {
		name: "duplicate",
		templates: map[string]string{
			"a": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: item\ndata:\n  from: a\n",
			"b": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: item\ndata:\n  from: b\n",
		},
		want: []string{"gatewayTemplate.resourceTemplates.a", "gatewayTemplate.resourceTemplates.b", "ConfigMap"},
	}, {
		name: "budget",
		templates: map[string]string{
			"item": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: item\n",
			"loop": "{{ range until 100000000 }}{{ end }}",
		},
		want: []string{"gatewayTemplate.resourceTemplates.loop", "until 100000000", "--render-max-loop"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			ns := namespace(t, nil)
			class := setup(t, ns, blueprint(c.name, "", c.templates))
			create(t, gateway(ns, "web", class))
			gw := waitGateway(t, ns, "web", "Programmed", metav1.ConditionFalse, "RenderFailed")
			msg := meta.FindStatusCondition(gw.Status.Conditions, "Programmed").Message
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("Programmed message %q does not say %q", msg, w)
				}
			}
			cm := &corev1.ConfigMap{}
			if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "item"}, cm); !apierrors.IsNotFound(err) {
				t.Errorf("ConfigMap item: %v, want not found (nothing of a failed render is applied)", err)
			}
		})
	}
}
