package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/manifests"
)

// ReadGateway reads what one Gateway's desired state depends on, and no more: the Gateway, its
// class and blueprint, the policies of the namespaces that can reach it (the controller's and
// its own, and those of its routes), its routes (of its own namespace unless a listener admits
// others), and the objects carrying its gateway-name label. Nothing is listed cluster-wide but
// routes a listener admits from every namespace, so that it stays quick on a large cluster.
func ReadGateway(ctx context.Context, c client.Client, key types.NamespacedName, controllerNamespace string) (*manifests.Set, error) {
	set := manifests.NewSet()
	set.Proof = func(gw *gwv1.Gateway, o *unstructured.Unstructured) bool {
		return controllers.Proves(gw, desired.AllRoutes(set.Routes, set.OtherRoutes), o)
	}
	gw := &gwv1.Gateway{}
	if err := c.Get(ctx, key, gw); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("Gateway %s not found", key)
		}
		return nil, fmt.Errorf("get Gateway %s: %w", key, err)
	}
	set.Gateways = []*gwv1.Gateway{gw}
	class := &gwv1.GatewayClass{}
	switch found, err := getVisible(ctx, c, set, "GatewayClass "+string(gw.Spec.GatewayClassName), client.ObjectKey{Name: string(gw.Spec.GatewayClassName)}, class); {
	case err != nil:
		return nil, err
	case found:
		set.Classes[class.Name] = class
	}
	var bp *v1alpha1.GatewayClassBlueprint
	if name, err := desired.BlueprintName(class); err == nil && set.Classes[class.Name] != nil {
		bp = &v1alpha1.GatewayClassBlueprint{}
		switch found, err := getVisible(ctx, c, set, "GatewayClassBlueprint "+name, client.ObjectKey{Name: name}, bp); {
		case err != nil:
			return nil, err
		case found:
			set.Blueprints[name] = bp
		default:
			bp = nil
		}
	}

	// ListenerSets, when the Gateway admits any: of its namespace for Same, of all for the others.
	var sets []types.NamespacedName
	if al := gw.Spec.AllowedListeners; al != nil && al.Namespaces != nil && al.Namespaces.From != nil && *al.Namespaces.From != gwv1.NamespacesFromNone {
		l := &gwv1.ListenerSetList{}
		var opts []client.ListOption
		if *al.Namespaces.From == gwv1.NamespacesFromSame {
			opts = append(opts, client.InNamespace(gw.Namespace))
		}
		if err := listWide(ctx, c, set, "ListenerSets", gw.Namespace, l, opts...); err != nil {
			return nil, err
		}
		for i := range l.Items {
			if desired.ParentGateway(&l.Items[i]) == key {
				set.ListenerSets = append(set.ListenerSets, &l.Items[i])
				sets = append(sets, client.ObjectKeyFromObject(&l.Items[i]))
			}
		}
	}

	routes := &gwv1.HTTPRouteList{}
	var opts []client.ListOption
	if onlyOwnNamespace(gw) && len(sets) == 0 {
		opts = append(opts, client.InNamespace(gw.Namespace))
	}
	if err := listWide(ctx, c, set, "HTTPRoutes", gw.Namespace, routes, opts...); err != nil {
		return nil, err
	}
	others, err := otherRoutes(ctx, c, set, gw.Namespace, opts...)
	if err != nil {
		return nil, err
	}
	for _, o := range others {
		if slices.ContainsFunc(desired.ParentRefs(o), func(pr gwv1.ParentReference) bool {
			k, ok := desired.ListenerSetRef(pr, o.GetNamespace())
			return ok && slices.Contains(sets, k) || !ok && refersToGateway(pr, o.GetNamespace(), gw)
		}) {
			set.OtherRoutes = append(set.OtherRoutes, o)
		}
	}
	namespaces := []string{gw.Namespace}
	for i := range routes.Items {
		r := &routes.Items[i]
		if parentOf(r, gw) || slices.ContainsFunc(r.Spec.ParentRefs, func(pr gwv1.ParentReference) bool {
			k, ok := desired.ListenerSetRef(pr, r.Namespace)
			return ok && slices.Contains(sets, k)
		}) {
			set.Routes = append(set.Routes, r)
			if !slices.Contains(namespaces, r.Namespace) {
				namespaces = append(namespaces, r.Namespace)
			}
		}
	}
	all := []string{controllerNamespace}
	for _, ns := range namespaces {
		if !slices.Contains(all, ns) {
			all = append(all, ns)
		}
	}
	for _, ns := range all {
		gccs := &v1alpha1.GatewayClassConfigList{}
		if ns == controllerNamespace || ns == gw.Namespace {
			if err := listVisible(ctx, c, set, "GatewayClassConfigs in "+ns, gccs, client.InNamespace(ns)); err != nil {
				return nil, err
			}
		}
		for i := range gccs.Items {
			if !slices.ContainsFunc(set.GatewayClassConfigs, func(p *v1alpha1.GatewayClassConfig) bool { return p.Namespace == ns && p.Name == gccs.Items[i].Name }) {
				set.GatewayClassConfigs = append(set.GatewayClassConfigs, &gccs.Items[i])
			}
		}
		if ns == controllerNamespace && ns != gw.Namespace {
			continue // GatewayConfigs apply in their own namespace only
		}
		gcs := &v1alpha1.GatewayConfigList{}
		if err := listVisible(ctx, c, set, "GatewayConfigs in "+ns, gcs, client.InNamespace(ns)); err != nil {
			return nil, err
		}
		for i := range gcs.Items {
			set.GatewayConfigs = append(set.GatewayConfigs, &gcs.Items[i])
		}
	}
	if err := namespaceLabels(ctx, c, gw, namespaces, set); err != nil {
		return nil, err
	}
	if err := backends(ctx, c, set); err != nil {
		return nil, err
	}
	if bp != nil {
		live, err := renderedBy(ctx, c, set, bp, gw)
		if err != nil {
			return nil, err
		}
		set.Live = live
	}
	return set, nil
}

// onlyOwnNamespace reports whether every listener admits routes of the Gateway's namespace
// only (Gateway API's default).
func onlyOwnNamespace(gw *gwv1.Gateway) bool {
	for _, l := range gw.Spec.Listeners {
		if ar := l.AllowedRoutes; ar != nil && ar.Namespaces != nil && ar.Namespaces.From != nil && *ar.Namespaces.From != gwv1.NamespacesFromSame {
			return false
		}
	}
	return true
}

func parentOf(r *gwv1.HTTPRoute, gw *gwv1.Gateway) bool {
	for _, p := range r.Spec.ParentRefs {
		ns := r.Namespace
		if p.Namespace != nil {
			ns = string(*p.Namespace)
		}
		if ns == gw.Namespace && string(p.Name) == gw.Name && (p.Kind == nil || *p.Kind == "Gateway") {
			return true
		}
	}
	return false
}

// namespaceLabels reads the labels of the namespaces involved, or of all when a listener
// selects route namespaces by label.
func namespaceLabels(ctx context.Context, c client.Client, gw *gwv1.Gateway, namespaces []string, set *manifests.Set) error {
	selects := false
	for _, l := range gw.Spec.Listeners {
		if ar := l.AllowedRoutes; ar != nil && ar.Namespaces != nil && ar.Namespaces.From != nil && *ar.Namespaces.From == gwv1.NamespacesFromSelector {
			selects = true
		}
	}
	if desired.ListenerSetsNeedNamespaceLabels(gw, set.ListenerSets) {
		selects = true // ListenerSets (or their listeners) select namespaces by label
	}
	if selects {
		nss := &corev1.NamespaceList{}
		if err := listVisible(ctx, c, set, "Namespaces", nss); err != nil {
			return err
		}
		for _, ns := range nss.Items {
			set.NamespaceLabels[ns.Name] = ns.Labels
		}
		return nil
	}
	for _, name := range namespaces {
		ns := &corev1.Namespace{}
		if found, err := getVisible(ctx, c, set, "Namespace "+name, client.ObjectKey{Name: name}, ns); err != nil || !found {
			if err != nil {
				return err
			}
			continue
		}
		set.NamespaceLabels[ns.Name] = ns.Labels
	}
	return nil
}

// renderedBy lists the objects with the Gateway's gateway-name label and Gantry's template
// label, of the kinds the blueprint records; manifests.Set.Owned keeps the Gateway's own.
func renderedBy(ctx context.Context, c client.Client, set *manifests.Set, bp *v1alpha1.GatewayClassBlueprint, gw *gwv1.Gateway) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, k := range bp.Status.RenderedKinds {
		gvk := schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := listWide(ctx, c, set, gvk.Kind+" objects rendered by Gantry", gw.Namespace, l, client.MatchingLabels{v1alpha1.LabelGatewayName: desired.LabelValue(gw.Name)}, client.HasLabels{v1alpha1.LabelTemplate}); err != nil {
			if meta.IsNoMatchError(err) {
				continue
			}
			return nil, fmt.Errorf("Gateway %s/%s: %w", gw.Namespace, gw.Name, err)
		}
		for i := range l.Items {
			l.Items[i].SetManagedFields(nil)
			out = append(out, &l.Items[i])
		}
	}
	return out, nil
}

// backends reads what the routes' backendRefs resolve to (.Backends): whether each Service
// they name exists (its metadata is enough) and the ReferenceGrants of the namespaces they
// refer into.
func backends(ctx context.Context, c client.Client, set *manifests.Set) error {
	grantNS := map[string]bool{}
	for _, r := range desired.AllRoutes(set.Routes, set.OtherRoutes) {
		for _, key := range desired.RouteBackendServiceKeys(r) {
			if _, seen := set.Services[key]; seen {
				continue
			}
			m := &metav1.PartialObjectMetadata{}
			m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
			err := c.Get(ctx, key, m)
			if apierrors.IsForbidden(err) {
				// Taken to exist, so that no backendRef is said to be missing for want of rights.
				set.Unseen = append(set.Unseen, "Service "+key.String()+" (taken to exist)")
				err = nil
			}
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("get Service %s: %w", key, err)
			}
			if set.Services == nil {
				set.Services = map[types.NamespacedName]bool{}
			}
			set.Services[key] = err == nil
		}
		maps.Copy(grantNS, desired.RouteBackendNamespaces(r))
	}
	for _, ns := range slices.Sorted(maps.Keys(grantNS)) {
		l := &gwv1beta1.ReferenceGrantList{}
		if err := listVisible(ctx, c, set, "ReferenceGrants in "+ns, l, client.InNamespace(ns)); err != nil {
			return err
		}
		for i := range l.Items {
			set.ReferenceGrants = append(set.ReferenceGrants, &l.Items[i])
		}
	}
	return nil
}

// refersToGateway reports whether a parentRef of a route in namespace ns names gw.
func refersToGateway(pr gwv1.ParentReference, ns string, gw *gwv1.Gateway) bool {
	if pr.Group != nil && *pr.Group != gwv1.GroupName || pr.Kind != nil && *pr.Kind != "Gateway" {
		return false
	}
	if pr.Namespace != nil {
		ns = string(*pr.Namespace)
	}
	return ns == gw.Namespace && string(pr.Name) == gw.Name
}
