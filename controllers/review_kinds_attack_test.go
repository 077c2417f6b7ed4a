package controllers_test

import (
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/render"
)

// Review attacks on issue 20 item 2 (per-route templates for every route kind): ownership,
// pruning and .Resources keyed by kind. Each test fails if the attack succeeds.

// routeOwnedClaim is an object in the attacker's namespace that claims to be the victim
// Gateway's object of its own template "cm" (labels and owner annotation, no route label), with
// a controller owner reference to a route of kind in the attacker's own namespace. A route's
// object is proven by that owner reference, but the labels, which the tenant wrote, decide
// whether it is filed as the route's live object or the Gateway's.
func routeOwnedClaim(ns, name, victimNS, kind, route string, uid types.UID) *corev1.ConfigMap {
	cm := claim(ns, name, victimNS, "")
	cm.OwnerReferences = []metav1.OwnerReference{{APIVersion: gwv1.GroupVersion.String(), Kind: kind, Name: route, UID: uid, Controller: ptr(true)}}
	return cm
}

// TestReviewKindsRouteOwnedClaimReachesGatewayResources: the claim of TestOwnershipIsProven
// with a controller owner reference to a route of the attacker's own namespace: to a TCPRoute
// that does not exist (an "orphan", which the proof accepts for a route that is gone) and to
// the attacker's own live TCPRoute with its UID (which a real cluster's garbage collector
// leaves alone). Neither may reach the victim Gateway's own .Resources. (Gantry pruning them is
// not asserted: a tenant who can write an owner reference can have the garbage collector
// delete its own object anyway.)
func TestReviewKindsRouteOwnedClaimReachesGatewayResources(t *testing.T) {
	victim, attacker := namespace(t, nil), namespace(t, nil)
	class := setup(t, victim, blueprint("kind-owned", `{"round": "1"}`, map[string]string{
		"cm":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: own\n",
		"count": countTemplate,
	}))
	create(t, gateway(victim, "web", class))
	waitGateway(t, victim, "web", "Programmed", metav1.ConditionTrue, "Programmed")

	// The attacker's own TCPRoute, attached to nothing.
	own := &gwv1.TCPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: attacker, Name: "mine"}, Spec: gwv1.TCPRouteSpec{
		Rules: []gwv1.TCPRouteRule{{BackendRefs: []gwv1.BackendRef{{BackendObjectReference: gwv1.BackendObjectReference{Name: "x", Port: ptr(gwv1.PortNumber(1))}}}}}}}
	create(t, own)
	ghost := routeOwnedClaim(attacker, "claims-ghost", victim, "TCPRoute", "ghost", "00000000-0000-0000-0000-000000000001")
	live := routeOwnedClaim(attacker, "claims-live", victim, "TCPRoute", "mine", own.UID)
	create(t, ghost, live)

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
			t.Errorf("BROKE: .Resources.cm of the victim held %s objects, want 1: a tenant's claim owned by its own TCPRoute was fed to the victim Gateway's render", cm.Data["count"])
		}
		return nil
	})
}

// TestReviewKindsRouteLabelOfOtherKind: the attacker's claim carries the route label of a kind
// (TCPRoute) and a name that a victim's TCPRoute template objects carry, but lives in the
// attacker's namespace and is owned by the attacker's own HTTPRoute: the victim's TCPRoute, of
// another namespace, must not read it through .Resources.
func TestReviewKindsRouteLabelOfOtherKind(t *testing.T) {
	gwNS, victim, attacker := namespace(t, nil), namespace(t, nil), namespace(t, nil)
	bp := blueprint("kind-label", `{}`, map[string]string{"values": valuesTemplate})
	bp.Spec.ListenerProtocols = []gwv1.ProtocolType{gwv1.TCPProtocolType}
	bp.Spec.TCPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"route": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Route.metadata.name }}-seen
data:
  seen: {{ len (default list .Resources.route) | quote }}
  round: {{ .Values.round | default "1" | quote }}
`}}
	class := setup(t, gwNS, bp)
	l := gwv1.Listener{Name: "tcp", Port: 5432, Protocol: gwv1.TCPProtocolType,
		AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}}
	create(t, gateway(gwNS, "web", class, l))
	route := &gwv1.TCPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: victim, Name: "db"}, Spec: gwv1.TCPRouteSpec{
		CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Name: "web", Namespace: ptr(gwv1.Namespace(gwNS))}}},
		Rules:           []gwv1.TCPRouteRule{{BackendRefs: []gwv1.BackendRef{{BackendObjectReference: gwv1.BackendObjectReference{Name: "db", Port: ptr(gwv1.PortNumber(5432))}}}}}}}
	create(t, route)
	eventually(t, "the victim's TCPRoute rendered", func() error {
		return k8s.Get(t.Context(), client.ObjectKey{Namespace: victim, Name: "db-seen"}, &corev1.ConfigMap{})
	})

	mine := httpRoute(attacker, "mine", "nowhere", "none")
	create(t, mine)
	forged := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: attacker, Name: "forged",
		Labels:          map[string]string{v1alpha1.LabelGatewayName: "web", v1alpha1.LabelTemplate: "route", v1alpha1.RouteLabel("TCPRoute"): "db"},
		Annotations:     map[string]string{v1alpha1.AnnotationOwner: gwNS + "/web"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: gwv1.GroupVersion.String(), Kind: "HTTPRoute", Name: "mine", UID: mine.UID, Controller: ptr(true)}},
	}}
	create(t, forged)
	create(t, gatewayConfig(victim, "round-2", "TCPRoute", "db", `{"round": "2"}`, ""))
	eventually(t, "the victim's TCPRoute rendered round 2", func() error {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: victim, Name: "db-seen"}, cm); err != nil {
			return err
		}
		if cm.Data["round"] != "2" {
			return fmt.Errorf("round %q", cm.Data["round"])
		}
		if cm.Data["seen"] != "1" {
			t.Errorf("BROKE: the victim TCPRoute's .Resources.route held %s objects, want its own only", cm.Data["seen"])
		}
		return nil
	})
}

// TestReviewKindsClusterScopedKeepIsPerNamespace: a route template's cluster-scoped object
// has no namespace, so keepTemplates keeps it under "<kind>//<route label>/<template>" for
// every route of that kind and name, whatever its namespace. The attacker makes its own
// TCPRoute mallory/db fail (or wait on .Resources): the victim's TCPRoute victim/db was
// deleted, and its cluster-scoped object (a ClusterRoleBinding, say) must still be pruned.
func TestReviewKindsClusterScopedKeepIsPerNamespace(t *testing.T) {
	bp := blueprint("kind-cluster", `{}`, map[string]string{"values": valuesTemplate})
	bp.Spec.TCPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"binding": "unused"}}
	in := &desired.Input{Blueprint: bp}
	stale := &unstructured.Unstructured{}
	stale.SetAPIVersion("rbac.authorization.k8s.io/v1")
	stale.SetKind("ClusterRoleBinding")
	stale.SetName("victim-db")
	// As Gantry labels a route template's cluster-scoped object (desired.appendObjects): with
	// its route's namespace.
	stale.SetLabels(map[string]string{v1alpha1.LabelGatewayName: "web", v1alpha1.LabelTemplate: "binding", v1alpha1.RouteLabel("TCPRoute"): "db",
		v1alpha1.LabelRouteNamespace: "victim"})
	// mallory's own cluster-scoped object of that template is kept while its route fails.
	own := stale.DeepCopy()
	own.SetName("mallory-db")
	own.SetLabels(map[string]string{v1alpha1.LabelGatewayName: "web", v1alpha1.LabelTemplate: "binding", v1alpha1.RouteLabel("TCPRoute"): "db",
		v1alpha1.LabelRouteNamespace: "mallory"})
	for name, route := range map[string]desired.Route{
		"failed":  {Kind: "TCPRoute", NamespacedName: types.NamespacedName{Namespace: "mallory", Name: "db"}, Accepted: true, Err: errors.New("mallory's own doing")},
		"pending": {Kind: "TCPRoute", NamespacedName: types.NamespacedName{Namespace: "mallory", Name: "db"}, Accepted: true, Pending: []render.Pending{{Template: "tcpRouteTemplate.resourceTemplates.binding"}}},
	} {
		t.Run(name, func(t *testing.T) {
			res := &desired.Result{Routes: []desired.Route{route}}
			got := controllers.ToPrune(in, res, nil, []*unstructured.Unstructured{stale, own})
			if len(got) != 1 || got[0].GetName() != "victim-db" {
				t.Errorf("pruned %v; want the victim's deleted TCPRoute's cluster-scoped object alone, not kept because mallory's TCPRoute of the same name %s, and mallory's own kept", names(got), name)
			}
		})
	}
}

func names(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetName())
	}
	return out
}
