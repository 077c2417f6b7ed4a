package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/apis/v1alpha1"
)

// countTemplate renders a ConfigMap saying how many ConfigMaps of template "cm" the render
// was given in .Resources: what Gantry counts as the Gateway's.
const countTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-count
data:
  count: {{ len (default list .Resources.cm) | quote }}
  round: {{ .Values.round | quote }}
`

// claim is an object in the attacker's namespace that claims, by the labels and annotation
// Gantry writes, to be the victim Gateway's object of template "cm".
func claim(ns, name, victimNS, keep string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Labels:      map[string]string{v1alpha1.LabelGatewayName: "web", v1alpha1.LabelTemplate: "cm"},
		Annotations: map[string]string{v1alpha1.AnnotationOwner: victimNS + "/web"},
	}}
	if keep != "" {
		cm.Annotations[v1alpha1.AnnotationKeep] = keep
	}
	return cm
}

// TestOwnershipIsProven is issue 7 item 1's attack: in their own namespace, a tenant writes
// objects with the labels and owner annotation of another namespace's Gateway. Labels and
// annotations are the tenant's to write, so they prove nothing: only a controller owner
// reference to the Gateway's UID in its namespace does. The claims are not fed to the victim's
// .Resources, not pruned, and not deleted with the victim.
func TestOwnershipIsProven(t *testing.T) {
	victim, attacker := namespace(t, nil), namespace(t, nil)
	class := setup(t, victim, blueprint("owned", `{"round": "1"}`, map[string]string{
		"cm":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: own\n",
		"count": countTemplate,
	}))
	create(t, gateway(victim, "web", class))
	waitGateway(t, victim, "web", "Programmed", metav1.ConditionTrue, "Programmed")

	pruneMe, kept := claim(attacker, "claims-cm", victim, ""), claim(attacker, "claims-kept", victim, "true")
	// A claim in the victim's own namespace is not proven either, without the owner reference.
	sameNS := claim(victim, "claims-here", victim, "")
	create(t, pruneMe, kept, sameNS)
	uids := map[string]types.UID{}
	for _, o := range []*corev1.ConfigMap{pruneMe, kept, sameNS} {
		uids[o.Namespace+"/"+o.Name] = o.UID
	}

	// A values change renders the victim again with the claims in the cache.
	create(t, gatewayConfig(victim, "round-2", "Gateway", "web", `{"round": "2"}`, ""))
	eventually(t, "the victim rendered round 2", func() error {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: victim, Name: "web-count"}, cm); err != nil {
			return err
		}
		if cm.Data["round"] != "2" {
			return fmt.Errorf("round %q", cm.Data["round"])
		}
		if cm.Data["count"] != "1" {
			t.Errorf(".Resources.cm held %s objects, want 1: the claims were fed to the victim's render", cm.Data["count"])
		}
		return nil
	})
	waitGateway(t, victim, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	stillThere := func(when string) {
		t.Helper()
		for key, uid := range uids {
			ns, name, _ := strings.Cut(key, "/")
			cm := &corev1.ConfigMap{}
			if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil || cm.UID != uid {
				t.Errorf("%s: ConfigMap %s: %v (UID %s, want %s): Gantry deleted an object it never created", when, key, err, cm.UID, uid)
			}
		}
	}
	stillThere("after a render")

	// Deleting the victim removes its own objects, not the claims.
	gw := gateway(victim, "web", class)
	if err := k8s.Delete(t.Context(), gw); err != nil {
		t.Fatal(err)
	}
	waitGone(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: victim, Name: "own"}})
	stillThere("after the victim was deleted")
}

// TestOwnerAnnotationRemoved: a tenant removes the owner annotation from their route's object
// (`kubectl annotate cm ra-for-web-values gateway.gantry.dev/owner-`), and from the Gateway's
// own. Without it the object was not found as the Gateway's and its name looked taken: the
// Gateway stopped at ObjectExists. The owner reference proves the object Gantry's; the next
// apply puts the annotation back, on the same object.
func TestOwnerAnnotationRemoved(t *testing.T) {
	ns := namespace(t, nil)
	bp := blueprint("stripped", `{"x": "1"}`, map[string]string{"values": valuesTemplate})
	bp.Spec.HTTPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"route": routeValuesTemplate}}
	class := setup(t, ns, bp)
	create(t, gateway(ns, "web", class), httpRoute(ns, "ra", ns, "web"))
	waitValues(t, ns, "ra-for-web", `{"x": "1"}`)
	waitValues(t, ns, "web", `{"x": "1"}`)

	uids := map[string]types.UID{}
	for _, name := range []string{"ra-for-web-values", "web-values"} {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
			t.Fatal(err)
		}
		uids[name] = cm.UID
		update(t, cm, func(cm *corev1.ConfigMap) { delete(cm.Annotations, v1alpha1.AnnotationOwner) })
	}
	create(t, gatewayConfig(ns, "two", "Namespace", ns, `{"x": "2"}`, ""))
	waitValues(t, ns, "ra-for-web", `{"x": "2"}`)
	waitValues(t, ns, "web", `{"x": "2"}`)
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	for name, uid := range uids {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
			t.Fatal(err)
		}
		if cm.UID != uid || cm.Annotations[v1alpha1.AnnotationOwner] != ns+"/web" {
			t.Errorf("%s: UID %s (want %s), owner annotation %q (want it back)", name, cm.UID, uid, cm.Annotations[v1alpha1.AnnotationOwner])
		}
	}
}
