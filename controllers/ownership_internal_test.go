package controllers

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestRouteOwnerProofPerKind: a route template's object is proven by a controller owner
// reference to a route of its kind with that route's UID (or to a route that is gone, whose
// objects are the Gateway's to prune); a reference to a kind the API server does not serve, or
// to a live route with another UID, proves nothing.
func TestRouteOwnerProofPerKind(t *testing.T) {
	gw := types.NamespacedName{Namespace: "team-a", Name: "web"}
	live := map[string]types.UID{"TCPRoute/db": "tcp-uid", "HTTPRoute/db": "http-uid"}
	p := ownerProof{gw: gw, uid: "gw-uid",
		served: func(kind string) bool { return kind != "UDPRoute" },
		route: func(kind, ns, name string) (types.UID, bool) {
			uid, ok := live[kind+"/"+name]
			return uid, ok && ns == "team-b"
		}}
	obj := func(kind, name string, uid types.UID) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetNamespace("team-b")
		u.SetName("x")
		u.SetAnnotations(map[string]string{v1alpha1.AnnotationOwner: "team-a/web"})
		u.SetLabels(map[string]string{v1alpha1.RouteLabel(kind): name}) // as Gantry labels it
		u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: gwv1.GroupVersion.String(), Kind: kind, Name: name, UID: uid, Controller: new(true)}})
		return u
	}
	for _, c := range []struct {
		kind, name string
		uid        types.UID
		want       bool
	}{
		{"TCPRoute", "db", "tcp-uid", true},
		{"TCPRoute", "db", "http-uid", false}, // the HTTPRoute of the same name's UID
		{"HTTPRoute", "db", "tcp-uid", false},
		{"HTTPRoute", "db", "http-uid", true},
		{"TLSRoute", "gone", "old-uid", true}, // its route is gone: an orphan to prune
		{"UDPRoute", "db", "any", false},      // a kind not served proves nothing
		{"ServiceImport", "db", "any", false},
	} {
		if got := p.proves(obj(c.kind, c.name, c.uid)); got != c.want {
			t.Errorf("owner %s %s (uid %s): proves %v, want %v", c.kind, c.name, c.uid, got, c.want)
		}
	}

	// The labels must say the owner the reference proves: they file the object (.Resources,
	// pruning), and the tenant writes them.
	for what, labels := range map[string]map[string]string{
		"no route label":       {},
		"another kind's label": {v1alpha1.RouteLabel("HTTPRoute"): "db"},
		"another route's name": {v1alpha1.RouteLabel("TCPRoute"): "other"},
		"two route labels":     {v1alpha1.RouteLabel("TCPRoute"): "db", v1alpha1.RouteLabel("HTTPRoute"): "db"},
	} {
		o := obj("TCPRoute", "db", "tcp-uid")
		o.SetLabels(labels)
		if p.proves(o) {
			t.Errorf("an object owned by TCPRoute db with %s (%v) is proven", what, labels)
		}
	}
	gwOwned := obj("Gateway", "web", "gw-uid")
	gwOwned.SetNamespace("team-a")
	if gwOwned.SetLabels(nil); !p.proves(gwOwned) {
		t.Error("the Gateway's own object is not proven")
	}
	if gwOwned.SetLabels(map[string]string{v1alpha1.RouteLabel("TCPRoute"): "db"}); p.proves(gwOwned) {
		t.Error("an object owned by the Gateway with a route label is proven")
	}
}
