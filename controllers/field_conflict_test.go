package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestFieldTakenFromAnotherManagerIsSaid: issue 22. Another field manager takes a field Gantry
// renders (an operator's server-side apply, as kubectl apply --server-side --force-conflicts
// does). Gantry puts the blueprint's value back, as it puts back any drift, but no longer
// silently: a Warning Event on the Gateway names the object, the field and the manager it took
// it from.
func TestFieldTakenFromAnotherManagerIsSaid(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("colour", "", map[string]string{"cm": `apiVersion: v1
kind: ConfigMap
metadata:
  name: colour
data:
  colour: blue
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
}
