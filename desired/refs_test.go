package desired

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

func TestReferenceAllowed(t *testing.T) {
	grant := &gwv1beta1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: "backends", Name: "g"}, Spec: gwv1beta1.ReferenceGrantSpec{
		From: []gwv1beta1.ReferenceGrantFrom{{Group: gwv1.GroupName, Kind: "HTTPRoute", Namespace: "apps"}},
		To:   []gwv1beta1.ReferenceGrantTo{{Group: "", Kind: "Service", Name: ptr(gwv1.ObjectName("api"))}},
	}}
	grants := []*gwv1beta1.ReferenceGrant{grant}
	for _, c := range []struct {
		name                           string
		fromKind, fromNS, toNS, toName string
		want                           bool
	}{
		{"same namespace needs no grant", "HTTPRoute", "apps", "apps", "x", true},
		{"granted", "HTTPRoute", "apps", "backends", "api", true},
		{"another name than the grant's", "HTTPRoute", "apps", "backends", "db", false},
		{"another namespace than the grant's from", "HTTPRoute", "other", "backends", "api", false},
		{"another kind than the grant's from", "Gateway", "apps", "backends", "api", false},
		{"a grant counts only in its own namespace", "HTTPRoute", "apps", "elsewhere", "api", false},
	} {
		if got := ReferenceAllowed(grants, gwv1.GroupName, c.fromKind, c.fromNS, "", "Service", c.toNS, c.toName); got != c.want {
			t.Errorf("%s: ReferenceAllowed = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestBackendRefsFirstFailureDecides: the first backendRef that does not resolve names the
// reason, with its field path; a kind Gantry cannot use is InvalidKind before anything is looked up.
func TestBackendRefsFirstFailureDecides(t *testing.T) {
	ref := func(name string) gwv1.HTTPBackendRef {
		return gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: gwv1.ObjectName(name)}}}
	}
	thing := ref("x")
	thing.Kind = ptr(gwv1.Kind("Thing"))
	r := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "r"}, Spec: gwv1.HTTPRouteSpec{Rules: []gwv1.HTTPRouteRule{
		{BackendRefs: []gwv1.HTTPBackendRef{ref("here")}},
		{BackendRefs: []gwv1.HTTPBackendRef{ref("gone"), thing}},
	}}}
	exists := func(k types.NamespacedName) bool { return k.Name == "here" }
	reason, msg := BackendRefs(r, exists, nil)
	if reason != gwv1.RouteReasonBackendNotFound || msg != "spec.rules[1].backendRefs[0]: Service apps/gone does not exist" {
		t.Errorf("BackendRefs = %s %q", reason, msg)
	}
	r.Spec.Rules[1].BackendRefs = []gwv1.HTTPBackendRef{thing}
	if reason, msg := BackendRefs(r, exists, nil); reason != gwv1.RouteReasonInvalidKind || msg != "spec.rules[1].backendRefs[0]: Gantry's backends are core Services, not Thing" {
		t.Errorf("BackendRefs = %s %q", reason, msg)
	}
	if got := BackendServiceKeys(r); len(got) != 1 || got[0].Name != "here" {
		t.Errorf("BackendServiceKeys = %v, want only the Service", got)
	}
}
