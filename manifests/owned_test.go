package manifests

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestOwned: Owned finds a Gateway's objects through an index of Live, in Live's order, tells
// same-named Gateways of two namespaces apart, and sees objects added to Live after a first
// call.
func TestOwned(t *testing.T) {
	obj := func(ns, name, gw, owner string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("ServiceAccount")
		u.SetNamespace(ns)
		u.SetName(name)
		u.SetLabels(map[string]string{v1alpha1.LabelTemplate: "sa", v1alpha1.LabelGatewayName: gw})
		if owner != "" {
			u.SetAnnotations(map[string]string{v1alpha1.AnnotationOwner: owner})
		}
		return u
	}
	names := func(us []*unstructured.Unstructured) []string {
		var out []string
		for _, u := range us {
			out = append(out, u.GetNamespace()+"/"+u.GetName())
		}
		return out
	}
	web := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web"}}
	unlabelled := obj("a", "plain", "web", "")
	unlabelled.SetLabels(map[string]string{v1alpha1.LabelGatewayName: "web"}) // no template label
	s := NewSet()
	s.Live = []*unstructured.Unstructured{
		obj("a", "web-2", "web", "a/web"),
		obj("b", "web", "web", ""),        // another namespace's web, without an owner
		obj("b", "web-b", "web", "b/web"), // same label, another owner
		obj("a", "api", "api", "a/api"),   // another Gateway
		obj("a", "web-1", "web", ""),      // no owner annotation, same namespace
		obj("c", "web-c", "web", "a/web"), // elsewhere, but named as web's by its owner
		unlabelled,
		obj("a", "web-x", "web", ""),
	}
	s.Live[len(s.Live)-1].SetAnnotations(map[string]string{v1alpha1.AnnotationOwner: ""}) // names no Gateway
	if got, want := names(s.Owned(web)), []string{"a/web-2", "a/web-1", "c/web-c"}; !slices.Equal(got, want) {
		t.Errorf("Owned = %v, want %v", got, want)
	}
	webB := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "web"}}
	if got, want := names(s.Owned(webB)), []string{"b/web", "b/web-b"}; !slices.Equal(got, want) {
		t.Errorf("Owned(b/web) = %v, want %v", got, want)
	}
	s.Live = append(s.Live, obj("a", "web-3", "web", "a/web"))
	if got, want := names(s.Owned(web)), []string{"a/web-2", "a/web-1", "c/web-c", "a/web-3"}; !slices.Equal(got, want) {
		t.Errorf("after an append to Live, Owned = %v, want %v", got, want)
	}
	s.Live = s.Live[:1]
	if got, want := names(s.Owned(web)), []string{"a/web-2"}; !slices.Equal(got, want) {
		t.Errorf("after Live shrank, Owned = %v, want %v", got, want)
	}
}
