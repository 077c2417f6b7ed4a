package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestRouteBackendRefs: an HTTPRoute's ResolvedRefs says which backendRef does not resolve and
// why (BackendNotFound, InvalidKind, RefNotPermitted), and a Service or ReferenceGrant that
// appears later resolves it.
func TestRouteBackendRefs(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	other := namespace(t, nil)
	service := func(ns, name string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 8080}}}}
	}
	create(t, blueprint("backends-"+ns, `{}`, map[string]string{"values": valuesTemplate}), gantryClass("class-"+ns, "backends-"+ns),
		gateway(ns, "web", "class-"+ns), service(ns, "svc"), service(other, "there"))
	backend := func(name string) gwv1.HTTPBackendRef {
		return gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: gwv1.ObjectName(name), Port: ptr(gwv1.PortNumber(8080))}}}
	}
	route := func(name string, refs ...gwv1.HTTPBackendRef) *gwv1.HTTPRoute {
		return &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: gwv1.HTTPRouteSpec{
			CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Name: "web"}}},
			Rules:           []gwv1.HTTPRouteRule{{BackendRefs: refs}},
		}}
	}
	kind := backend("thing")
	kind.Group, kind.Kind = ptr(gwv1.Group("example.com")), ptr(gwv1.Kind("Thing"))
	there := backend("there")
	there.Namespace = ptr(gwv1.Namespace(other))
	create(t, route("ok", backend("svc")), route("missing", backend("svc"), backend("later")), route("kind", kind), route("cross", there))

	type want struct {
		reason  gwv1.RouteConditionReason
		message string
	}
	check := func(wants map[string]want) {
		t.Helper()
		for name, w := range wants {
			eventually(t, "HTTPRoute "+name+" ResolvedRefs", func() error {
				r := &gwv1.HTTPRoute{}
				if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, r); err != nil {
					return err
				}
				if len(r.Status.Parents) != 1 {
					return fmt.Errorf("parents = %+v", r.Status.Parents)
				}
				c := meta.FindStatusCondition(r.Status.Parents[0].Conditions, string(gwv1.RouteConditionResolvedRefs))
				ok := w.reason == gwv1.RouteReasonResolvedRefs
				if c == nil || c.Reason != string(w.reason) || (c.Status == metav1.ConditionTrue) != ok || !strings.Contains(c.Message, w.message) || c.ObservedGeneration != r.Generation {
					return fmt.Errorf("ResolvedRefs = %+v, want %s containing %q", c, w.reason, w.message)
				}
				if a := meta.FindStatusCondition(r.Status.Parents[0].Conditions, string(gwv1.RouteConditionAccepted)); a == nil || a.Status != metav1.ConditionTrue {
					return fmt.Errorf("Accepted = %+v; a route whose backends do not resolve is still accepted", a)
				}
				return nil
			})
		}
	}
	check(map[string]want{
		"ok":      {gwv1.RouteReasonResolvedRefs, ""},
		"missing": {gwv1.RouteReasonBackendNotFound, "spec.rules[0].backendRefs[1]: Service " + ns + "/later does not exist"},
		"kind":    {gwv1.RouteReasonInvalidKind, "Thing.example.com"},
		"cross":   {gwv1.RouteReasonRefNotPermitted, "no ReferenceGrant in namespace " + other},
	})

	create(t, service(ns, "later"), &gwv1beta1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: "routes"},
		Spec: gwv1beta1.ReferenceGrantSpec{
			From: []gwv1beta1.ReferenceGrantFrom{{Group: gwv1.GroupName, Kind: "HTTPRoute", Namespace: gwv1.Namespace(ns)}},
			To:   []gwv1beta1.ReferenceGrantTo{{Group: "", Kind: "Service"}},
		}})
	check(map[string]want{
		"missing": {gwv1.RouteReasonResolvedRefs, ""},
		"cross":   {gwv1.RouteReasonResolvedRefs, ""},
	})
}

// TestRouteTemplateBackends: route templates see each backendRef in .Backends with whether it
// resolves, and the Gateway renders its routes again when a Service they name appears or a
// ReferenceGrant lets them refer into another namespace.
func TestRouteTemplateBackends(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	other := namespace(t, nil)
	bp := blueprint("route-backends-"+ns, `{}`, map[string]string{})
	bp.Spec.HTTPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"backends": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .HTTPRoute.metadata.name }}-backends
data:
  backends: {{ toJson .Backends | quote }}
`}}
	create(t, bp, gantryClass("class-"+ns, bp.Name), gateway(ns, "web", "class-"+ns))
	here := gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: "later", Port: ptr(gwv1.PortNumber(8080))}}}
	there := gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{
		Name: "there", Namespace: ptr(gwv1.Namespace(other)), Port: ptr(gwv1.PortNumber(80))}, Weight: ptr(int32(5))}}
	create(t, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: "there"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
		&gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop"}, Spec: gwv1.HTTPRouteSpec{
			CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Name: "web"}}},
			Rules:           []gwv1.HTTPRouteRule{{BackendRefs: []gwv1.HTTPBackendRef{here, there}}},
		}})
	waitBackends := func(want string) {
		t.Helper()
		eventually(t, "shop-backends "+want, func() error {
			cm := &corev1.ConfigMap{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop-backends"}, cm); err != nil {
				return err
			}
			if cm.Data["backends"] != want {
				return fmt.Errorf(".Backends = %s", cm.Data["backends"])
			}
			return nil
		})
	}
	entry := func(index int, ns, name string, port, weight int, reason, message string) string {
		return fmt.Sprintf(`{"group":"","index":%d,"kind":"Service","message":%q,"name":%q,"namespace":%q,"port":%d,"reason":%q,"resolved":%t,"rule":0,"weight":%d}`,
			index, message, name, ns, port, reason, reason == "ResolvedRefs", weight)
	}
	waitBackends("[" + entry(0, ns, "later", 8080, 1, "BackendNotFound", "Service "+ns+"/later does not exist") + "," +
		entry(1, other, "there", 80, 5, "RefNotPermitted", "Service "+other+"/there is in another namespace, and no ReferenceGrant in namespace "+other+" allows HTTPRoutes of namespace "+ns+" to refer to it") + "]")

	create(t, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "later"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 8080}}}})
	waitBackends("[" + entry(0, ns, "later", 8080, 1, "ResolvedRefs", "") + "," +
		entry(1, other, "there", 80, 5, "RefNotPermitted", "Service "+other+"/there is in another namespace, and no ReferenceGrant in namespace "+other+" allows HTTPRoutes of namespace "+ns+" to refer to it") + "]")

	create(t, &gwv1beta1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: "routes"},
		Spec: gwv1beta1.ReferenceGrantSpec{
			From: []gwv1beta1.ReferenceGrantFrom{{Group: gwv1.GroupName, Kind: "HTTPRoute", Namespace: gwv1.Namespace(ns)}},
			To:   []gwv1beta1.ReferenceGrantTo{{Group: "", Kind: "Service"}},
		}})
	waitBackends("[" + entry(0, ns, "later", 8080, 1, "ResolvedRefs", "") + "," + entry(1, other, "there", 80, 5, "ResolvedRefs", "") + "]")
}
