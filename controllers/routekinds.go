package controllers

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/desired"
)

// routeKind is a route kind beside HTTPRoute (GRPCRoute, TLSRoute, TCPRoute, UDPRoute) that
// the controller gathers for Gateways, watches and writes status for, when the API server
// serves it: a cluster whose Gateway API CRDs lack one runs without it.
type routeKind struct {
	kind   string
	object func() client.Object
	list   func() client.ObjectList
	items  func(client.ObjectList) []client.Object
}

// httpRoutes is HTTPRoute as a routeKind, for what HTTPRoutes share with the other kinds.
var httpRoutes = routeKind{desired.KindHTTPRoute, func() client.Object { return &gwv1.HTTPRoute{} }, func() client.ObjectList { return &gwv1.HTTPRouteList{} },
	func(l client.ObjectList) []client.Object { return pointers(l.(*gwv1.HTTPRouteList).Items) }}

var otherRouteKinds = []routeKind{
	{desired.KindGRPCRoute, func() client.Object { return &gwv1.GRPCRoute{} }, func() client.ObjectList { return &gwv1.GRPCRouteList{} },
		func(l client.ObjectList) []client.Object { return pointers(l.(*gwv1.GRPCRouteList).Items) }},
	{desired.KindTLSRoute, func() client.Object { return &gwv1.TLSRoute{} }, func() client.ObjectList { return &gwv1.TLSRouteList{} },
		func(l client.ObjectList) []client.Object { return pointers(l.(*gwv1.TLSRouteList).Items) }},
	{desired.KindTCPRoute, func() client.Object { return &gwv1.TCPRoute{} }, func() client.ObjectList { return &gwv1.TCPRouteList{} },
		func(l client.ObjectList) []client.Object { return pointers(l.(*gwv1.TCPRouteList).Items) }},
	{desired.KindUDPRoute, func() client.Object { return &gwv1.UDPRoute{} }, func() client.ObjectList { return &gwv1.UDPRouteList{} },
		func(l client.ObjectList) []client.Object { return pointers(l.(*gwv1.UDPRouteList).Items) }},
}

// pointers is a list's items as objects.
func pointers[T any, PT interface {
	*T
	client.Object
}](items []T) []client.Object {
	out := make([]client.Object, len(items))
	for i := range items {
		out[i] = PT(&items[i])
	}
	return out
}

// servedRouteKinds are the kinds of otherRouteKinds the API server serves.
func servedRouteKinds(mapper meta.RESTMapper) []routeKind {
	var out []routeKind
	for _, k := range otherRouteKinds {
		if served(mapper, gwv1.SchemeGroupVersion.WithKind(k.kind)) {
			out = append(out, k)
		}
	}
	return out
}

// indexRouteKinds indexes each kind by the Gateways and ListenerSets it names as parents.
func indexRouteKinds(ctx context.Context, idx client.FieldIndexer, kinds []routeKind) error {
	for _, k := range kinds {
		if err := idx.IndexField(ctx, k.object(), indexParent, func(o client.Object) []string {
			return parentRefKeys(o.GetNamespace(), desired.ParentRefs(o))
		}); err != nil {
			return err
		}
		if err := idx.IndexField(ctx, k.object(), indexBackend, func(o client.Object) []string {
			var out []string
			for _, key := range desired.RouteBackendServiceKeys(o) {
				out = append(out, key.String())
			}
			return out
		}); err != nil {
			return err
		}
		if err := idx.IndexField(ctx, k.object(), indexListenerSetParent, func(o client.Object) []string {
			var out []string
			for _, pr := range desired.ParentRefs(o) {
				if key, ok := desired.ListenerSetRef(pr, o.GetNamespace()); ok {
					out = append(out, key.String())
				}
			}
			return out
		}); err != nil {
			return err
		}
	}
	return nil
}

// gatewayOtherRoutes lists, once each, the routes of kinds that name the Gateway or one of its
// ListenerSets as a parent (gatewayRoutes, for HTTPRoutes).
func gatewayOtherRoutes(ctx context.Context, c client.Reader, kinds []routeKind, key types.NamespacedName, sets []*gwv1.ListenerSet) ([]client.Object, error) {
	var out []client.Object
	for _, k := range kinds {
		seen := map[types.NamespacedName]bool{}
		add := func(field, value string) error {
			l := k.list()
			if err := c.List(ctx, l, client.MatchingFields{field: value}); err != nil {
				return err
			}
			for _, o := range k.items(l) {
				if key := client.ObjectKeyFromObject(o); !seen[key] {
					seen[key] = true
					out = append(out, o)
				}
			}
			return nil
		}
		if err := add(indexParent, ownerKey(key)); err != nil {
			return nil, err
		}
		for _, ls := range sets {
			if err := add(indexListenerSetParent, client.ObjectKeyFromObject(ls).String()); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// anyRouteGateways maps a route of any kind to the Gateways it names, directly or through a
// ListenerSet.
func (m *mapper) anyRouteGateways(ctx context.Context, o client.Object) []reconcile.Request {
	var out []reconcile.Request
	for _, k := range parentRefKeys(o.GetNamespace(), desired.ParentRefs(o)) {
		out = append(out, requests(splitKey(k))...)
	}
	if !m.listenerSets {
		return out
	}
	for _, pr := range desired.ParentRefs(o) {
		if key, ok := desired.ListenerSetRef(pr, o.GetNamespace()); ok {
			ls := &gwv1.ListenerSet{}
			if err := m.c.Get(ctx, key, ls); err == nil {
				out = append(out, listenerSetGateway(ctx, ls)...)
			}
		}
	}
	return out
}

// parentRefKeys are the "<namespace>/<name>" of the Gateways parentRefs of a route in namespace
// ns name.
func parentRefKeys(ns string, prs []gwv1.ParentReference) []string {
	var out []string
	for _, pr := range prs {
		if pr.Group != nil && *pr.Group != gwv1.GroupName || pr.Kind != nil && *pr.Kind != "Gateway" {
			continue
		}
		n := ns
		if pr.Namespace != nil {
			n = string(*pr.Namespace)
		}
		out = append(out, n+"/"+string(pr.Name))
	}
	return out
}

// splitKey reads a "<namespace>/<name>" key.
func splitKey(k string) types.NamespacedName {
	ns, name, _ := strings.Cut(k, "/")
	return types.NamespacedName{Namespace: ns, Name: name}
}

func kindNamesOf(kinds []routeKind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.kind
	}
	return out
}

// routesOf maps to the routes of kind k the list options select.
func (m *mapper) routesOf(ctx context.Context, k routeKind, opts ...client.ListOption) []reconcile.Request {
	l := k.list()
	if err := m.c.List(ctx, l, opts...); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, o := range k.items(l) {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(o)})
	}
	return out
}

// gatewayRoutesOf maps a Gateway to the routes of kind k that name it.
func (m *mapper) gatewayRoutesOf(k routeKind) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		return m.routesOf(ctx, k, client.MatchingFields{indexParent: o.GetNamespace() + "/" + o.GetName()})
	}
}

// namespaceRoutesOf maps a namespace to the routes of kind k in it (its labels decide whether
// they attach to listeners that select namespaces).
func (m *mapper) namespaceRoutesOf(k routeKind) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		return m.routesOf(ctx, k, client.InNamespace(o.GetName()))
	}
}

// serviceRoutesOf maps a Service to the routes of kind k whose backendRefs name it.
func (m *mapper) serviceRoutesOf(k routeKind) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		return m.routesOf(ctx, k, client.MatchingFields{indexBackend: o.GetNamespace() + "/" + o.GetName()})
	}
}

// grantRoutesOf maps a ReferenceGrant to the routes of kind k in the namespaces it grants to.
func (m *mapper) grantRoutesOf(k routeKind) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		return grantFrom(ctx, o, gwv1.Kind(k.kind), func(ctx context.Context, opts ...client.ListOption) []reconcile.Request {
			return m.routesOf(ctx, k, opts...)
		})
	}
}

// listenerSetRoutesOf maps a ListenerSet to the routes of kind k that name it.
func (m *mapper) listenerSetRoutesOf(k routeKind) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		return m.routesOf(ctx, k, client.MatchingFields{indexListenerSetParent: client.ObjectKeyFromObject(o).String()})
	}
}

// servedRoute is an empty route of kind when the API server serves that kind (HTTPRoute always;
// the others when in kinds), nil otherwise: a read of a kind not served would wait for a cache
// that never syncs.
func servedRoute(kinds []routeKind, kind string) client.Object {
	if kind == httpRoutes.kind {
		return httpRoutes.object()
	}
	for _, k := range kinds {
		if k.kind == kind {
			return k.object()
		}
	}
	return nil
}
