package desired

import gwv1 "sigs.k8s.io/gateway-api/apis/v1"

// Attach reports, without rendering, which of routes attach to which listeners of gw: what an
// HTTPRoute's parent status and a Gateway's listener status say.
func Attach(gw *gwv1.Gateway, routes []*gwv1.HTTPRoute, namespaceLabels map[string]map[string]string) ([]Listener, []Route) {
	a := attach(gw, routes, namespaceLabels)
	return a.listeners, a.routes
}
