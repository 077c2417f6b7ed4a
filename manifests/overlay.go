package manifests

import (
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// With returns s with local's objects laid over it, as applying local would leave the cluster
// s was read from: an object of the same kind, namespace and name is replaced, any other is
// added. A replacing object keeps what the API server sets (uid, creationTimestamp — which
// orders policies of a level —, resourceVersion, generation) and, when it has none, the
// status, so that it stands where the object it replaces stood. s itself is not changed.
func (s *Set) With(local *Set) *Set {
	out := &Set{
		Blueprints:          maps.Clone(s.Blueprints),
		Classes:             maps.Clone(s.Classes),
		Gateways:            slices.Clone(s.Gateways),
		Routes:              slices.Clone(s.Routes),
		OtherRoutes:         slices.Clone(s.OtherRoutes),
		ListenerSets:        slices.Clone(s.ListenerSets),
		GatewayClassConfigs: slices.Clone(s.GatewayClassConfigs),
		GatewayConfigs:      slices.Clone(s.GatewayConfigs),
		NamespaceLabels:     maps.Clone(s.NamespaceLabels),
		Live:                slices.Clone(s.Live),
		Services:            maps.Clone(s.Services),
		ReferenceGrants:     slices.Clone(s.ReferenceGrants),
		Proof:               s.Proof,
		Unseen:              slices.Clone(s.Unseen),
	}
	for name, bp := range local.Blueprints {
		if old := out.Blueprints[name]; old != nil {
			inheritMeta(bp, old)
			if len(bp.Status.RenderedKinds) == 0 {
				bp.Status = old.Status
			}
		}
		out.Blueprints[name] = bp
	}
	for name, c := range local.Classes {
		if old := out.Classes[name]; old != nil {
			inheritMeta(c, old)
		}
		out.Classes[name] = c
	}
	for _, gw := range local.Gateways {
		out.Gateways = replace(out.Gateways, gw, func(old *gwv1.Gateway) {
			inheritMeta(gw, old)
			if len(gw.Status.Conditions) == 0 {
				gw.Status = old.Status
			}
		})
	}
	sortGateways(out.Gateways)
	for _, r := range local.Routes {
		out.Routes = replace(out.Routes, r, func(old *gwv1.HTTPRoute) { inheritMeta(r, old) })
	}
	for _, r := range local.OtherRoutes {
		i := slices.IndexFunc(out.OtherRoutes, func(o client.Object) bool {
			return o.GetObjectKind().GroupVersionKind().Kind == r.GetObjectKind().GroupVersionKind().Kind && client.ObjectKeyFromObject(o) == client.ObjectKeyFromObject(r)
		})
		if i < 0 {
			out.OtherRoutes = append(out.OtherRoutes, r)
			continue
		}
		inheritMeta(r, out.OtherRoutes[i])
		out.OtherRoutes[i] = r
	}
	for _, ls := range local.ListenerSets {
		out.ListenerSets = replace(out.ListenerSets, ls, func(old *gwv1.ListenerSet) { inheritMeta(ls, old) })
	}
	for _, p := range local.GatewayClassConfigs {
		out.GatewayClassConfigs = replace(out.GatewayClassConfigs, p, nil)
	}
	for _, p := range local.GatewayConfigs {
		out.GatewayConfigs = replace(out.GatewayConfigs, p, nil)
	}
	maps.Copy(out.NamespaceLabels, local.NamespaceLabels)
	if out.Services == nil && len(local.Services) > 0 {
		out.Services = map[types.NamespacedName]bool{}
	}
	maps.Copy(out.Services, local.Services)
	for _, g := range local.ReferenceGrants {
		out.ReferenceGrants = replace(out.ReferenceGrants, g, nil)
	}
	for _, u := range local.Live {
		i := slices.IndexFunc(out.Live, func(l *unstructured.Unstructured) bool { return liveKey(l) == liveKey(u) })
		if i < 0 {
			out.Live = append(out.Live, u)
		} else {
			out.Live[i] = u
		}
	}
	return out
}

// replace puts o in place of the object of the same namespace and name in list, or adds it.
// Without a merge function, the replaced object's server-set metadata is inherited.
func replace[T metav1.Object](list []T, o T, merge func(old T)) []T {
	i := slices.IndexFunc(list, func(l T) bool { return l.GetNamespace() == o.GetNamespace() && l.GetName() == o.GetName() })
	if i < 0 {
		return append(list, o)
	}
	if merge != nil {
		merge(list[i])
	} else {
		inheritMeta(o, list[i])
	}
	list[i] = o
	return list
}

func inheritMeta(local, live metav1.Object) {
	local.SetUID(live.GetUID())
	local.SetCreationTimestamp(live.GetCreationTimestamp())
	local.SetResourceVersion(live.GetResourceVersion())
	local.SetGeneration(live.GetGeneration())
}

type objectID struct {
	schema.GroupKind
	namespace, name string
}

func liveKey(u *unstructured.Unstructured) objectID {
	return objectID{u.GroupVersionKind().GroupKind(), u.GetNamespace(), u.GetName()}
}
