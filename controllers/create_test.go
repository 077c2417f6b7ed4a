package controllers_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/controllers"
)

// TestFirstRenderRefusedLeavesNothing: issue 22, item 2. A Gateway's first render is created
// without a dry-run (create.go). When the API server refuses one of its objects (Service b,
// port 70000), the objects created with it (ConfigMap a) are deleted again before the status
// says so, and the retries that follow dry-run first: ConfigMap a is created once, not once a
// retry. The oracle is the API server's watch of ConfigMaps, not Gantry's idea of what it did.
func TestFirstRenderRefusedLeavesNothing(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("refused-first", `{"port": 70000}`, map[string]string{
		"a": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n",
		"b": "apiVersion: v1\nkind: Service\nmetadata:\n  name: b\nspec:\n  ports:\n  - port: {{ .Values.port }}\n",
	}))
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(ctx, &corev1.ConfigMapList{}, client.InNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	create(t, gateway(ns, "web", class))
	gw := waitGateway(t, ns, "web", "Programmed", metav1.ConditionFalse, "ApplyFailed")
	programmedSays(t, gw, "Service "+ns+"/b", "70000")
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("ConfigMap a, created with the refused Service: %v; want it deleted again", err)
	}
	// The controller retries with backoff meanwhile (several times in 3 s).
	added, deleted := 0, 0
	deadline := time.After(3 * time.Second)
	for done := false; !done; {
		select {
		case e := <-w.ResultChan():
			if cm, ok := e.Object.(*corev1.ConfigMap); ok && cm.Name == "a" {
				switch e.Type {
				case watch.Added:
					added++
				case watch.Deleted:
					deleted++
				}
			}
		case <-deadline:
			done = true
		}
	}
	if added > 1 || added != deleted {
		t.Errorf("ConfigMap a was created %d times and deleted %d times; want once each: a refused unit's retries dry-run first", added, deleted)
	}

	// Allowed: the unit converges, and everything is there.
	create(t, gatewayConfig(ns, "port", "Gateway", "web", `{"port": 80}`, ""))
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "a"}, &corev1.ConfigMap{}); err != nil {
		t.Errorf("ConfigMap a: %v", err)
	}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "b"}, &corev1.Service{}); err != nil {
		t.Errorf("Service b: %v", err)
	}
}

// TestCreatedObjectLosesADroppedField: an object Gantry created (not applied) owns its fields
// under an Update entry of Gantry's field manager. At its next write they move to Gantry's
// apply entry, so a field the blueprint no longer renders is removed as an apply removes it,
// and no field is said to be taken from another manager.
func TestCreatedObjectLosesADroppedField(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("dropped", `{"extra": true}`, map[string]string{
		"cm": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: v\n{{- if .Values.extra }}\n  extra: x\n{{- end }}\n",
	}))
	create(t, gateway(ns, "web", class))
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	key := client.ObjectKey{Namespace: ns, Name: "cm"}
	entries := func(cm *corev1.ConfigMap) string {
		var out []string
		for _, e := range cm.ManagedFields {
			if e.Manager == controllers.FieldManager {
				out = append(out, string(e.Operation))
			}
		}
		return strings.Join(out, ",")
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, key, cm); err != nil {
		t.Fatal(err)
	}
	if got := entries(cm); got != "Update" {
		t.Fatalf("Gantry's managedFields entries after the first render = %q, want Update: the unit was not created", got)
	}

	create(t, gatewayConfig(ns, "no-extra", "Gateway", "web", `{"extra": false}`, ""))
	eventually(t, "ConfigMap cm without extra", func() error {
		cm = &corev1.ConfigMap{}
		if err := k8s.Get(ctx, key, cm); err != nil {
			return err
		}
		if _, ok := cm.Data["extra"]; ok {
			return fmt.Errorf("data = %v", cm.Data)
		}
		return nil
	})
	if got := entries(cm); got != "Apply" {
		t.Errorf("Gantry's managedFields entries after the change = %q, want Apply alone", got)
	}
	if cm.Data["k"] != "v" {
		t.Errorf("data = %v, want k kept", cm.Data)
	}
	if notes := eventNotes(t, ns, "FieldsTaken"); len(notes) > 0 {
		t.Errorf("FieldsTaken Events for Gantry's own fields: %v", notes)
	}
}

// eventNotes are the notes of the namespace's Events with reason.
func eventNotes(t *testing.T, ns, reason string) []string {
	t.Helper()
	l := &eventsv1.EventList{}
	if err := k8s.List(t.Context(), l, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range l.Items {
		if e.Reason == reason {
			out = append(out, e.Note)
		}
	}
	return out
}

// TestUnknownFieldIsRefusedAtCreate: a create, unlike an apply, drops a field the schema does
// not know with only a warning, unless asked to be strict. A blueprint with such a field (a typo)
// is refused at its first render as it was when the first render was applied: nothing created,
// the status naming the field.
func TestUnknownFieldIsRefusedAtCreate(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("typo", "", map[string]string{
		"a": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n",
		"b": "apiVersion: v1\nkind: Service\nmetadata:\n  name: b\nspec:\n  ports:\n  - port: 80\n    protcol: TCP\n",
	}))
	create(t, gateway(ns, "web", class))
	gw := waitGateway(t, ns, "web", "Programmed", metav1.ConditionFalse, "ApplyFailed")
	programmedSays(t, gw, "Service "+ns+"/b", "protcol")
	// The retries (the dry-run path, several in 3 s) refuse it too.
	time.Sleep(3 * time.Second)
	programmedSays(t, waitGateway(t, ns, "web", "Programmed", metav1.ConditionFalse, "ApplyFailed"), "protcol")
	for name, o := range map[string]client.Object{"a": &corev1.ConfigMap{}, "b": &corev1.Service{}} {
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, o); !apierrors.IsNotFound(err) {
			t.Errorf("%T %s of a refused first render: %v; want none", o, name, err)
		}
	}
}

// programmedSays checks that the Gateway's Programmed message says each of want.
func programmedSays(t *testing.T, gw *gwv1.Gateway, want ...string) {
	t.Helper()
	msg := meta.FindStatusCondition(gw.Status.Conditions, "Programmed").Message
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("Programmed message %q does not say %q", msg, w)
		}
	}
}
