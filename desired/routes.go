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

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/render"
)

func ptr[T any](v T) *T { return &v }

// attachment is the outcome of matching routes against the Gateway's listeners.
type attachment struct {
	listeners []Listener
	routes    []Route
	hostnames render.Hostnames
	// accepted are the routes that attached, in attach order.
	accepted []routeObj
	// through is, per accepted route, the listeners it attached through, in attach order.
	through map[routeID][]routeVia
	// served is, per listener of the Gateway (its own and its ListenerSets'), its hostname
	// and the hostnames of each route attached to it, with the route: what hostnames are
	// computed from, again without a quarantined route's (see hostnamesWithout).
	served []servedListener
}

// routeVia is a listener a route attached through, and the parent (the Gateway, or one of its
// ListenerSets) whose listener it is.
type routeVia struct {
	kind, namespace, name string
	listener              gwv1.Listener
}

// servedListener is one listener's hostname and its routes' hostnames, by route.
type servedListener struct {
	render.ListenerRoutes
	routes []routeID
}

// hostnamesWithout computes .Hostnames without the hostnames of the routes in q.
func (a *attachment) hostnamesWithout(q map[routeID]bool) render.Hostnames {
	in := make([]render.ListenerRoutes, len(a.served))
	for i, l := range a.served {
		in[i].Hostname = l.Hostname
		for j, r := range l.routes {
			if !q[r] {
				in[i].Routes = append(in[i].Routes, l.Routes[j])
			}
		}
	}
	return render.ComputeHostnames(in)
}

// parent is a Gateway or an attached ListenerSet as routes see it: its listeners and their
// state.
type parent struct {
	kind, namespace, name string
	specs                 []gwv1.Listener
	state                 []Listener
	// hostnames collects, per listener, the hostnames of each route attached to it, and
	// routeKeys the routes.
	hostnames [][][]string
	routeKeys [][]routeID
}

func (p *parent) String() string { return fmt.Sprintf("%s %s/%s", p.kind, p.namespace, p.name) }

// attach decides which routes attach to which listeners, as Gateway API defines it: a
// parentRef names the Gateway or one of its attached ListenerSets (and optionally a listener by
// sectionName or port), the listener allows the route's kind and namespace, and their hostnames
// intersect. A parentRef to the Gateway reaches the Gateway's own listeners only.
func attach(gw *gwv1.Gateway, bp *v1alpha1.GatewayClassBlueprint, routes []routeObj, nsLabels map[string]map[string]string, setSpecs []*gwv1.ListenerSet, sets []ListenerSet) attachment {
	var a attachment
	for _, l := range gw.Spec.Listeners {
		a.listeners = append(a.listeners, listenerKinds(l, bp))
	}
	gatewayConflicts(gw, a.listeners)
	parents := []*parent{{kind: "Gateway", namespace: gw.Namespace, name: gw.Name, specs: gw.Spec.Listeners, state: a.listeners}}
	refused := map[types.NamespacedName]*ListenerSet{}
	for i := range sets {
		o := &sets[i]
		if !o.Accepted() {
			refused[o.NamespacedName] = o
			continue
		}
		i := slices.IndexFunc(setSpecs, func(ls *gwv1.ListenerSet) bool { return ls.Namespace == o.Namespace && ls.Name == o.Name })
		if i < 0 {
			continue
		}
		parents = append(parents, &parent{kind: "ListenerSet", namespace: o.Namespace, name: o.Name, specs: entryListeners(setSpecs[i]), state: o.Listeners})
	}
	for _, p := range parents {
		p.hostnames = make([][][]string, len(p.specs))
		p.routeKeys = make([][]routeID, len(p.specs))
	}
	sorted := slices.Clone(routes)
	slices.SortFunc(sorted, func(x, y routeObj) int {
		return cmp.Or(cmp.Compare(x.kind, y.kind), cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name))
	})
	for _, r := range sorted {
		// A route may name the Gateway (or its ListenerSets) in several parentRefs (one per
		// listener, say). It attaches through every one of them, counts once per listener, and
		// is accepted when any of them attaches it.
		var decided *Route
		attached := map[*Listener]bool{}
		via := func(p *parent, i int) {
			if a.through == nil {
				a.through = map[routeID][]routeVia{}
			}
			a.through[r.routeID] = append(a.through[r.routeID], routeVia{kind: p.kind, namespace: p.namespace, name: p.name, listener: p.specs[i]})
		}
		for _, pr := range r.parentRefs {
			res := Route{Kind: r.kind, NamespacedName: r.NamespacedName, ParentRef: pr}
			var p *parent
			for _, c := range parents {
				if refersToParent(pr, r.Namespace, c.kind, c.namespace, c.name) {
					p = c
					break
				}
			}
			if p == nil {
				key, ok := listenerSetRef(pr, r.Namespace)
				o := refused[key]
				if !ok || o == nil {
					continue
				}
				res.Reason, res.Message = gwv1.RouteReasonNotAllowedByListeners, fmt.Sprintf("ListenerSet %s is not attached to Gateway %s/%s (%s): %s", key, gw.Namespace, gw.Name, o.Reason, o.Message)
			} else {
				attachTo(p, r, pr, nsLabels, attached, &res, via)
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
	for _, p := range parents {
		for i, l := range p.specs {
			if p.kind == "ListenerSet" && (p.state[i].Conflict != "" || p.state[i].Unsupported != "") {
				continue // not a listener of the Gateway
			}
			lr := servedListener{ListenerRoutes: render.ListenerRoutes{Routes: p.hostnames[i]}, routes: p.routeKeys[i]}
			if l.Hostname != nil {
				lr.Hostname = string(*l.Hostname)
			}
			a.served = append(a.served, lr)
		}
	}
	a.hostnames = a.hostnamesWithout(nil)
	return a
}

// attachTo attaches a route through one parentRef to the listeners of p it matches, and says
// in res whether it did and why not.
func attachTo(p *parent, r routeObj, pr gwv1.ParentReference, nsLabels map[string]map[string]string, attached map[*Listener]bool, res *Route, via func(p *parent, i int)) {
	var matched, kindOK, nsOK bool
	for i, l := range p.specs {
		if pr.SectionName != nil && *pr.SectionName != l.Name || pr.Port != nil && *pr.Port != l.Port {
			continue
		}
		matched = true
		if !slices.ContainsFunc(p.state[i].SupportedKinds, sameKind(routeKind(r.kind))) {
			continue
		}
		kindOK = true
		if !namespaceAllowed(l.AllowedRoutes, p.namespace, r.Namespace, nsLabels) {
			continue
		}
		nsOK = true
		if !hostnamesIntersect(l.Hostname, r.hostnames) {
			continue
		}
		res.Accepted = true
		if st := &p.state[i]; !attached[st] {
			attached[st] = true
			st.AttachedRoutes++
			p.hostnames[i] = append(p.hostnames[i], hostnames(r.hostnames))
			p.routeKeys[i] = append(p.routeKeys[i], r.routeID)
			via(p, i)
		}
	}
	switch {
	case res.Accepted:
		res.Reason = gwv1.RouteReasonAccepted
	case !matched:
		res.Reason, res.Message = gwv1.RouteReasonNoMatchingParent, fmt.Sprintf("%s has no listener matching this parentRef's sectionName/port", p)
	case !kindOK || !nsOK:
		res.Reason, res.Message = gwv1.RouteReasonNotAllowedByListeners, fmt.Sprintf("no listener of %s allows %ss from namespace %s", p, r.kind, r.Namespace)
	default:
		res.Reason, res.Message = gwv1.RouteReasonNoMatchingListenerHostname, fmt.Sprintf("none of the route's hostnames (%s) matches a listener of %s", strings.Join(hostnames(r.hostnames), ", "), p)
	}
}

// listenerKinds says which route kinds a listener accepts under bp (KindsFor its protocol),
// narrowed by allowedRoutes.kinds. A kind allowedRoutes names that the listener cannot accept
// makes its ResolvedRefs InvalidRouteKinds.
func listenerKinds(l gwv1.Listener, bp *v1alpha1.GatewayClassBlueprint) Listener {
	out := Listener{Name: l.Name, SupportedKinds: []gwv1.RouteGroupKind{}}
	kinds := KindsFor(bp, l.Protocol)
	if l.Protocol == gwv1.TLSProtocolType && tlsTerminates(l) {
		kinds = nil // not accepted (acceptSpecProtocols says why): nothing attaches
	}
	if l.AllowedRoutes == nil || len(l.AllowedRoutes.Kinds) == 0 {
		for _, k := range kinds {
			out.SupportedKinds = append(out.SupportedKinds, routeKind(k))
		}
		return out
	}
	var bad []string
	for _, k := range l.AllowedRoutes.Kinds {
		ok := (k.Group == nil || *k.Group == gwv1.GroupName) && slices.Contains(kinds, string(k.Kind))
		switch {
		case !ok:
			bad = append(bad, string(k.Kind))
		case !slices.ContainsFunc(out.SupportedKinds, sameKind(routeKind(string(k.Kind)))):
			out.SupportedKinds = append(out.SupportedKinds, routeKind(string(k.Kind)))
		}
	}
	if len(bad) > 0 {
		accepts := "no route kind"
		if len(kinds) > 0 {
			accepts = strings.Join(kinds, ", ")
		}
		out.Invalid = fmt.Sprintf("route kinds %s are not supported on a %s listener; it accepts %s", strings.Join(bad, ", "), l.Protocol, accepts)
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
	return refersToParent(pr, routeNS, "Gateway", gw.Namespace, gw.Name)
}

// refersToParent reports whether a parentRef names the object of Gateway API's group, kind,
// namespace and name (a parentRef's kind defaults to Gateway, its namespace to the route's).
func refersToParent(pr gwv1.ParentReference, routeNS, kind, namespace, name string) bool {
	prKind := "Gateway"
	if pr.Kind != nil {
		prKind = string(*pr.Kind)
	}
	if pr.Group != nil && *pr.Group != gwv1.GroupName || prKind != kind {
		return false
	}
	ns := routeNS
	if pr.Namespace != nil {
		ns = string(*pr.Namespace)
	}
	return ns == namespace && string(pr.Name) == name
}

// listenerSetRef is the ListenerSet a parentRef names, if it names one.
func listenerSetRef(pr gwv1.ParentReference, routeNS string) (types.NamespacedName, bool) {
	if pr.Group != nil && *pr.Group != gwv1.GroupName || pr.Kind == nil || *pr.Kind != "ListenerSet" {
		return types.NamespacedName{}, false
	}
	ns := routeNS
	if pr.Namespace != nil {
		ns = string(*pr.Namespace)
	}
	return types.NamespacedName{Namespace: ns, Name: string(pr.Name)}, true
}

// ListenerSetRef is the ListenerSet a route's parentRef names, if it names one.
func ListenerSetRef(pr gwv1.ParentReference, routeNS string) (types.NamespacedName, bool) {
	return listenerSetRef(pr, routeNS)
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

// gatewayConflicts marks the Gateway's own listeners that share a port with an earlier one of a
// protocol that cannot share it (ProtocolConflict): the first in spec order keeps the port, as
// the first in precedence does among ListenerSets. The API server already refuses two
// listeners of one port, protocol and hostname. A conflicted listener serves nothing.
func gatewayConflicts(gw *gwv1.Gateway, state []Listener) {
	for i, l := range gw.Spec.Listeners {
		for _, w := range gw.Spec.Listeners[:i] {
			if w.Port != l.Port || !protocolsConflict(w.Protocol, l.Protocol) {
				continue
			}
			state[i].Conflict, state[i].ConflictMessage = gwv1.ListenerReasonProtocolConflict,
				fmt.Sprintf("spec.listeners[%d] (port %d, %s) conflicts with listener %s (port %d, %s), which comes first", i, l.Port, l.Protocol, w.Name, w.Port, w.Protocol)
			state[i].SupportedKinds, state[i].Invalid = []gwv1.RouteGroupKind{}, ""
			break
		}
	}
}

// protocolsConflict reports whether two listeners of these protocols cannot share a port:
// any two protocols but TCP and UDP, which are different transports.
func protocolsConflict(a, b gwv1.ProtocolType) bool {
	if a == b {
		return false
	}
	udp := func(p gwv1.ProtocolType) bool { return p == gwv1.UDPProtocolType }
	return udp(a) == udp(b)
}
