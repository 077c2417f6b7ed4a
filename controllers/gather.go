package controllers

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// gathered is a Gateway's desired.Input plus what the apply step needs: the objects its earlier
// renders produced.
type gathered struct {
	in    *desired.Input
	owned []*unstructured.Unstructured
	// class says whether the Gateway's class makes the Gateway Gantry's; only classOurs
	// gathers the rest.
	class classState
	// className is the class the Gateway names.
	className string
	// revision is the blueprint revision rendered from, and latest the blueprint's current
	// one: they differ while a staged rollout has not reached the Gateway. Then configs are the
	// class-wide GatewayClassConfigs of that revision, in place of today's.
	revision, latest string
	configs          []v1alpha1.ClassConfig
	// kindMissing is set when the render asked for a kind the API server does not serve:
	// its CRD may come, and the reconciler looks again (see kindRecheck).
	kindMissing atomic.Bool
}

// gather reads everything the Gateway's desired state depends on from the cache. A class that
// is missing, being deleted or another controller's ends the gathering (g.class says which,
// the reconciler decides); a missing blueprint is a nil field, and desired.Gateway says what
// that means.
func (r *GatewayReconciler) gather(ctx context.Context, gw *gwv1.Gateway) (*gathered, error) {
	key := types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}
	g := &gathered{in: &desired.Input{ControllerNamespace: r.ControllerNamespace, Gateway: gw, Limits: r.RenderLimits, Outputs: r.outputs}}
	g.in.IsNamespaced = func(gvk schema.GroupVersionKind) (bool, error) {
		namespaced, err := r.isNamespaced(gvk)
		if err != nil {
			g.kindMissing.Store(true)
		}
		return namespaced, err
	}
	owned, err := r.tracker.owned(ctx, r.proof(ctx, key, gw.UID))
	if err != nil {
		return nil, err
	}
	g.owned = owned

	g.className = string(gw.Spec.GatewayClassName)
	class := &gwv1.GatewayClass{}
	if err := r.Client.Get(ctx, client.ObjectKey{Name: g.className}, class); err != nil {
		if apierrors.IsNotFound(err) {
			g.class = classMissing
			return g, nil
		}
		return nil, err
	}
	switch {
	case class.Spec.ControllerName != v1alpha1.ControllerName:
		g.class = classOther
		return g, nil
	case !class.DeletionTimestamp.IsZero():
		g.class = classDeleting
		return g, nil
	}
	g.class, g.in.Class = classOurs, class
	if name, err := desired.BlueprintName(class); err == nil {
		g.in.Blueprint, g.in.Compiled = r.blueprints.get(ctx, r.Client, name)
		if err := r.atRolloutRevision(ctx, gw, g); err != nil {
			return nil, err
		}
	}

	policies, err := r.policiesFor(ctx, gw, nil)
	if err != nil {
		return nil, err
	}
	g.in.GatewayClassConfigs, g.in.GatewayConfigs = policies.gccs, policies.gcs
	if g.revision != g.latest {
		g.in.GatewayClassConfigs = r.classConfigsAt(g.in.GatewayClassConfigs, g.configs, g.className)
	}

	if err := gatherListenerSets(ctx, r.Client, gw, g.in, r.listenerSets); err != nil {
		return nil, err
	}
	routes, err := gatewayRoutes(ctx, r.Client, key, g.in.ListenerSets)
	if err != nil {
		return nil, err
	}
	g.in.Routes = append(g.in.Routes, routes...)
	if g.in.OtherRoutes, err = gatewayOtherRoutes(ctx, r.Client, r.routeKinds, key, g.in.ListenerSets); err != nil {
		return nil, err
	}
	bp := g.in.Compiled
	for _, route := range desired.AllRoutes(routes, g.in.OtherRoutes) {
		kind := desired.RouteKindOf(route)
		if bp == nil || !bp.HasRouteTemplatesFor(kind) {
			continue
		}
		// The route chain: GatewayConfigs for the route's namespace and for the route.
		more, err := r.policiesFor(ctx, gw, &desired.RouteKey{Kind: kind, NamespacedName: client.ObjectKeyFromObject(route)})
		if err != nil {
			return nil, err
		}
		g.in.GatewayConfigs = appendNew(g.in.GatewayConfigs, more.gcs)
	}
	if ref := desired.ParametersRef(gw); ref != nil && string(ref.Group) == v1alpha1.GroupName && ref.Kind == "GatewayConfig" {
		p := &v1alpha1.GatewayConfig{}
		switch err := r.Client.Get(ctx, client.ObjectKey{Namespace: gw.Namespace, Name: ref.Name}, p); {
		case err == nil:
			g.in.Parameters = p
		case !apierrors.IsNotFound(err):
			return nil, err
		}
	}
	if err := gatherRefs(ctx, r.Client, gw, g.in); err != nil {
		return nil, err
	}
	// Route templates see .Backends, and .Routes has each backendRef's verdict.
	if bp != nil && (bp.HasRouteTemplates() || bp.ReadsRoutes()) {
		if err := r.gatherBackends(ctx, g.in); err != nil {
			return nil, err
		}
	}
	if err := gatherNamespaceLabels(ctx, r.Client, gw, g.in); err != nil {
		return nil, err
	}

	g.in.Live = map[string][]map[string]any{}
	for _, o := range owned {
		g.in.AddLive(o.GetLabels(), o.GetNamespace(), o.Object)
	}
	return g, nil
}

type policySet struct {
	gccs []*v1alpha1.GatewayClassConfig
	gcs  []*v1alpha1.GatewayConfig
}

// policiesFor lists, through the targetRef index, the policies that can apply to a Gateway
// (route nil) or to a route's templates: precedence.Applies decides, this only narrows.
func (r *GatewayReconciler) policiesFor(ctx context.Context, gw *gwv1.Gateway, route *desired.RouteKey) (policySet, error) {
	var s policySet
	listGCC := func(ns, target string) error {
		l := &v1alpha1.GatewayClassConfigList{}
		if err := r.Client.List(ctx, l, client.InNamespace(ns), client.MatchingFields{indexTarget: target}); err != nil {
			return fmt.Errorf("list GatewayClassConfigs: %w", err)
		}
		for i := range l.Items {
			s.gccs = append(s.gccs, &l.Items[i])
		}
		return nil
	}
	listGC := func(ns, target string) error {
		l := &v1alpha1.GatewayConfigList{}
		if err := r.Client.List(ctx, l, client.InNamespace(ns), client.MatchingFields{indexTarget: target}); err != nil {
			return fmt.Errorf("list GatewayConfigs: %w", err)
		}
		for i := range l.Items {
			s.gcs = append(s.gcs, &l.Items[i])
		}
		return nil
	}
	if route != nil {
		if route.Namespace != gw.Namespace {
			if err := listGC(route.Namespace, targetKey("Namespace", route.Namespace)); err != nil {
				return s, err
			}
		}
		return s, listGC(route.Namespace, targetKey(route.Kind, route.Name))
	}
	class := targetKey("GatewayClass", string(gw.Spec.GatewayClassName))
	for _, q := range []struct {
		gcc    bool
		ns, to string
	}{
		{true, r.ControllerNamespace, class},
		{true, gw.Namespace, targetKey("Namespace", gw.Namespace)},
		{false, gw.Namespace, targetKey("Namespace", gw.Namespace)},
		{false, gw.Namespace, targetKey("Gateway", gw.Name)},
	} {
		var err error
		if q.gcc {
			err = listGCC(q.ns, q.to)
		} else {
			err = listGC(q.ns, q.to)
		}
		if err != nil {
			return s, err
		}
	}
	if gw.Namespace != r.ControllerNamespace {
		if err := listGCC(gw.Namespace, class); err != nil {
			return s, err
		}
	}
	return s, nil
}

func appendNew(dst, more []*v1alpha1.GatewayConfig) []*v1alpha1.GatewayConfig {
	for _, m := range more {
		dup := false
		for _, d := range dst {
			dup = dup || d.Namespace == m.Namespace && d.Name == m.Name
		}
		if !dup {
			dst = append(dst, m)
		}
	}
	return dst
}

func needsNamespaceLabels(gw *gwv1.Gateway) bool {
	for _, l := range gw.Spec.Listeners {
		if ar := l.AllowedRoutes; ar != nil && ar.Namespaces != nil && ar.Namespaces.From != nil && *ar.Namespaces.From == gwv1.NamespacesFromSelector {
			return true
		}
	}
	return false
}

// gatherListenerSets reads the ListenerSets that name gw as their parent, none when the API
// server does not serve them (served false).
func gatherListenerSets(ctx context.Context, c client.Reader, gw *gwv1.Gateway, in *desired.Input, served bool) error {
	in.ListenerSets = nil
	if !served {
		return nil
	}
	l := &gwv1.ListenerSetList{}
	if err := c.List(ctx, l, client.MatchingFields{indexGateway: client.ObjectKeyFromObject(gw).String()}); err != nil {
		return fmt.Errorf("list ListenerSets of Gateway %s/%s: %w", gw.Namespace, gw.Name, err)
	}
	in.ListenerSets = nil
	for i := range l.Items {
		in.ListenerSets = append(in.ListenerSets, &l.Items[i])
	}
	return nil
}

// gatewayRoutes lists, once each, the HTTPRoutes that name the Gateway or one of its
// ListenerSets as a parent.
func gatewayRoutes(ctx context.Context, c client.Reader, key types.NamespacedName, sets []*gwv1.ListenerSet) ([]*gwv1.HTTPRoute, error) {
	objs, err := gatewayOtherRoutes(ctx, c, []routeKind{httpRoutes}, key, sets)
	if err != nil {
		return nil, err
	}
	out := make([]*gwv1.HTTPRoute, len(objs))
	for i, o := range objs {
		out[i] = o.(*gwv1.HTTPRoute)
	}
	return out, nil
}

// gatherNamespaceLabels reads the labels of every namespace when a listener or the Gateway's
// allowedListeners selects namespaces by label.
func gatherNamespaceLabels(ctx context.Context, c client.Reader, gw *gwv1.Gateway, in *desired.Input) error {
	classSelects := in.Blueprint != nil && in.Blueprint.Spec.Namespaces != nil // spec.namespaces
	if !classSelects && !needsNamespaceLabels(gw) && !desired.ListenerSetsNeedNamespaceLabels(gw, in.ListenerSets) {
		return nil
	}
	in.NamespaceLabels = map[string]map[string]string{}
	nss := &corev1.NamespaceList{}
	if err := c.List(ctx, nss); err != nil {
		return err
	}
	for _, ns := range nss.Items {
		in.NamespaceLabels[ns.Name] = ns.Labels
	}
	return nil
}

// gatherRefs reads the TLS Secrets the listeners of the Gateway and of its ListenerSets name,
// and the ReferenceGrants of the other namespaces they name. The cache holds only Secrets of
// type kubernetes.io/tls (NewManager), so a Secret of another type reads as missing.
func gatherRefs(ctx context.Context, c client.Reader, gw *gwv1.Gateway, in *desired.Input) error {
	grantNS := map[string]bool{}
	type ref struct {
		from string
		key  types.NamespacedName
	}
	var refs []ref
	for _, key := range desired.CertificateRefKeys(gw) {
		refs = append(refs, ref{gw.Namespace, key})
	}
	for _, ls := range in.ListenerSets {
		for _, key := range desired.ListenerSetCertificateRefKeys(ls) {
			refs = append(refs, ref{ls.Namespace, key})
		}
	}
	for _, rf := range refs {
		key := rf.key
		if key.Namespace != rf.from {
			grantNS[key.Namespace] = true
		}
		if in.Secrets[key] != nil {
			continue
		}
		s := &corev1.Secret{}
		if err := c.Get(ctx, key, s); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("get Secret %s: %w", key, err)
		}
		if in.Secrets == nil {
			in.Secrets = map[types.NamespacedName]*corev1.Secret{}
		}
		in.Secrets[key] = s
	}
	grants, err := referenceGrants(ctx, c, grantNS)
	in.ReferenceGrants = grants
	return err
}

// gatherBackends reads, for route templates' .Backends, which of the Services the routes'
// backendRefs name exist (from the metadata-only cache the HTTPRoute reconciler reads them
// from) and the ReferenceGrants of the namespaces they refer into.
func (r *GatewayReconciler) gatherBackends(ctx context.Context, in *desired.Input) error {
	grantNS := map[string]bool{}
	for _, route := range desired.AllRoutes(in.Routes, in.OtherRoutes) {
		for _, key := range desired.RouteBackendServiceKeys(route) {
			if _, seen := in.BackendServices[key]; seen {
				continue
			}
			m := &metav1.PartialObjectMetadata{}
			m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
			err := r.Client.Get(ctx, key, m)
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("get Service %s: %w", key, err)
			}
			if in.BackendServices == nil {
				in.BackendServices = map[types.NamespacedName]bool{}
			}
			in.BackendServices[key] = err == nil
		}
		maps.Copy(grantNS, desired.RouteBackendNamespaces(route))
	}
	for _, g := range in.ReferenceGrants {
		delete(grantNS, g.Namespace) // listed already, for the listeners
	}
	grants, err := referenceGrants(ctx, r.Client, grantNS)
	in.ReferenceGrants = append(in.ReferenceGrants, grants...)
	return err
}

// referenceGrants lists the ReferenceGrants of some namespaces.
func referenceGrants(ctx context.Context, c client.Reader, namespaces map[string]bool) ([]*gwv1beta1.ReferenceGrant, error) {
	var out []*gwv1beta1.ReferenceGrant
	for _, ns := range slices.Sorted(maps.Keys(namespaces)) {
		l := &gwv1beta1.ReferenceGrantList{}
		if err := c.List(ctx, l, client.InNamespace(ns)); err != nil {
			return nil, fmt.Errorf("list ReferenceGrants in %s: %w", ns, err)
		}
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	}
	return out, nil
}

// atRolloutRevision puts the blueprint at the revision a staged rollout gives the Gateway in
// place of the current one.
func (r *GatewayReconciler) atRolloutRevision(ctx context.Context, gw *gwv1.Gateway, g *gathered) error {
	bp := g.in.Blueprint
	if bp == nil {
		return nil
	}
	latest, _, err := latestRevision(ctx, r.Client, r.ControllerNamespace, bp)
	if err != nil {
		return err
	}
	g.latest, g.revision = latest, latest
	if bp.Spec.Rollout == nil {
		return nil
	}
	var nsLabels map[string]string
	if needsNamespaces(bp.Spec.Rollout) {
		ns := &corev1.Namespace{}
		if err := r.Client.Get(ctx, client.ObjectKey{Name: gw.Namespace}, ns); client.IgnoreNotFound(err) != nil {
			return err
		}
		nsLabels = ns.Labels
	}
	rev := rolloutRevision(bp, g.latest, gw, nsLabels)
	if rev == g.latest {
		return nil
	}
	at, compiled, configs, err := r.blueprints.atRevision(ctx, r.Client, bp, rev)
	if err != nil {
		// Gone (deleted by hand, or past the history): the latest is all there is.
		log.FromContext(ctx).Info("staged rollout: rendering from the latest revision", "revision", rev, "reason", err.Error())
		return nil
	}
	g.in.Blueprint, g.in.Compiled, g.revision, g.configs = at, compiled, rev, configs
	return nil
}

// classConfigsAt is gccs with the class-wide ones (the controller namespace's, targeting the
// class) as the revision had them: a Gateway the rollout has not reached keeps the class's
// values of its revision, not today's.
func (r *GatewayReconciler) classConfigsAt(gccs []*v1alpha1.GatewayClassConfig, at []v1alpha1.ClassConfig, class string) []*v1alpha1.GatewayClassConfig {
	out := slices.DeleteFunc(slices.Clone(gccs), func(p *v1alpha1.GatewayClassConfig) bool {
		return p.Namespace == r.ControllerNamespace && p.Spec.TargetRef.Kind == "GatewayClass"
	})
	for _, c := range at {
		if c.Namespace == r.ControllerNamespace && c.Spec.TargetRef.Kind == "GatewayClass" && string(c.Spec.TargetRef.Name) == class {
			out = append(out, &v1alpha1.GatewayClassConfig{
				TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "GatewayClassConfig"},
				ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name, CreationTimestamp: c.Created},
				Spec:       *c.Spec.DeepCopy(),
			})
		}
	}
	return out
}
