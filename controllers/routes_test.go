package controllers_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// routeValuesTemplate renders, per attached HTTPRoute, a ConfigMap with the route's effective
// values.
const routeValuesTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .HTTPRoute.metadata.name }}-for-{{ .Gateway.metadata.name }}-values
data:
  values: {{ toJson .Values | quote }}
`

func httpRoute(ns, name, gwNS, gw string) *gwv1.HTTPRoute {
	return &gwv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: gwv1.HTTPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{
			{Name: gwv1.ObjectName(gw), Namespace: ptr(gwv1.Namespace(gwNS))},
		}}},
	}
}

// waitRouteParent waits until the route's parent status for Gantry has Accepted as wanted.
func waitRouteParent(t *testing.T, r *gwv1.HTTPRoute, status metav1.ConditionStatus, reason string) {
	t.Helper()
	eventually(t, fmt.Sprintf("HTTPRoute %s/%s Accepted=%s/%s", r.Namespace, r.Name, status, reason), func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(r), r); err != nil {
			return err
		}
		var ours []gwv1.RouteParentStatus
		for _, p := range r.Status.Parents {
			if p.ControllerName == v1alpha1.ControllerName {
				ours = append(ours, p)
			}
		}
		if len(ours) != 1 {
			return fmt.Errorf("parents = %+v, want one of Gantry", r.Status.Parents)
		}
		if err := conditionIs(ours[0].Conditions, "Accepted", status, reason, r.Generation); err != nil {
			return err
		}
		return conditionIs(ours[0].Conditions, "ResolvedRefs", metav1.ConditionTrue, "ResolvedRefs", r.Generation)
	})
}

// waitAttached waits until the Gateway's only listener counts n attached routes.
func waitAttached(t *testing.T, ns, name string, n int32) {
	t.Helper()
	eventually(t, fmt.Sprintf("%d routes attached to %s/%s", n, ns, name), func() error {
		gw := &gwv1.Gateway{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, gw); err != nil {
			return err
		}
		if len(gw.Status.Listeners) != 1 || gw.Status.Listeners[0].AttachedRoutes != n {
			return fmt.Errorf("listeners = %+v", gw.Status.Listeners)
		}
		return nil
	})
}

// checkRouteObject checks that a route template's object belongs to its route and Gateway.
func checkRouteObject(t *testing.T, cm *corev1.ConfigMap, route *gwv1.HTTPRoute, gwNS, gw string) {
	t.Helper()
	if refs := cm.OwnerReferences; len(refs) != 1 || refs[0].Kind != "HTTPRoute" || refs[0].Name != route.Name || refs[0].UID != route.UID {
		t.Errorf("%s owner references = %+v, want HTTPRoute %s", cm.Name, refs, route.Name)
	}
	if cm.Labels[v1alpha1.LabelGatewayName] != gw || cm.Labels[v1alpha1.LabelHTTPRoute] != route.Name || cm.Labels[v1alpha1.LabelTemplate] != "route" {
		t.Errorf("%s labels = %v", cm.Name, cm.Labels)
	}
	if cm.Annotations[v1alpha1.AnnotationOwner] != gwNS+"/"+gw {
		t.Errorf("%s owner annotation = %q", cm.Name, cm.Annotations[v1alpha1.AnnotationOwner])
	}
}

// TestRouteTemplates: a blueprint's httpRouteTemplate renders one object per attached route,
// in the route's namespace and owned by it, with the route's chain of values (route namespace
// and route policies); allowedRoutes decides which routes attach, and the routes' parent
// status says so; objects of routes that detach or go are pruned, and all of them go with
// the Gateway.
func TestRouteTemplates(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	other := namespace(t, nil)
	bp := blueprint("routes", `{"x": "blueprint"}`, map[string]string{"values": valuesTemplate})
	bp.Spec.HTTPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"route": routeValuesTemplate}}
	class := setup(t, ns, bp)
	gw := gateway(ns, "web", class)
	local, remote := httpRoute(ns, "local", ns, "web"), httpRoute(other, "remote", ns, "web")
	create(t, gw, local, remote)

	// The local route attaches; the remote one is not allowed by the default allowedRoutes
	// (Same namespace).
	waitRouteParent(t, local, metav1.ConditionTrue, "Accepted")
	waitRouteParent(t, remote, metav1.ConditionFalse, "NotAllowedByListeners")
	waitAttached(t, ns, "web", 1)
	waitValues(t, ns, "local-for-web", `{"x": "blueprint"}`)
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "local-for-web-values"}, cm); err != nil {
		t.Fatal(err)
	}
	checkRouteObject(t, cm, local, ns, "web")
	if cms, _ := renderedConfigMaps(ctx, other, "web"); len(cms) != 0 {
		t.Errorf("rendered for a route that is not allowed: %v", cms)
	}

	// Allowing routes from all namespaces attaches the remote route: its object lands in its
	// own namespace.
	update(t, gw, func(gw *gwv1.Gateway) {
		gw.Spec.Listeners[0].AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	})
	waitRouteParent(t, remote, metav1.ConditionTrue, "Accepted")
	waitAttached(t, ns, "web", 2)
	waitValues(t, other, "remote-for-web", `{"x": "blueprint"}`)
	remoteCM := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: "remote-for-web-values"}}
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(remoteCM), remoteCM); err != nil {
		t.Fatal(err)
	}
	checkRouteObject(t, remoteCM, remote, ns, "web")

	// The route chain: a GatewayConfig for the route's namespace (level 6) and one for the
	// route (level 7) reach the route's objects only.
	routeNS := gatewayConfig(other, "route-namespace", "Namespace", other, `{"x": "route-namespace", "rns": "yes"}`, "")
	route := gatewayConfig(ns, "route", "HTTPRoute", "local", `{"x": "route"}`, "")
	create(t, routeNS, route)
	waitValues(t, other, "remote-for-web", `{"x": "route-namespace", "rns": "yes"}`)
	waitValues(t, ns, "local-for-web", `{"x": "route"}`)
	waitValues(t, ns, "web", `{"x": "blueprint"}`)
	waitPolicy(t, routeNS, ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
	waitPolicy(t, route, ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")

	// Back to Same: the remote route detaches and its object is pruned.
	update(t, gw, func(gw *gwv1.Gateway) {
		gw.Spec.Listeners[0].AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromSame)}}
	})
	waitRouteParent(t, remote, metav1.ConditionFalse, "NotAllowedByListeners")
	waitGone(t, remoteCM)

	// Deleting the local route removes its object (the controller does; envtest runs no
	// garbage collector).
	if err := k8s.Delete(ctx, local); err != nil {
		t.Fatal(err)
	}
	waitGone(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "local-for-web-values"}})
	waitAttached(t, ns, "web", 0)

	// Allow the remote route again, then delete the Gateway: every object goes, in both
	// namespaces, and the route's parent status forgets the Gateway.
	update(t, gw, func(gw *gwv1.Gateway) {
		gw.Spec.Listeners[0].AllowedRoutes = &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	})
	waitValues(t, other, "remote-for-web", `{"x": "route-namespace", "rns": "yes"}`)
	if err := k8s.Delete(ctx, gw); err != nil {
		t.Fatal(err)
	}
	waitGone(t, remoteCM, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-values"}})
	eventually(t, "parent status without the deleted Gateway", func() error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(remote), remote); err != nil {
			return err
		}
		for _, p := range remote.Status.Parents {
			if p.ControllerName == v1alpha1.ControllerName {
				return fmt.Errorf("parents = %+v", remote.Status.Parents)
			}
		}
		return nil
	})
}

// TestRouteSelectorNamespaces: allowedRoutes From Selector attaches routes from namespaces
// whose labels match, and follows the labels of a namespace and the selector as they change.
func TestRouteSelectorNamespaces(t *testing.T) {
	ns := namespace(t, nil)
	other := namespace(t, map[string]string{"gantry-test/team": "b"})
	bp := blueprint("selector", `{}`, map[string]string{"values": valuesTemplate})
	bp.Spec.HTTPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"route": routeValuesTemplate}}
	class := setup(t, ns, bp)
	gw := gateway(ns, "web", class, gwv1.Listener{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType, AllowedRoutes: &gwv1.AllowedRoutes{
		Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromSelector), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"gantry-test/team": "a"}}},
	}})
	remote := httpRoute(other, "remote", ns, "web")
	create(t, gw, remote)
	waitRouteParent(t, remote, metav1.ConditionFalse, "NotAllowedByListeners")

	// The namespace joins team a: the route attaches.
	update(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: other}}, func(n *corev1.Namespace) {
		n.Labels["gantry-test/team"] = "a"
	})
	waitRouteParent(t, remote, metav1.ConditionTrue, "Accepted")
	waitValues(t, other, "remote-for-web", `{}`)

	// The Gateway selects team b instead: the route detaches and its object goes.
	update(t, gw, func(gw *gwv1.Gateway) {
		gw.Spec.Listeners[0].AllowedRoutes.Namespaces.Selector.MatchLabels["gantry-test/team"] = "b"
	})
	waitRouteParent(t, remote, metav1.ConditionFalse, "NotAllowedByListeners")
	waitGone(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: "remote-for-web-values"}})
}
