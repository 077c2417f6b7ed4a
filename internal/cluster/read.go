package cluster

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/manifests"
)

// Read reads from the API server what the controller gathers: blueprints, GatewayClasses,
// policies, HTTPRoutes, namespaces, the Gateways of namespace ("" for all) and the objects
// Gantry rendered (those with its template label, of the kinds the blueprints record), which
// stand for .Resources and for what a reconcile may prune.
func Read(ctx context.Context, c client.Client, namespace string) (*manifests.Set, error) {
	set := manifests.NewSet()
	set.Proof = func(gw *gwv1.Gateway, o *unstructured.Unstructured) bool {
		return controllers.Proves(gw, desired.AllRoutes(set.Routes, set.OtherRoutes), o)
	}
	bps := &v1alpha1.GatewayClassBlueprintList{}
	classes := &gwv1.GatewayClassList{}
	gws := &gwv1.GatewayList{}
	routes := &gwv1.HTTPRouteList{}
	sets := &gwv1.ListenerSetList{}
	gccs := &v1alpha1.GatewayClassConfigList{}
	gcs := &v1alpha1.GatewayConfigList{}
	nss := &corev1.NamespaceList{}
	for _, l := range []struct {
		what string
		list client.ObjectList
		wide bool // across namespaces: with the rights of one namespace, that namespace's
	}{
		{"GatewayClassBlueprints", bps, false},
		{"GatewayClasses", classes, false},
		{"Gateways", gws, namespace == ""},
		{"HTTPRoutes", routes, true},
		{"ListenerSets", sets, true},
		{"GatewayClassConfigs", gccs, true},
		{"GatewayConfigs", gcs, true},
		{"Namespaces", nss, false},
	} {
		var err error
		switch {
		case l.list == gws && namespace != "":
			err = listVisible(ctx, c, set, "Gateways in "+namespace, gws, client.InNamespace(namespace))
		case l.wide:
			err = listWide(ctx, c, set, l.what, namespace, l.list)
		default:
			err = listVisible(ctx, c, set, l.what, l.list)
		}
		if err != nil {
			return nil, err
		}
	}
	for i := range bps.Items {
		set.Blueprints[bps.Items[i].Name] = &bps.Items[i]
	}
	for i := range classes.Items {
		set.Classes[classes.Items[i].Name] = &classes.Items[i]
	}
	for i := range gws.Items {
		set.Gateways = append(set.Gateways, &gws.Items[i])
	}
	for i := range routes.Items {
		set.Routes = append(set.Routes, &routes.Items[i])
	}
	for i := range sets.Items {
		set.ListenerSets = append(set.ListenerSets, &sets.Items[i])
	}
	for i := range gccs.Items {
		set.GatewayClassConfigs = append(set.GatewayClassConfigs, &gccs.Items[i])
	}
	for i := range gcs.Items {
		set.GatewayConfigs = append(set.GatewayConfigs, &gcs.Items[i])
	}
	for _, ns := range nss.Items {
		set.NamespaceLabels[ns.Name] = ns.Labels
	}
	others, err := otherRoutes(ctx, c, set, namespace)
	if err != nil {
		return nil, err
	}
	set.OtherRoutes = others
	if err := backends(ctx, c, set); err != nil {
		return nil, err
	}
	live, err := rendered(ctx, c, set, namespace, bps.Items)
	if err != nil {
		return nil, err
	}
	set.Live = live
	return set, nil
}

// rendered lists the objects with Gantry's template label, of every kind a blueprint records
// in status.renderedKinds (the kinds the controller watches), once per kind.
func rendered(ctx context.Context, c client.Client, set *manifests.Set, namespace string, bps []v1alpha1.GatewayClassBlueprint) ([]*unstructured.Unstructured, error) {
	req, err := labels.NewRequirement(v1alpha1.LabelTemplate, selection.Exists, nil)
	if err != nil {
		return nil, err
	}
	selector := labels.NewSelector().Add(*req)
	seen := map[schema.GroupKind]bool{}
	var out []*unstructured.Unstructured
	for _, bp := range bps {
		for _, k := range bp.Status.RenderedKinds {
			gvk := schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
			if seen[gvk.GroupKind()] {
				continue
			}
			seen[gvk.GroupKind()] = true
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			if err := listWide(ctx, c, set, gvk.Kind+" objects rendered by Gantry", namespace, l, client.MatchingLabelsSelector{Selector: selector}); err != nil {
				if meta.IsNoMatchError(err) {
					continue // the kind's CRD is gone: nothing of it can exist
				}
				return nil, err
			}
			for i := range l.Items {
				u := &l.Items[i]
				u.SetManagedFields(nil) // as the controller's cache holds them
				out = append(out, u)
			}
		}
	}
	return out, nil
}

// otherRoutes lists the GRPCRoutes, TLSRoutes, TCPRoutes and UDPRoutes, each kind when the API
// server serves it: of every namespace, or of namespace ns alone when given and the user may
// not read the others.
func otherRoutes(ctx context.Context, c client.Client, set *manifests.Set, ns string, opts ...client.ListOption) ([]client.Object, error) {
	lists := map[string]client.ObjectList{
		desired.KindGRPCRoute: &gwv1.GRPCRouteList{}, desired.KindTLSRoute: &gwv1.TLSRouteList{},
		desired.KindTCPRoute: &gwv1.TCPRouteList{}, desired.KindUDPRoute: &gwv1.UDPRouteList{},
	}
	var out []client.Object
	for _, kind := range desired.RouteKinds {
		l, ok := lists[kind]
		if !ok {
			continue
		}
		if err := listWide(ctx, c, set, kind+"s", ns, l, opts...); err != nil {
			if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
				continue // the CRD is not installed
			}
			return nil, err
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			return nil, err
		}
		for _, o := range items {
			out = append(out, o.(client.Object))
		}
	}
	return out, nil
}
