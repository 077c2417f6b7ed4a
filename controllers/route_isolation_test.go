package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// routeCondition is the condition of a type in the route's Gantry parent status for a Gateway.
func routeCondition(r *gwv1.HTTPRoute, gwNS, gw, typ string) *metav1.Condition {
	for _, p := range r.Status.Parents {
		ns := r.Namespace
		if p.ParentRef.Namespace != nil {
			ns = string(*p.ParentRef.Namespace)
		}
		if p.ControllerName == v1alpha1.ControllerName && ns == gwNS && string(p.ParentRef.Name) == gw {
			return meta.FindStatusCondition(p.Conditions, typ)
		}
	}
	return nil
}

// waitRouteRendered waits for the route's gateway.gantry.dev/Rendered condition for a Gateway.
func waitRouteRendered(t *testing.T, r *gwv1.HTTPRoute, gwNS, gw string, status metav1.ConditionStatus, reason string) *metav1.Condition {
	t.Helper()
	var c *metav1.Condition
	eventually(t, fmt.Sprintf("HTTPRoute %s/%s Rendered=%s/%s", r.Namespace, r.Name, status, reason), func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(r), r); err != nil {
			return err
		}
		if c = routeCondition(r, gwNS, gw, "gateway.gantry.dev/Rendered"); c == nil {
			return fmt.Errorf("no Rendered condition in %+v", r.Status.Parents)
		}
		if c.Status != status || c.Reason != reason || c.ObservedGeneration != r.Generation {
			return fmt.Errorf("Rendered = %s/%s (generation %d): %s", c.Status, c.Reason, c.ObservedGeneration, c.Message)
		}
		return nil
	})
	return c
}

// TestOneRouteCannotStopASharedGateway is issue 7 item 3's attack: tenant A pre-creates, in
// their namespace, the ConfigMap their HTTPRoute's template renders. That collision stopped the
// whole shared Gateway (Programmed=False/ObjectExists): tenant B's route objects and the
// Gateway's own stopped updating. The collision is route A's alone: its parent status and a
// Warning Event say why, and the Gateway and route B go on.
func TestOneRouteCannotStopASharedGateway(t *testing.T) {
	infra, a, b := namespace(t, nil), namespace(t, nil), namespace(t, nil)
	bp := blueprint("shared", `{"x": "1"}`, map[string]string{"values": valuesTemplate})
	bp.Spec.HTTPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"route": routeValuesTemplate}}
	class := setup(t, infra, bp)
	gw := gateway(infra, "web", class)
	gw.Spec.Listeners[0].AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	squatter := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: a, Name: "ra-for-web-values"}, Data: map[string]string{"mine": "yes"}}
	ra, rb := httpRoute(a, "ra", infra, "web"), httpRoute(b, "rb", infra, "web")
	create(t, squatter, gw, ra, rb)

	waitValues(t, infra, "web", `{"x": "1"}`)
	waitValues(t, b, "rb-for-web", `{"x": "1"}`)
	waitGateway(t, infra, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	c := waitRouteRendered(t, ra, infra, "web", metav1.ConditionFalse, "ObjectExists")
	if !strings.Contains(c.Message, "ConfigMap "+a+"/ra-for-web-values") {
		t.Errorf("route A's condition %q does not name the object", c.Message)
	}
	waitRouteRendered(t, rb, infra, "web", metav1.ConditionTrue, "Rendered")

	// A values change reaches the Gateway and route B while A's collision stands.
	create(t, gatewayConfig(infra, "two", "Gateway", "web", `{"x": "2"}`, ""))
	waitValues(t, infra, "web", `{"x": "2"}`)
	waitValues(t, b, "rb-for-web", `{"x": "2"}`)
	waitGateway(t, infra, "web", "Programmed", metav1.ConditionTrue, "Programmed")

	eventually(t, "a Warning Event on route A", func() error {
		l := &eventsv1.EventList{}
		if err := k8s.List(t.Context(), l, client.InNamespace(a)); err != nil {
			return err
		}
		for _, e := range l.Items {
			if e.Regarding.Kind == "HTTPRoute" && e.Regarding.Name == "ra" && e.Type == corev1.EventTypeWarning && e.Reason == "ObjectExists" {
				return nil
			}
		}
		return fmt.Errorf("%d events in %s, none a Warning ObjectExists on HTTPRoute ra", len(l.Items), a)
	})
	got := &corev1.ConfigMap{}
	if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(squatter), got); err != nil {
		t.Fatal(err)
	}
	if got.UID != squatter.UID || got.Data["mine"] != "yes" || len(got.Data) != 1 {
		t.Errorf("tenant A's own ConfigMap changed: %+v", got)
	}

	// Once the squatter goes, route A renders.
	if err := k8s.Delete(t.Context(), squatter); err != nil {
		t.Fatal(err)
	}
	waitValues(t, a, "ra-for-web", `{"x": "2"}`)
	waitRouteRendered(t, ra, infra, "web", metav1.ConditionTrue, "Rendered")
}

// TestRefusedRouteObjectsAreTheRoutes: a route's unit the API server refuses in part (its
// ConfigMap fine, its Service with port 70000 from the route's own GatewayConfig) writes
// nothing of the route, says so on the route, and leaves the Gateway Programmed.
func TestRefusedRouteObjectsAreTheRoutes(t *testing.T) {
	ns := namespace(t, nil)
	bp := blueprint("route-refused", `{"x": "1", "port": 80}`, map[string]string{"values": valuesTemplate})
	bp.Spec.HTTPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{
		"route": routeValuesTemplate,
		"svc":   "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .HTTPRoute.metadata.name }}-svc\nspec:\n  ports:\n  - port: {{ .Values.port }}\n",
	}}
	class := setup(t, ns, bp)
	ra := httpRoute(ns, "ra", ns, "web")
	create(t, gateway(ns, "web", class), ra)
	waitValues(t, ns, "ra-for-web", `{"x": "1", "port": 80}`)
	waitRouteRendered(t, ra, ns, "web", metav1.ConditionTrue, "Rendered")

	create(t, gatewayConfig(ns, "bad-port", "HTTPRoute", "ra", `{"x": "2", "port": 70000}`, ""))
	c := waitRouteRendered(t, ra, ns, "web", metav1.ConditionFalse, "ApplyFailed")
	if !strings.Contains(c.Message, "Service "+ns+"/ra-svc") {
		t.Errorf("route condition %q does not name the Service", c.Message)
	}
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	if v, err := renderedValues(t.Context(), ns, "ra-for-web"); err != nil || v["x"] != "1" {
		t.Errorf("route ConfigMap values = %v (%v): half of the refused route unit was written", v, err)
	}
}
