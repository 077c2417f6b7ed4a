package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/controllers"
)

// TestFieldTakenFromAnotherManagerIsSaid: issue 22. Another field manager takes a field Gantry
// renders (an operator's server-side apply, as kubectl apply --server-side --force-conflicts
// does). Gantry puts the blueprint's value back, as it puts back any drift, but no longer
// silently: a Warning Event on the Gateway and its FieldsTaken condition name the object, the
// field and the manager it took it from; the condition turns False at the next reconcile that
// takes nothing.
func TestFieldTakenFromAnotherManagerIsSaid(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("colour", "", map[string]string{"cm": `apiVersion: v1
kind: ConfigMap
metadata:
  name: colour
data:
  colour: blue
  shade: {{ .Values.shade | default "light" | quote }}
`}))
	create(t, gateway(ns, "web", class))
	key := client.ObjectKey{Namespace: ns, Name: "colour"}
	colour := func(want string) {
		t.Helper()
		eventually(t, "ConfigMap colour = "+want, func() error {
			cm := &corev1.ConfigMap{}
			if err := k8s.Get(ctx, key, cm); err != nil {
				return err
			}
			if cm.Data["colour"] != want {
				return fmt.Errorf("colour = %q", cm.Data["colour"])
			}
			return nil
		})
	}
	colour("blue")
	gw := waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	if c := meta.FindStatusCondition(gw.Status.Conditions, controllers.ConditionFieldsTaken); c != nil {
		t.Errorf("FieldsTaken before any field was taken: %+v", c)
	}

	// The other manager takes the field.
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": ns, "name": "colour"}, "data": map[string]any{"colour": "red"}}}
	if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("ops-tool"), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
	colour("blue") // put back
	eventually(t, "a Warning Event names the field and the manager it was taken from", func() error {
		l := &eventsv1.EventList{}
		if err := k8s.List(ctx, l, client.InNamespace(ns)); err != nil {
			return err
		}
		var seen []string
		for _, e := range l.Items {
			seen = append(seen, e.Reason+": "+e.Note)
			if e.Regarding.Kind == "Gateway" && e.Regarding.Name == "web" && e.Type == corev1.EventTypeWarning && e.Reason == "FieldsTaken" &&
				strings.Contains(e.Note, "ConfigMap "+ns+"/colour") && strings.Contains(e.Note, `"ops-tool"`) && strings.Contains(e.Note, ".data.colour") {
				return nil
			}
		}
		return fmt.Errorf("events: %q", seen)
	})
	// And in status: who owned what.
	fieldsTaken := func(status metav1.ConditionStatus, reason string, says ...string) {
		t.Helper()
		eventually(t, "Gateway web's FieldsTaken condition is "+reason, func() error {
			gw := &gwv1.Gateway{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, gw); err != nil {
				return err
			}
			c := meta.FindStatusCondition(gw.Status.Conditions, controllers.ConditionFieldsTaken)
			if c == nil || c.Status != status || c.Reason != reason {
				return fmt.Errorf("FieldsTaken = %+v", c)
			}
			for _, want := range says {
				if !strings.Contains(c.Message, want) {
					return fmt.Errorf("FieldsTaken message %q does not say %q", c.Message, want)
				}
			}
			return nil
		})
	}
	fieldsTaken(metav1.ConditionTrue, controllers.ReasonFieldsTaken, "ConfigMap "+ns+"/colour", ".data.colour", `"ops-tool"`)
	// A reconcile that writes and takes nothing (a GatewayConfig changes another key) says so.
	create(t, gatewayConfig(ns, "shade", "Gateway", "web", `{"shade": "dark"}`, ""))
	fieldsTaken(metav1.ConditionFalse, controllers.ReasonNoneTaken)
	colour("blue")
}
