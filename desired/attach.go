package desired

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Attach reports, without rendering, which of routes attach to which listeners of in.Gateway
// and of the ListenerSets it admits (in.ListenerSets, with in.NamespaceLabels, in.Blueprint's
// listener protocols and in.Secrets and in.ReferenceGrants for their listeners): what an
// HTTPRoute's parent status, a Gateway's listener status and a ListenerSet's status say.
func Attach(in *Input, routes []*gwv1.HTTPRoute) ([]Listener, []Route, []ListenerSet) {
	objs := make([]client.Object, len(routes))
	for i, r := range routes {
		objs[i] = r
	}
	return AttachRoutes(in, objs)
}

// AttachRoutes is Attach for routes of any of RouteKinds (typed objects; others are ignored).
func AttachRoutes(in *Input, routes []client.Object) ([]Listener, []Route, []ListenerSet) {
	sets := ListenerSets(in)
	var rs []routeObj
	for _, o := range routes {
		if r, ok := wrapRoute(o); ok {
			rs = append(rs, r)
		}
	}
	a := attach(in.Gateway, in.Blueprint, rs, in.NamespaceLabels, in.ListenerSets, sets)
	return a.listeners, a.routes, sets
}
