package controllers

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// Which objects are a Gateway's is proven, not claimed. Labels and the owner annotation find
// candidates cheaply, but a tenant can write both on any object in their namespace, so they
// decide nothing: an object is fed to .Resources, pruned or deleted only with a proof a tenant
// cannot forge for another namespace's Gateway.
//
//   - A namespaced object of the Gateway's own templates: a controller owner reference to the
//     Gateway (its UID, when the Gateway still exists) in the Gateway's namespace.
//   - A namespaced object of a route template: a controller owner reference to a route (of
//     any of Gateway API's route kinds) in the object's namespace (with the route's UID while the route exists), and the owner
//     annotation naming the Gateway, since a route attached to two Gateways has objects from
//     both. The route is the tenant's own: what they can forge there harms only their route.
//   - A cluster-scoped object: AnnotationOwnerUID equal to the Gateway's UID. Tenants cannot
//     write cluster-scoped objects; objects written before the UID annotation existed are
//     recognised by the owner annotation alone, on the same ground.
//
// With the Gateway gone (uid ""), an owner reference by name is enough: those are the objects
// the garbage collector deletes, as their owner no longer exists.

// ownerProof proves objects to be one Gateway's.
type ownerProof struct {
	gw  types.NamespacedName
	uid types.UID
	// route returns the UID of a live route of kind, or false when there is none.
	route func(kind, ns, name string) (types.UID, bool)
	// served reports whether the API server serves a route kind; nil: every kind. An owner
	// reference to a kind it does not serve proves nothing (no route of it can be read).
	served func(kind string) bool
}

var gatewayGroup = schema.GroupVersion{Group: gwv1.GroupName}.Group

// proves reports whether o is proven to be the Gateway's.
func (p ownerProof) proves(o client.Object) bool {
	ann := o.GetAnnotations()
	if ann[v1alpha1.AnnotationOwner] != ownerKey(p.gw) {
		return false
	}
	if o.GetNamespace() == "" {
		uid, ok := ann[v1alpha1.AnnotationOwnerUID]
		return !ok || p.uid == "" || types.UID(uid) == p.uid
	}
	ref := metav1.GetControllerOf(o)
	if ref == nil {
		return false
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil || gv.Group != gatewayGroup {
		return false
	}
	// The labels file a proven object (under the Gateway's templates or a route's, for
	// .Resources and pruning): they must say the owner the reference proves, or a tenant's
	// object owned by its own route could be filed under the Gateway's own templates.
	kind, route, routed := v1alpha1.RouteOfLabels(o.GetLabels())
	switch ref.Kind {
	case "Gateway":
		return !v1alpha1.HasRouteLabel(o.GetLabels()) && o.GetNamespace() == p.gw.Namespace && ref.Name == p.gw.Name && (p.uid == "" || ref.UID == p.uid)
	case desired.KindHTTPRoute, desired.KindGRPCRoute, desired.KindTLSRoute, desired.KindTCPRoute, desired.KindUDPRoute:
		if p.served != nil && !p.served(ref.Kind) || !routed || kind != ref.Kind || route != desired.LabelValue(ref.Name) {
			return false
		}
		uid, ok := p.route(ref.Kind, o.GetNamespace(), ref.Name)
		return !ok || uid == ref.UID
	}
	return false
}

// proof is the ownerProof of a Gateway (uid "" when it is gone).
func (r *GatewayReconciler) proof(ctx context.Context, gw types.NamespacedName, uid types.UID) ownerProof {
	served := func(kind string) bool { return servedRoute(r.routeKinds, kind) != nil }
	return ownerProof{gw: gw, uid: uid, served: served, route: func(kind, ns, name string) (types.UID, bool) {
		route := servedRoute(r.routeKinds, kind)
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, route); err != nil {
			// Not found, or not readable: no route to compare with. A read error other than
			// not-found is the cache's, and rare; the object then counts as an orphan's.
			return "", false
		}
		return route.GetUID(), true
	}}
}

// sameOwner reports whether existing, an object found where o is to be applied, is Gantry's
// object for the same owner: the controller owner reference o carries (namespaced), or the
// Gateway's UID (cluster-scoped). It is then applied over, which also puts back labels and
// annotations someone removed; anything else is a collision.
func sameOwner(existing, o client.Object, gwKey string, gwUID types.UID) bool {
	if o.GetNamespace() == "" {
		ann := existing.GetAnnotations()
		uid, ok := ann[v1alpha1.AnnotationOwnerUID]
		if ok {
			return types.UID(uid) == gwUID
		}
		return ann[v1alpha1.AnnotationOwner] == gwKey // written before the UID annotation
	}
	want, have := metav1.GetControllerOf(o), metav1.GetControllerOf(existing)
	return want != nil && have != nil && have.UID == want.UID
}
