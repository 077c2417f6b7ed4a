package desired

import (
	"fmt"
	"slices"

	"gantry.dev/gantry/apis/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// The route kinds of Gateway API's standard channel that attach to Gantry Gateways.
const (
	KindHTTPRoute = "HTTPRoute"
	KindGRPCRoute = "GRPCRoute"
	KindTLSRoute  = "TLSRoute"
	KindTCPRoute  = "TCPRoute"
	KindUDPRoute  = "UDPRoute"
)

// RouteKinds lists them.
var RouteKinds = []string{KindHTTPRoute, KindGRPCRoute, KindTLSRoute, KindTCPRoute, KindUDPRoute}

// DefaultRouteKinds are the kinds a listener of each protocol accepts unless its
// allowedRoutes.kinds narrows them, as Gateway API defines them.
var DefaultRouteKinds = map[gwv1.ProtocolType][]string{
	gwv1.HTTPProtocolType:  {KindHTTPRoute, KindGRPCRoute},
	gwv1.HTTPSProtocolType: {KindHTTPRoute, KindGRPCRoute},
	gwv1.TLSProtocolType:   {KindTLSRoute},
	gwv1.TCPProtocolType:   {KindTCPRoute},
	gwv1.UDPProtocolType:   {KindUDPRoute},
}

// routeID names a route of any kind.
type routeID struct {
	kind string
	types.NamespacedName
}

func (id routeID) String() string { return id.kind + " " + id.NamespacedName.String() }

// routeObj is one route of any kind as attachment reads it: its parents, its hostnames (none
// for TCPRoute and UDPRoute), the backendRefs of each rule, and the typed object.
type routeObj struct {
	routeID
	obj        client.Object
	created    metav1.Time
	parentRefs []gwv1.ParentReference
	hostnames  []gwv1.Hostname
	backends   [][]gwv1.BackendRef
}

// wrapRoute reads a route of any of RouteKinds; false for any other object.
func wrapRoute(o client.Object) (routeObj, bool) {
	r := routeObj{obj: o, created: o.GetCreationTimestamp()}
	r.NamespacedName = types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
	switch o := o.(type) {
	case *gwv1.HTTPRoute:
		r.kind, r.parentRefs, r.hostnames = KindHTTPRoute, o.Spec.ParentRefs, o.Spec.Hostnames
		for _, rule := range o.Spec.Rules {
			refs := make([]gwv1.BackendRef, len(rule.BackendRefs))
			for i, b := range rule.BackendRefs {
				refs[i] = b.BackendRef
			}
			r.backends = append(r.backends, refs)
		}
	case *gwv1.GRPCRoute:
		r.kind, r.parentRefs, r.hostnames = KindGRPCRoute, o.Spec.ParentRefs, o.Spec.Hostnames
		for _, rule := range o.Spec.Rules {
			refs := make([]gwv1.BackendRef, len(rule.BackendRefs))
			for i, b := range rule.BackendRefs {
				refs[i] = b.BackendRef
			}
			r.backends = append(r.backends, refs)
		}
	case *gwv1.TLSRoute:
		r.kind, r.parentRefs, r.hostnames = KindTLSRoute, o.Spec.ParentRefs, o.Spec.Hostnames
		for _, rule := range o.Spec.Rules {
			r.backends = append(r.backends, rule.BackendRefs)
		}
	case *gwv1.TCPRoute:
		r.kind, r.parentRefs = KindTCPRoute, o.Spec.ParentRefs
		for _, rule := range o.Spec.Rules {
			r.backends = append(r.backends, rule.BackendRefs)
		}
	case *gwv1.UDPRoute:
		r.kind, r.parentRefs = KindUDPRoute, o.Spec.ParentRefs
		for _, rule := range o.Spec.Rules {
			r.backends = append(r.backends, rule.BackendRefs)
		}
	default:
		return routeObj{}, false
	}
	return r, true
}

// routesOf is every route of in: its HTTPRoutes and its other routes.
func routesOf(in *Input) []routeObj {
	out := make([]routeObj, 0, len(in.Routes)+len(in.OtherRoutes))
	for _, r := range in.Routes {
		o, _ := wrapRoute(r)
		out = append(out, o)
	}
	for _, r := range in.OtherRoutes {
		if o, ok := wrapRoute(r); ok {
			out = append(out, o)
		}
	}
	return out
}

// routeKind is the group and kind of a route kind, as listener status lists it.
func routeKind(kind string) gwv1.RouteGroupKind {
	return gwv1.RouteGroupKind{Group: ptr(gwv1.Group(gwv1.GroupName)), Kind: gwv1.Kind(kind)}
}

// KindsFor are the route kinds a listener of protocol p accepts under bp: none for a
// protocol bp does not serve (ListenerProtocols), else what bp's routeKinds declares for it,
// else DefaultRouteKinds.
func KindsFor(bp *v1alpha1.GatewayClassBlueprint, p gwv1.ProtocolType) []string {
	if !slices.Contains(ListenerProtocols(bp), p) {
		return nil
	}
	if bp != nil {
		for _, rk := range bp.Spec.RouteKinds {
			if rk.Protocol == p {
				return rk.Kinds
			}
		}
	}
	return DefaultRouteKinds[p]
}

// AllRoutes lists HTTPRoutes and routes of the other kinds together, as client.Objects.
func AllRoutes(http []*gwv1.HTTPRoute, others []client.Object) []client.Object {
	out := make([]client.Object, 0, len(http)+len(others))
	for _, r := range http {
		out = append(out, r)
	}
	return append(out, others...)
}

// RouteKindOf is the kind of a typed route of any of RouteKinds (a client leaves TypeMeta
// empty); "" for another object.
func RouteKindOf(o client.Object) string {
	r, _ := wrapRoute(o)
	return r.kind
}

// ParentRefs are the parentRefs of a route of any of RouteKinds; nil for another object.
func ParentRefs(o client.Object) []gwv1.ParentReference {
	r, _ := wrapRoute(o)
	return r.parentRefs
}

// RouteStatus is the status of a route of any of RouteKinds, to read and write in place; nil
// for another object.
func RouteStatus(o client.Object) *gwv1.RouteStatus {
	switch o := o.(type) {
	case *gwv1.HTTPRoute:
		return &o.Status.RouteStatus
	case *gwv1.GRPCRoute:
		return &o.Status.RouteStatus
	case *gwv1.TLSRoute:
		return &o.Status.RouteStatus
	case *gwv1.TCPRoute:
		return &o.Status.RouteStatus
	case *gwv1.UDPRoute:
		return &o.Status.RouteStatus
	}
	return nil
}

// WithParentRef is a copy of a route of any of RouteKinds that names pr as its only parent:
// what its status entry for pr is decided on.
func WithParentRef(o client.Object, pr gwv1.ParentReference) client.Object {
	c := o.DeepCopyObject().(client.Object)
	refs := []gwv1.ParentReference{pr}
	switch c := c.(type) {
	case *gwv1.HTTPRoute:
		c.Spec.ParentRefs = refs
	case *gwv1.GRPCRoute:
		c.Spec.ParentRefs = refs
	case *gwv1.TLSRoute:
		c.Spec.ParentRefs = refs
	case *gwv1.TCPRoute:
		c.Spec.ParentRefs = refs
	case *gwv1.UDPRoute:
		c.Spec.ParentRefs = refs
	}
	return c
}

// RouteBackendNamespaces are the namespaces other than the route's that its backendRefs name,
// for a route of any of RouteKinds.
func RouteBackendNamespaces(o client.Object) map[string]bool {
	r, _ := wrapRoute(o)
	out := map[string]bool{}
	for _, rule := range r.backends {
		for _, b := range rule {
			if b.Namespace != nil && string(*b.Namespace) != r.Namespace {
				out[string(*b.Namespace)] = true
			}
		}
	}
	return out
}

// RouteBackendRefs says why a route's backendRefs do not all resolve (see BackendRefs), for a
// route of any of RouteKinds.
func RouteBackendRefs(o client.Object, serviceExists func(types.NamespacedName) bool, grants []*gwv1beta1.ReferenceGrant) (gwv1.RouteConditionReason, string) {
	for _, b := range RouteBackends(o, serviceExists, grants) {
		if !b.Resolved() {
			return b.Reason, fmt.Sprintf("spec.rules[%d].backendRefs[%d]: %s", b.Rule, b.Index, b.Message)
		}
	}
	return "", ""
}

// NewRoute is an empty typed route of one of RouteKinds; nil for another kind.
func NewRoute(kind string) client.Object {
	switch kind {
	case KindHTTPRoute:
		return &gwv1.HTTPRoute{}
	case KindGRPCRoute:
		return &gwv1.GRPCRoute{}
	case KindTLSRoute:
		return &gwv1.TLSRoute{}
	case KindTCPRoute:
		return &gwv1.TCPRoute{}
	case KindUDPRoute:
		return &gwv1.UDPRoute{}
	}
	return nil
}

// RouteBackendServiceKeys are the namespace/name of the Services a route of any of RouteKinds
// names as backends (BackendServiceKeys, for every kind).
func RouteBackendServiceKeys(o client.Object) []types.NamespacedName {
	r, _ := wrapRoute(o)
	var out []types.NamespacedName
	for _, rule := range r.backends {
		for _, b := range rule {
			if isService(b.BackendObjectReference) {
				out = append(out, refKey(r.Namespace, b.BackendObjectReference))
			}
		}
	}
	return out
}
