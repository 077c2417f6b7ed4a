package desired

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"gantry.dev/gantry/boundary"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ListenerSet is the outcome for one ListenerSet that names the Gateway as its parent.
type ListenerSet struct {
	types.NamespacedName
	Generation int64
	// Reason says why the ListenerSet is not accepted: NotAllowed (the Gateway's
	// spec.allowedListeners does not admit it) or ListenersNotValid (none of its listeners is);
	// empty when it is accepted.
	Reason  gwv1.ListenerSetConditionReason
	Message string
	// Listeners is the state of each of its listeners, in spec order; empty when NotAllowed.
	Listeners []Listener
}

// Accepted reports whether the ListenerSet is attached to the Gateway.
func (ls *ListenerSet) Accepted() bool { return ls.Reason == "" }

// Valid reports whether a listener can serve: it is accepted (no conflict, a protocol the
// blueprint serves) and its certificateRefs resolve.
func (l *Listener) Valid() bool {
	return l.Conflict == "" && l.Unsupported == "" && l.RefReason == ""
}

// SortListenerSets orders ListenerSets by Gateway API's listener precedence: the oldest first,
// then by namespace/name.
func SortListenerSets(sets []*gwv1.ListenerSet) []*gwv1.ListenerSet {
	out := slices.Clone(sets)
	slices.SortFunc(out, func(a, b *gwv1.ListenerSet) int {
		return cmp.Or(a.CreationTimestamp.Compare(b.CreationTimestamp.Time),
			cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// ParentGateway is the Gateway a ListenerSet names in spec.parentRef.
func ParentGateway(ls *gwv1.ListenerSet) types.NamespacedName {
	ns := ls.Namespace
	if ls.Spec.ParentRef.Namespace != nil {
		ns = string(*ls.Spec.ParentRef.Namespace)
	}
	return types.NamespacedName{Namespace: ns, Name: string(ls.Spec.ParentRef.Name)}
}

// namesGateway reports whether a ListenerSet's parentRef names gw (group and kind default to
// Gateway API's Gateway).
func namesGateway(ls *gwv1.ListenerSet, gw *gwv1.Gateway) bool {
	ref := ls.Spec.ParentRef
	if ref.Group != nil && *ref.Group != gwv1.GroupName || ref.Kind != nil && *ref.Kind != "Gateway" {
		return false
	}
	return ParentGateway(ls) == types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}
}

// listenersAllowed reports whether the Gateway's spec.allowedListeners admits ListenerSets of
// namespace ns, and if not, why.
func listenersAllowed(gw *gwv1.Gateway, ns string, nsLabels map[string]map[string]string) (bool, string) {
	from := gwv1.NamespacesFromNone
	var sel *metav1.LabelSelector
	if al := gw.Spec.AllowedListeners; al != nil && al.Namespaces != nil {
		if al.Namespaces.From != nil {
			from = *al.Namespaces.From
		}
		sel = al.Namespaces.Selector
	}
	who := fmt.Sprintf("Gateway %s/%s", gw.Namespace, gw.Name)
	switch from {
	case gwv1.NamespacesFromAll:
		return true, ""
	case gwv1.NamespacesFromSame:
		if ns == gw.Namespace {
			return true, ""
		}
		return false, fmt.Sprintf("%s spec.allowedListeners.namespaces.from is Same: it admits ListenerSets of namespace %s only", who, gw.Namespace)
	case gwv1.NamespacesFromSelector:
		if sel == nil {
			return false, fmt.Sprintf("%s spec.allowedListeners.namespaces.from is Selector, with no selector", who)
		}
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			return false, fmt.Sprintf("%s spec.allowedListeners.namespaces.selector is not valid: %v", who, err)
		}
		if s.Matches(labels.Set(nsLabels[ns])) {
			return true, ""
		}
		return false, fmt.Sprintf("%s spec.allowedListeners.namespaces.selector (%s) does not select namespace %s", who, s, ns)
	}
	return false, fmt.Sprintf("%s does not allow ListenerSets (spec.allowedListeners.namespaces.from is None, the default)", who)
}

// entryListener is a ListenerSet's listener as a Gateway listener: the fields are the same.
func entryListener(e gwv1.ListenerEntry) gwv1.Listener {
	return gwv1.Listener{Name: e.Name, Hostname: e.Hostname, Port: e.Port, Protocol: e.Protocol, TLS: e.TLS, AllowedRoutes: e.AllowedRoutes}
}

func entryListeners(ls *gwv1.ListenerSet) []gwv1.Listener {
	out := make([]gwv1.Listener, len(ls.Spec.Listeners))
	for i, e := range ls.Spec.Listeners {
		out[i] = entryListener(e)
	}
	return out
}

// ListenerSets decides, for each ListenerSet of in that names in.Gateway as its parent,
// whether the Gateway admits it and the state of each of its listeners, in listener
// precedence: the Gateway's listeners first, then the ListenerSets oldest first. A listener
// that shares a port with an earlier one of another protocol has a ProtocolConflict; one that
// shares port, protocol and hostname has a HostnameConflict. A ListenerSet with no valid
// listener is not accepted (ListenersNotValid).
func ListenerSets(in *Input) []ListenerSet {
	return listenerSets(in, nil)
}

// listenerSets is ListenerSets with the ListenerSets apart names left out of the conflicts: a
// ListenerSet set apart (quarantine.go) is not rendered, so its listeners claim no port and no
// hostname that a later one could otherwise have.
func listenerSets(in *Input, apart func(types.NamespacedName) bool) []ListenerSet {
	gw := in.Gateway
	var out []ListenerSet
	type taken struct {
		port     gwv1.PortNumber
		protocol gwv1.ProtocolType
		hostname string
		owner    string
	}
	var winners []taken
	for _, l := range gw.Spec.Listeners {
		winners = append(winners, taken{l.Port, l.Protocol, hostnameOf(l.Hostname), fmt.Sprintf("listener %s of Gateway %s/%s", l.Name, gw.Namespace, gw.Name)})
	}
	for _, ls := range SortListenerSets(in.ListenerSets) {
		if !namesGateway(ls, gw) {
			continue
		}
		o := ListenerSet{NamespacedName: types.NamespacedName{Namespace: ls.Namespace, Name: ls.Name}, Generation: ls.Generation}
		if ok, why := listenersAllowed(gw, ls.Namespace, in.NamespaceLabels); !ok {
			o.Reason, o.Message = gwv1.ListenerSetReasonNotAllowed, why
			out = append(out, o)
			continue
		}
		specs := entryListeners(ls)
		for _, l := range specs {
			o.Listeners = append(o.Listeners, listenerKinds(l, in.Blueprint))
		}
		acceptListenerProtocols(specs, in, o.Listeners)
		for i, l := range specs {
			st := &o.Listeners[i]
			host := hostnameOf(l.Hostname)
			for _, w := range winners {
				if w.port != l.Port {
					continue
				}
				if protocolsConflict(w.protocol, l.Protocol) {
					st.Conflict, st.ConflictMessage = gwv1.ListenerReasonProtocolConflict,
						fmt.Sprintf("spec.listeners[%d] (port %d, %s) conflicts with %s (port %d, %s), which comes first", i, l.Port, l.Protocol, w.owner, w.port, w.protocol)
					break
				}
				if w.protocol == l.Protocol && w.hostname == host {
					st.Conflict, st.ConflictMessage = gwv1.ListenerReasonHostnameConflict,
						fmt.Sprintf("spec.listeners[%d] (port %d, %s, hostname %q) conflicts with %s, which comes first", i, l.Port, l.Protocol, host, w.owner)
					break
				}
			}
			if st.Conflict != "" {
				st.SupportedKinds, st.Invalid = []gwv1.RouteGroupKind{}, ""
				continue
			}
			if st.Unsupported != "" || apart != nil && apart(o.NamespacedName) {
				continue // never rendered: it claims nothing
			}
			winners = append(winners, taken{l.Port, l.Protocol, host, fmt.Sprintf("listener %s of ListenerSet %s/%s", l.Name, ls.Namespace, ls.Name)})
		}
		resolveRefs(specs, "ListenerSet", ls.Namespace, in.Secrets, in.ReferenceGrants, o.Listeners)
		var bad []string
		for i, l := range o.Listeners {
			switch {
			case l.Conflict != "":
				bad = append(bad, fmt.Sprintf("listener %s: %s", l.Name, l.ConflictMessage))
			case l.Unsupported != "":
				bad = append(bad, fmt.Sprintf("listener %s: spec.listeners[%d].protocol: %s", l.Name, i, l.Unsupported))
			case l.RefReason != "":
				bad = append(bad, fmt.Sprintf("listener %s: %s", l.Name, l.RefMessage))
			}
		}
		if len(bad) > 0 {
			o.Message = strings.Join(bad, "; ")
			if len(bad) == len(o.Listeners) {
				o.Reason, o.Message = gwv1.ListenerSetReasonListenersNotValid, "no listener is valid: "+o.Message
			}
		}
		out = append(out, o)
	}
	return out
}

func hostnameOf(h *gwv1.Hostname) string {
	if h == nil {
		return ""
	}
	return string(*h)
}

// ListenerSetsNeedNamespaceLabels reports whether deciding gw's ListenerSets and their routes
// reads namespace labels.
func ListenerSetsNeedNamespaceLabels(gw *gwv1.Gateway, sets []*gwv1.ListenerSet) bool {
	if al := gw.Spec.AllowedListeners; al != nil && al.Namespaces != nil && al.Namespaces.From != nil && *al.Namespaces.From == gwv1.NamespacesFromSelector {
		return true
	}
	for _, ls := range sets {
		for _, e := range ls.Spec.Listeners {
			if ar := e.AllowedRoutes; ar != nil && ar.Namespaces != nil && ar.Namespaces.From != nil && *ar.Namespaces.From == gwv1.NamespacesFromSelector {
				return true
			}
		}
	}
	return false
}

// ListenerSetCertificateRefKeys are the Secrets a ListenerSet's listeners name.
func ListenerSetCertificateRefKeys(ls *gwv1.ListenerSet) []types.NamespacedName {
	return certificateRefKeys(ls.Namespace, entryListeners(ls))
}

// listenerSetMaps are the attached ListenerSets as templates see them (.ListenerSets), in
// listener precedence, and their strings: a ListenerSet is a tenant's object, as hostile as a
// GatewayConfig value.
func listenerSetMaps(in *Input, sets []ListenerSet) ([]map[string]any, []boundary.Tainted, error) {
	specs := in.ListenerSets
	out := []map[string]any{}
	var tainted []boundary.Tainted
	for _, o := range sets {
		if !o.Accepted() {
			continue
		}
		i := slices.IndexFunc(specs, func(ls *gwv1.ListenerSet) bool { return ls.Namespace == o.Namespace && ls.Name == o.Name })
		if i < 0 {
			continue
		}
		m, err := objectMap(specs[i])
		if err != nil {
			return nil, nil, fmt.Errorf("ListenerSet %s: %w", o.NamespacedName, err)
		}
		out = append(out, m)
		origin := fmt.Sprintf("ListenerSet %s field ", o.NamespacedName)
		tainted = append(tainted, boundary.TaintedStrings(m, func(p string) string { return origin + p })...)
		flagCertificateRefs(m, entryListeners(specs[i]), "ListenerSet", o.Namespace, in.Secrets, in.ReferenceGrants)
	}
	return out, tainted, nil
}
