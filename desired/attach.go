package desired

import gwv1 "sigs.k8s.io/gateway-api/apis/v1"

// Attach reports, without rendering, which of routes attach to which listeners of in.Gateway
// and of the ListenerSets it admits (in.ListenerSets, with in.NamespaceLabels, in.Blueprint's
// listener protocols and in.Secrets and in.ReferenceGrants for their listeners): what an
// HTTPRoute's parent status, a Gateway's listener status and a ListenerSet's status say.
func Attach(in *Input, routes []*gwv1.HTTPRoute) ([]Listener, []Route, []ListenerSet) {
	sets := ListenerSets(in)
	a := attach(in.Gateway, routes, in.NamespaceLabels, in.ListenerSets, sets)
	return a.listeners, a.routes, sets
}
