package controllers

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestCarefulForgetsAGateway: the careful set does not outlive its Gateways, so that a tenant
// creating and deleting Gateways whose first render is refused does not grow it.
func TestCarefulForgetsAGateway(t *testing.T) {
	var c careful
	a, b := types.NamespacedName{Namespace: "t", Name: "a"}, types.NamespacedName{Namespace: "t", Name: "b"}
	units := []unitKey{{gateway: a, uid: "1", owner: "Gateway t/a"}, {gateway: a, uid: "1", owner: "HTTPRoute t/r"}, {gateway: b, uid: "2", owner: "Gateway t/b"}}
	for _, u := range units {
		c.set(u)
	}
	c.forget(a)
	for i, u := range units {
		if want := u.gateway == b; c.is(u) != want {
			t.Errorf("unit %d (%+v) careful = %v after forgetting Gateway a, want %v", i, u, c.is(u), want)
		}
	}
}
