package controllers_test

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
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

// TestRefusedAddressesAreReported: the addresses are the one part of a Gateway's status a
// blueprint renders, from values and live objects. Ones the API server refuses (a hostname
// with an underscore, more than 16) made the whole status write fail: the Gateway never said
// anything. The status is written without them, Programmed=False naming the refusal, and the
// addresses the Gateway had stay until the template renders ones the API accepts.
func TestRefusedAddressesAreReported(t *testing.T) {
	ns := namespace(t, nil)
	bp := blueprint("addresses", `{"host": "lb.example.com"}`, map[string]string{"cm": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"})
	bp.Spec.GatewayTemplate.Status = &v1alpha1.StatusTemplate{Template: "addresses:\n- type: Hostname\n  value: {{ .Values.host | quote }}\n"}
	class := setup(t, ns, bp)
	create(t, gateway(ns, "web", class))
	gw := waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	want := []gwv1.GatewayStatusAddress{{Type: ptr(gwv1.HostnameAddressType), Value: "lb.example.com"}}
	if !reflect.DeepEqual(gw.Status.Addresses, want) {
		t.Fatalf("addresses = %+v, want %+v", gw.Status.Addresses, want)
	}
	create(t, gatewayConfig(ns, "bad-host", "Gateway", "web", `{"host": "not_a_hostname"}`, ""))
	gw = waitGateway(t, ns, "web", "Programmed", metav1.ConditionFalse, "RenderFailed")
	msg := meta.FindStatusCondition(gw.Status.Conditions, "Programmed").Message
	for _, w := range []string{"gatewayTemplate.status.template", "addresses", "Hostname value must only contain valid characters"} {
		if !strings.Contains(msg, w) {
			t.Errorf("Programmed message %q does not say %q", msg, w)
		}
	}
	if !reflect.DeepEqual(gw.Status.Addresses, want) {
		t.Errorf("addresses = %+v, want the ones the Gateway had, %+v", gw.Status.Addresses, want)
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "cm"}, cm); err != nil {
		t.Errorf("ConfigMap cm: %v", err)
	}
}

// TestRefusedRenderWritesNothing is issue 7 item 6's first attack: a render whose objects the
// API server refuses in part (ConfigMap a is fine, Service b has port 70000) left a updated and
// b refused. Every object of a unit is dry-run on the server before the first real write: a
// refusal writes nothing, and the status names the object and the server's message.
func TestRefusedRenderWritesNothing(t *testing.T) {
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("refused", `{"round": "1", "port": 80}`, map[string]string{
		"a": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  round: {{ .Values.round | quote }}\n",
		"b": "apiVersion: v1\nkind: Service\nmetadata:\n  name: b\nspec:\n  ports:\n  - port: {{ .Values.port }}\n",
	}))
	create(t, gateway(ns, "web", class))
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")

	create(t, gatewayConfig(ns, "bad-port", "Gateway", "web", `{"round": "2", "port": 70000}`, ""))
	gw := waitGateway(t, ns, "web", "Programmed", metav1.ConditionFalse, "ApplyFailed")
	msg := meta.FindStatusCondition(gw.Status.Conditions, "Programmed").Message
	for _, w := range []string{"Service " + ns + "/b", "70000"} {
		if !strings.Contains(msg, w) {
			t.Errorf("Programmed message %q does not say %q", msg, w)
		}
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "a"}, cm); err != nil {
		t.Fatal(err)
	}
	if cm.Data["round"] != "1" {
		t.Errorf("ConfigMap a says round %q: half of a refused render was applied", cm.Data["round"])
	}
}
