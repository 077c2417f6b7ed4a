package controllers

import (
	"errors"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/desired"
)

// The functions below let a client that must not write (`gantry diff`) ask what a reconcile
// would write, with the very code the reconciler writes with.

// ToApply returns the objects a reconcile applies for a desired result: the rendered objects
// with the owner annotation, owner references and render hash the controller adds.
// routes are every route of the Gateway, of any kind (desired.AllRoutes).
func ToApply(gw *gwv1.Gateway, routes []client.Object, objs []desired.Object) ([]*unstructured.Unstructured, error) {
	out, _, err := (&GatewayReconciler{}).toApply(gw, routes, objs)
	return out, err
}

// Unchanged reports whether a live object already holds every field of the object to apply,
// in which case a reconcile does not write it.
func Unchanged(live, apply *unstructured.Unstructured) bool {
	return contains(live.Object, apply.Object)
}

// ToPrune returns the owned objects a reconcile that applied objs would delete: those no
// longer rendered, except kept ones and those of pending templates.
func ToPrune(in *desired.Input, res *desired.Result, objs, owned []*unstructured.Unstructured) []*unstructured.Unstructured {
	return toPrune(objs, owned, keepTemplates(in, res, nil))
}

// GatewayStatus returns the status a reconcile writes on gw for the outcome of desired.Gateway
// (res, err).
func GatewayStatus(gw *gwv1.Gateway, res *desired.Result, err error) gwv1.GatewayStatus {
	se := statusError{}
	if err != nil {
		se = statusError{reason: desired.ReasonRenderFailed, err: err}
		var de *desired.Error
		if errors.As(err, &de) {
			se.reason = de.Reason
		}
		res = nil
	}
	var sets []desired.ListenerSet
	if res != nil {
		sets = res.ListenerSets
	}
	next, _ := nextStatus(gw, res, sets, se)
	return next.Status
}

// Proves reports whether o is proven to be gw's, as the controller decides before feeding an
// object to .Resources or pruning it (see ownerProof): labels and the owner annotation are only
// a claim. routes are the live routes of every kind, whose UIDs prove a route template's objects.
func Proves(gw *gwv1.Gateway, routes []client.Object, o client.Object) bool {
	p := ownerProof{gw: types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}, uid: gw.UID, route: func(kind, ns, name string) (types.UID, bool) {
		for _, r := range routes {
			if desired.RouteKindOf(r) == kind && r.GetNamespace() == ns && r.GetName() == name {
				return r.GetUID(), true
			}
		}
		return "", false
	}}
	return p.proves(o)
}
