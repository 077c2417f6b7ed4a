package desired

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/render"
)

var httpRouteKind = gwv1.RouteGroupKind{Group: ptr(gwv1.Group(gwv1.GroupName)), Kind: "HTTPRoute"}

func ptr[T any](v T) *T { return &v }

// attachment is the outcome of matching routes against the Gateway's listeners.
type attachment struct {
	listeners []Listener
	routes    []Route
	hostnames render.Hostnames
	// attached maps an accepted route to its position in routes.
	accepted []*gwv1.HTTPRoute
}

// attach decides which routes attach to which listeners, as Gateway API defines it: a
// parentRef names the Gateway (and optionally a listener by sectionName or port), the
// listener allows the route's kind and namespace, and their hostnames intersect.
func attach(gw *gwv1.Gateway, routes []*gwv1.HTTPRoute, nsLabels map[string]map[string]string) attachment {
	var a attachment
	perListener := make([][][]string, len(gw.Spec.Listeners))
	for _, l := range gw.Spec.Listeners {
		a.listeners = append(a.listeners, listenerKinds(l))
	}
	sorted := slices.Clone(routes)
	slices.SortFunc(sorted, func(x, y *gwv1.HTTPRoute) int {
		return cmp.Or(cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name))
	})
	for _, r := range sorted {
		// A route may name the Gateway in several parentRefs (one per listener, say). It
		// attaches through every one of them, counts once per listener, and is accepted when
		// any of them attaches it.
		var decided *Route
		attached := make([]bool, len(gw.Spec.Listeners))
		for _, pr := range r.Spec.ParentRefs {
			if !refersTo(pr, r.Namespace, gw) {
				continue
			}
			res := Route{NamespacedName: types.NamespacedName{Namespace: r.Namespace, Name: r.Name}, ParentRef: pr}
			var matched, kindOK, nsOK bool
			for i, l := range gw.Spec.Listeners {
				if pr.SectionName != nil && *pr.SectionName != l.Name || pr.Port != nil && *pr.Port != l.Port {
					continue
				}
				matched = true
				if !slices.ContainsFunc(a.listeners[i].SupportedKinds, sameKind(httpRouteKind)) {
					continue
				}
				kindOK = true
				if !namespaceAllowed(l.AllowedRoutes, gw.Namespace, r.Namespace, nsLabels) {
					continue
				}
				nsOK = true
				if !hostnamesIntersect(l.Hostname, r.Spec.Hostnames) {
					continue
				}
				res.Accepted = true
				if !attached[i] {
					attached[i] = true
					a.listeners[i].AttachedRoutes++
					perListener[i] = append(perListener[i], hostnames(r.Spec.Hostnames))
				}
			}
			switch {
			case res.Accepted:
				res.Reason = gwv1.RouteReasonAccepted
			case !matched:
				res.Reason, res.Message = gwv1.RouteReasonNoMatchingParent, fmt.Sprintf("Gateway %s/%s has no listener matching this parentRef's sectionName/port", gw.Namespace, gw.Name)
			case !kindOK || !nsOK:
				res.Reason, res.Message = gwv1.RouteReasonNotAllowedByListeners, fmt.Sprintf("no listener of Gateway %s/%s allows HTTPRoutes from namespace %s", gw.Namespace, gw.Name, r.Namespace)
			default:
				res.Reason, res.Message = gwv1.RouteReasonNoMatchingListenerHostname, fmt.Sprintf("none of the route's hostnames (%s) matches a listener of Gateway %s/%s", strings.Join(hostnames(r.Spec.Hostnames), ", "), gw.Namespace, gw.Name)
			}
			if decided == nil || res.Accepted && !decided.Accepted {
				decided = &res
			}
		}
		if decided != nil {
			a.routes = append(a.routes, *decided)
			if decided.Accepted {
				a.accepted = append(a.accepted, r)
			}
		}
	}
	in := make([]render.ListenerRoutes, len(gw.Spec.Listeners))
	for i, l := range gw.Spec.Listeners {
		in[i] = render.ListenerRoutes{Routes: perListener[i]}
		if l.Hostname != nil {
			in[i].Hostname = string(*l.Hostname)
		}
	}
	a.hostnames = render.ComputeHostnames(in)
	return a
}

// listenerKinds says which route kinds a listener accepts: HTTPRoute on HTTP and HTTPS
// listeners, when allowedRoutes.kinds is empty or names it.
func listenerKinds(l gwv1.Listener) Listener {
	out := Listener{Name: l.Name, SupportedKinds: []gwv1.RouteGroupKind{}}
	if l.Protocol != gwv1.HTTPProtocolType && l.Protocol != gwv1.HTTPSProtocolType {
		return out
	}
	if l.AllowedRoutes == nil || len(l.AllowedRoutes.Kinds) == 0 {
		out.SupportedKinds = append(out.SupportedKinds, httpRouteKind)
		return out
	}
	var unsupported []string
	for _, k := range l.AllowedRoutes.Kinds {
		if sameKind(httpRouteKind)(k) {
			out.SupportedKinds = append(out.SupportedKinds, httpRouteKind)
		} else {
			unsupported = append(unsupported, string(k.Kind))
		}
	}
	if len(unsupported) > 0 {
		out.Invalid = fmt.Sprintf("route kinds %s are not supported; Gantry attaches HTTPRoutes", strings.Join(unsupported, ", "))
	}
	return out
}

func sameKind(want gwv1.RouteGroupKind) func(gwv1.RouteGroupKind) bool {
	return func(k gwv1.RouteGroupKind) bool {
		g := gwv1.Group(gwv1.GroupName)
		if k.Group != nil {
			g = *k.Group
		}
		return g == *want.Group && k.Kind == want.Kind
	}
}

func refersTo(pr gwv1.ParentReference, routeNS string, gw *gwv1.Gateway) bool {
	if pr.Group != nil && *pr.Group != gwv1.GroupName || pr.Kind != nil && *pr.Kind != "Gateway" {
		return false
	}
	ns := routeNS
	if pr.Namespace != nil {
		ns = string(*pr.Namespace)
	}
	return ns == gw.Namespace && string(pr.Name) == gw.Name
}

func namespaceAllowed(ar *gwv1.AllowedRoutes, gwNS, routeNS string, nsLabels map[string]map[string]string) bool {
	from := gwv1.NamespacesFromSame
	var sel *metav1.LabelSelector
	if ar != nil && ar.Namespaces != nil {
		if ar.Namespaces.From != nil {
			from = *ar.Namespaces.From
		}
		sel = ar.Namespaces.Selector
	}
	switch from {
	case gwv1.NamespacesFromAll:
		return true
	case gwv1.NamespacesFromSame:
		return routeNS == gwNS
	case gwv1.NamespacesFromSelector:
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil || sel == nil {
			return false
		}
		return s.Matches(labels.Set(nsLabels[routeNS]))
	}
	return false
}

func hostnamesIntersect(listener *gwv1.Hostname, route []gwv1.Hostname) bool {
	if listener == nil || len(route) == 0 {
		return true
	}
	h := render.ComputeHostnames([]render.ListenerRoutes{{Hostname: string(*listener), Routes: [][]string{hostnames(route)}}})
	return len(h.Attached) > 0
}

func hostnames(hs []gwv1.Hostname) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = string(h)
	}
	return out
}
