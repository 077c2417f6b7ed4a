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
