package controllers

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/precedence"
	"gantry.dev/gantry/render"
)

// Options configure the controllers.
type Options struct {
	// ControllerNamespace holds the global GatewayClassConfigs.
	ControllerNamespace string
	// PolicyStatusInterval spaces out status writes of one policy (default 1s).
	PolicyStatusInterval time.Duration
	// GatewayConcurrency is how many Gateways reconcile at once (default 4).
	GatewayConcurrency int
	// RenderLimits bound each render; zero fields take render.DefaultLimits.
	RenderLimits render.Limits
	// RenderMemory bounds, in bytes, the memory of render outputs by input (0:
	// render.DefaultOutputMemory; negative: off, every reconcile renders).
	RenderMemory int
	// Webhooks registers the admission webhooks (webhooks.go) with the manager's webhook
	// server (ManagerOptions.WebhookPort).
	Webhooks bool
}

// Setup registers Gantry's indexes and controllers with a manager.
func Setup(ctx context.Context, mgr manager.Manager, opts Options) error {
	if opts.ControllerNamespace == "" {
		opts.ControllerNamespace = desired.DefaultControllerNamespace
	}
	if opts.PolicyStatusInterval == 0 {
		opts.PolicyStatusInterval = time.Second
	}
	if opts.GatewayConcurrency == 0 {
		opts.GatewayConcurrency = 4
	}
	if opts.RenderMemory == 0 {
		opts.RenderMemory = render.DefaultOutputMemory
	}
	// ListenerSets came with Gateway API v1.5's standard channel; on a cluster without their
	// CRD, Gantry runs without them (installing the CRD later takes a controller restart).
	listenerSets := served(mgr.GetRESTMapper(), gwv1.SchemeGroupVersion.WithKind("ListenerSet"))
	if !listenerSets {
		log.FromContext(ctx).Info("ListenerSet is not served by the API server (its CRD is not installed): Gateways get no ListenerSets until the controller restarts after it is")
	}
	if err := setupIndexes(ctx, mgr.GetFieldIndexer(), listenerSets); err != nil {
		return fmt.Errorf("field indexes: %w", err)
	}
	// GRPCRoute, TLSRoute, TCPRoute and UDPRoute, each when its CRD is installed.
	kinds := servedRouteKinds(mgr.GetRESTMapper())
	if len(kinds) < len(otherRouteKinds) {
		log.FromContext(ctx).Info("some route kinds are not served by the API server (their CRDs are not installed): their routes attach to no Gateway until the controller restarts after they are", "served", kindNamesOf(kinds))
	}
	if err := indexRouteKinds(ctx, mgr.GetFieldIndexer(), kinds); err != nil {
		return fmt.Errorf("field indexes: %w", err)
	}
	// Rendered objects live in a cache of their own that holds only objects with Gantry's
	// template label, compacted (compact.go).
	rendered, err := cache.New(mgr.GetConfig(), cache.Options{
		HTTPClient: mgr.GetHTTPClient(), Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(),
		DefaultLabelSelector: renderedSelector(),
		DefaultTransform:     compactRendered,
	})
	if err != nil {
		return err
	}
	if err := mgr.Add(rendered); err != nil {
		return err
	}
	bps := &blueprintCache{}
	b := &board{}
	policyEvents := make(chan event.GenericEvent, 1024)
	drift := make(chan event.GenericEvent, 1024)
	routes := &routeBoard{routes: map[string]chan<- event.GenericEvent{}}
	routeEvents := map[string]chan event.GenericEvent{}
	for _, k := range append([]routeKind{httpRoutes}, kinds...) {
		ch := make(chan event.GenericEvent, 1024)
		routes.routes[k.kind], routeEvents[k.kind] = ch, ch
	}
	gr := &GatewayReconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), ControllerNamespace: opts.ControllerNamespace,
		RenderLimits: opts.RenderLimits, outputs: render.NewOutputMemory(opts.RenderMemory),
		Recorder: mgr.GetEventRecorder("gantry"), mapper: mgr.GetRESTMapper(),
		routes:     routes,
		tracker:    &tracker{cache: rendered, mapper: mgr.GetRESTMapper(), reader: mgr.GetClient(), routeKinds: kinds, watched: map[schema.GroupVersionKind]bool{}, drift: drift},
		blueprints: bps, board: b, policies: policyEvents,
	}
	gr.listenerSets = listenerSets
	gr.routeKinds = kinds
	if opts.Webhooks {
		if err := setupWebhooks(mgr, gr); err != nil {
			return fmt.Errorf("admission webhooks: %w", err)
		}
	}
	m := &mapper{c: mgr.GetClient(), controllerNamespace: opts.ControllerNamespace, listenerSets: listenerSets, routeKinds: kinds}
	gatewayBuilder := ctrl.NewControllerManagedBy(mgr).
		Named("gateway").
		For(&gwv1.Gateway{}, builder.WithPredicates(specOrResync)).
		Watches(&gwv1.GatewayClass{}, handler.EnqueueRequestsFromMapFunc(m.classGateways), builder.WithPredicates(specOrResync)).
		Watches(&v1alpha1.GatewayClassBlueprint{}, handler.EnqueueRequestsFromMapFunc(m.blueprintGateways), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// A staged rollout's step: only the Gateways it moves.
		Watches(&v1alpha1.GatewayClassBlueprint{}, handler.EnqueueRequestsFromMapFunc(m.rolloutGateways), builder.WithPredicates(rolloutChanged)).
		Watches(&v1alpha1.GatewayClassConfig{}, handler.EnqueueRequestsFromMapFunc(m.policyGateways), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&v1alpha1.GatewayConfig{}, handler.EnqueueRequestsFromMapFunc(m.policyGateways), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&gwv1.HTTPRoute{}, handler.EnqueueRequestsFromMapFunc(m.anyRouteGateways), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// A namespace's labels decide whether its routes attach to listeners that select namespaces.
		Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(m.namespaceGateways), builder.WithPredicates(predicate.LabelChangedPredicate{})).
		// Listener certificates, and the grants that let a listener use another namespace's.
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(m.secretGateways)).
		Watches(&gwv1beta1.ReferenceGrant{}, handler.EnqueueRequestsFromMapFunc(m.grantGateways), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// Routes' backends, which route templates see in .Backends: a Service appearing or
		// going (its metadata is enough).
		Watches(&corev1.Service{}, handler.EnqueueRequestsFromMapFunc(m.serviceGateways), builder.OnlyMetadata, builder.WithPredicates(createOrDelete))
	// Changes to rendered objects that arrived while Gantry was writing them (tracker.writing).
	gatewayBuilder = gatewayBuilder.WatchesRawSource(source.Channel(drift, handler.EnqueueRequestsFromMapFunc(gr.tracker.gatewayOf)))
	for _, k := range kinds {
		gatewayBuilder = gatewayBuilder.Watches(k.object(), handler.EnqueueRequestsFromMapFunc(m.anyRouteGateways), builder.WithPredicates(predicate.GenerationChangedPredicate{}))
	}
	if listenerSets {
		// A ListenerSet's listeners are its parent Gateway's; its status is the Gateway's to write.
		gatewayBuilder = gatewayBuilder.Watches(&gwv1.ListenerSet{}, handler.EnqueueRequestsFromMapFunc(listenerSetGateway), builder.WithPredicates(predicate.GenerationChangedPredicate{}))
	}
	gatewayCtrl, err := gatewayBuilder.WithOptions(controllerOptions(opts.GatewayConcurrency)).Build(gr)
	if err != nil {
		return err
	}
	gr.tracker.ctrl = gatewayCtrl
	// Kinds rendered before this process started: watch them before any Gateway reconciles.
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		return watchRecordedKinds(ctx, mgr.GetClient(), gr.tracker)
	})); err != nil {
		return err
	}

	if err := (&revisionReconciler{Client: mgr.GetClient(), controllerNamespace: opts.ControllerNamespace}).setup(mgr, m); err != nil {
		return err
	}
	if err := (&rolloutReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("gantry"), controllerNamespace: opts.ControllerNamespace}).setup(mgr, m); err != nil {
		return err
	}
	cr := &GatewayClassReconciler{Client: mgr.GetClient(), blueprints: bps, listenerSets: listenerSets, routeKinds: kinds}
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("gatewayclass").
		For(&gwv1.GatewayClass{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return o.(*gwv1.GatewayClass).Spec.ControllerName == v1alpha1.ControllerName
		}))).
		Watches(&v1alpha1.GatewayClassBlueprint{}, handler.EnqueueRequestsFromMapFunc(m.blueprintClasses), builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, rolloutCounted))).
		Watches(&v1alpha1.GatewayClassConfig{}, handler.EnqueueRequestsFromMapFunc(m.policyClass), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// Which Gateways name a class decides its gateway-exists finalizer; on an update the
		// map runs for the old and the new object, so both classes are looked at.
		Watches(&gwv1.Gateway{}, handler.EnqueueRequestsFromMapFunc(gatewayClass), builder.WithPredicates(classNameChanged)).
		Complete(cr); err != nil {
		return err
	}

	routeBuilder := ctrl.NewControllerManagedBy(mgr).
		Named("httproute").
		For(&gwv1.HTTPRoute{}, builder.WithPredicates(specOrResync)).
		Watches(&gwv1.Gateway{}, handler.EnqueueRequestsFromMapFunc(m.gatewayRoutes), builder.WithPredicates(specOrResync)).
		Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(m.namespaceRoutes), builder.WithPredicates(predicate.LabelChangedPredicate{})).
		// What the Gateway reconciler decided about a route's objects.
		WatchesRawSource(source.Channel(routeEvents[httpRoutes.kind], &handler.EnqueueRequestForObject{})).
		// Backends: whether a Service exists (its metadata is enough) and may be referred to.
		Watches(&corev1.Service{}, handler.EnqueueRequestsFromMapFunc(m.serviceRoutes), builder.OnlyMetadata, builder.WithPredicates(createOrDelete)).
		Watches(&gwv1beta1.ReferenceGrant{}, handler.EnqueueRequestsFromMapFunc(m.grantRoutes), builder.WithPredicates(predicate.GenerationChangedPredicate{}))
	if listenerSets {
		// Every change, status too: the Gateway reconciler writes there whether the ListenerSet
		// and each of its listeners is accepted, which a route's parent status through it follows.
		routeBuilder = routeBuilder.Watches(&gwv1.ListenerSet{}, handler.EnqueueRequestsFromMapFunc(m.listenerSetRoutes))
	}
	parents := &routeParents{Client: mgr.GetClient(), listenerSets: listenerSets}
	if err := routeBuilder.Complete(&RouteReconciler{Client: mgr.GetClient(), kind: httpRoutes, parents: parents, board: routes}); err != nil {
		return err
	}
	for _, k := range kinds {
		b := ctrl.NewControllerManagedBy(mgr).
			Named(strings.ToLower(k.kind)).
			For(k.object(), builder.WithPredicates(specOrResync)).
			Watches(&gwv1.Gateway{}, handler.EnqueueRequestsFromMapFunc(m.gatewayRoutesOf(k)), builder.WithPredicates(specOrResync)).
			Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(m.namespaceRoutesOf(k)), builder.WithPredicates(predicate.LabelChangedPredicate{})).
			Watches(&corev1.Service{}, handler.EnqueueRequestsFromMapFunc(m.serviceRoutesOf(k)), builder.OnlyMetadata, builder.WithPredicates(createOrDelete)).
			Watches(&gwv1beta1.ReferenceGrant{}, handler.EnqueueRequestsFromMapFunc(m.grantRoutesOf(k)), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
			// What the Gateway reconciler decided about a route's objects.
			WatchesRawSource(source.Channel(routeEvents[k.kind], &handler.EnqueueRequestForObject{}))
		if listenerSets {
			b = b.Watches(&gwv1.ListenerSet{}, handler.EnqueueRequestsFromMapFunc(m.listenerSetRoutesOf(k)))
		}
		if err := b.Complete(&RouteReconciler{Client: mgr.GetClient(), kind: k, parents: parents, board: routes}); err != nil {
			return err
		}
	}

	// Policy status: both kinds share the channel of policies the Gateway reconciler gathered;
	// each controller takes its own kind.
	gccEvents, gcEvents := make(chan event.GenericEvent, 1024), make(chan event.GenericEvent, 1024)
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		for {
			select {
			case <-ctx.Done():
				return nil
			case e := <-policyEvents:
				to := gcEvents
				if _, ok := e.Object.(*v1alpha1.GatewayClassConfig); ok {
					to = gccEvents
				}
				// The policy controllers stop reading at shutdown: never wait past it.
				select {
				case to <- e:
				case <-ctx.Done():
					return nil
				}
			}
		}
	})); err != nil {
		return err
	}
	for _, p := range []struct {
		kind   string
		obj    client.Object
		events chan event.GenericEvent
	}{
		{precedence.KindGatewayClassConfig, &v1alpha1.GatewayClassConfig{}, gccEvents},
		{precedence.KindGatewayConfig, &v1alpha1.GatewayConfig{}, gcEvents},
	} {
		pr := &PolicyReconciler{Client: mgr.GetClient(), Kind: p.kind, MinInterval: opts.PolicyStatusInterval, board: b, reaches: m.policyGateways, routeKinds: kinds, controllerNamespace: opts.ControllerNamespace}
		bld := ctrl.NewControllerManagedBy(mgr).
			Named(p.kind).
			For(p.obj, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
			WatchesRawSource(source.Channel(p.events, &handler.EnqueueRequestForObject{})).
			Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(m.targetPolicies(p.kind, "Namespace")))
		if p.kind == precedence.KindGatewayClassConfig {
			bld = bld.Watches(&gwv1.GatewayClass{}, handler.EnqueueRequestsFromMapFunc(m.targetPolicies(p.kind, "GatewayClass")))
		} else {
			bld = bld.Watches(&gwv1.Gateway{}, handler.EnqueueRequestsFromMapFunc(m.targetPolicies(p.kind, "Gateway")))
			for _, k := range append([]routeKind{httpRoutes}, kinds...) {
				bld = bld.Watches(k.object(), handler.EnqueueRequestsFromMapFunc(m.targetPolicies(p.kind, k.kind)))
			}
		}
		if err := bld.Complete(pr); err != nil {
			return err
		}
	}
	return informEarly(ctx, mgr.GetCache())
}

// informEarly creates the informers of the kinds the controllers watch but no field index
// names, before the manager starts. The manager starts its cache's informers and waits for
// them, and only then starts the controllers, whose sources start informers for any kind still
// missing and wait again. Each wait can cost a second: a watch of a custom resource that the API
// server has not served since it started is answered 429 with Retry-After: 1 while the server
// builds its watch cache, and client-go waits that second. Two phases paid it twice on a first
// start (2.4 s before the first reconcile at N=100, against 1.3 s in one phase; the scale
// harness, docs/performance.md). TestInformersStartTogether fails when a controller watches a
// kind that is missing here.
func informEarly(ctx context.Context, c cache.Cache) error {
	services := &metav1.PartialObjectMetadata{} // builder.OnlyMetadata's informer
	services.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
	for _, o := range []client.Object{&corev1.Namespace{}, &corev1.Secret{}, &gwv1beta1.ReferenceGrant{}, services,
		&v1alpha1.GatewayClassBlueprint{}, &v1alpha1.GatewayClassBlueprintRevision{}} {
		if _, err := c.GetInformer(ctx, o, cache.BlockUntilSynced(false)); err != nil {
			return fmt.Errorf("informer of %T: %w", o, err)
		}
	}
	return nil
}

func watchRecordedKinds(ctx context.Context, c client.Client, t *tracker) error {
	l := &v1alpha1.GatewayClassBlueprintList{}
	if err := c.List(ctx, l); err != nil {
		return err
	}
	var gvks []schema.GroupVersionKind
	for _, bp := range l.Items {
		for _, k := range bp.Status.RenderedKinds {
			gvks = append(gvks, schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind})
		}
	}
	return t.watch(ctx, gvks...)
}

// specOrResync passes an update when the object's spec or metadata changed, or when it is a
// periodic resync (same resourceVersion), but not for status writes — most of them ours.
var specOrResync = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	o, n := e.ObjectOld, e.ObjectNew
	return o.GetResourceVersion() == n.GetResourceVersion() ||
		o.GetGeneration() != n.GetGeneration() ||
		!o.GetDeletionTimestamp().Equal(n.GetDeletionTimestamp()) ||
		!maps.Equal(o.GetLabels(), n.GetLabels()) ||
		!maps.Equal(o.GetAnnotations(), n.GetAnnotations()) ||
		!slices.Equal(o.GetFinalizers(), n.GetFinalizers())
}}

// classNameChanged passes Gateway creates and deletes, and updates that change the class.
var classNameChanged = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	return e.ObjectOld.(*gwv1.Gateway).Spec.GatewayClassName != e.ObjectNew.(*gwv1.Gateway).Spec.GatewayClassName
}}

// gatewayClass maps a Gateway to the class it names.
func gatewayClass(_ context.Context, o client.Object) []reconcile.Request {
	return requests(types.NamespacedName{Name: string(o.(*gwv1.Gateway).Spec.GatewayClassName)})
}

// mapper answers "which objects does this change affect" through the field indexes.
type mapper struct {
	c                   client.Client
	controllerNamespace string
	// routeKinds are the route kinds beside HTTPRoute the API server serves.
	routeKinds []routeKind
	// listenerSets: the API server serves ListenerSets.
	listenerSets bool
}

func requests(keys ...types.NamespacedName) []reconcile.Request {
	out := make([]reconcile.Request, len(keys))
	for i, k := range keys {
		out[i] = reconcile.Request{NamespacedName: k}
	}
	return out
}

func (m *mapper) gateways(ctx context.Context, opts ...client.ListOption) []reconcile.Request {
	l := &gwv1.GatewayList{}
	// Only names are read: no deep copy of every Gateway of a class from the cache. A policy
	// reconcile maps its targets this way; at 4,400 Gateways of one class the copies were half
	// of the controller's CPU (a profile of the scale harness's N=10,000 run).
	if err := m.c.List(ctx, l, append(opts, client.UnsafeDisableDeepCopy)...); err != nil {
		return nil
	}
	out := make([]reconcile.Request, len(l.Items))
	for i, gw := range l.Items {
		out[i] = reconcile.Request{NamespacedName: types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}}
	}
	return out
}

func (m *mapper) classGateways(ctx context.Context, o client.Object) []reconcile.Request {
	return m.gateways(ctx, client.MatchingFields{indexClass: o.GetName()})
}

func (m *mapper) blueprintClasses(ctx context.Context, o client.Object) []reconcile.Request {
	l := &gwv1.GatewayClassList{}
	if err := m.c.List(ctx, l, client.MatchingFields{indexBlueprint: o.GetName()}); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, c := range l.Items {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: c.Name}})
	}
	return out
}

func (m *mapper) blueprintGateways(ctx context.Context, o client.Object) []reconcile.Request {
	var out []reconcile.Request
	for _, c := range m.blueprintClasses(ctx, o) {
		out = append(out, m.gateways(ctx, client.MatchingFields{indexClass: c.Name})...)
	}
	return out
}

// policyGateways maps a policy to the Gateways it can apply to (its old and new target both
// come through here on an update).
func (m *mapper) policyGateways(ctx context.Context, o client.Object) []reconcile.Request {
	out := m.targetGateways(ctx, o)
	if _, ok := o.(*v1alpha1.GatewayConfig); ok {
		// And the Gateways that name it in spec.infrastructure.parametersRef.
		out = append(out, m.gateways(ctx, client.InNamespace(o.GetNamespace()), client.MatchingFields{indexParameters: o.GetName()})...)
	}
	return out
}

func (m *mapper) targetGateways(ctx context.Context, o client.Object) []reconcile.Request {
	ref := o.(v1alpha1.Policy).GetTargetRef()
	ns := o.GetNamespace()
	switch ref.Kind {
	case "GatewayClass":
		if ns == m.controllerNamespace {
			return m.gateways(ctx, client.MatchingFields{indexClass: string(ref.Name)})
		}
		return m.gateways(ctx, client.InNamespace(ns), client.MatchingFields{indexClass: string(ref.Name)})
	case "Namespace":
		if string(ref.Name) != ns {
			return nil
		}
		out := m.gateways(ctx, client.InNamespace(ns))
		// The route chain: Gateways elsewhere whose routes in this namespace render.
		m.eachRoute(ctx, func(r client.Object) { out = append(out, parentRequests(r)...) }, client.InNamespace(ns))
		return out
	case "Gateway":
		return requests(types.NamespacedName{Namespace: ns, Name: string(ref.Name)})
	}
	if route := servedRoute(m.routeKinds, string(ref.Kind)); route != nil {
		if err := m.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: string(ref.Name)}, route); err != nil {
			return nil
		}
		return parentRequests(route)
	}
	return nil
}

func parentRequests(r client.Object) []reconcile.Request {
	var out []reconcile.Request
	for _, k := range parentKeys(r) {
		ns, name, _ := strings.Cut(k, "/")
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}})
	}
	return out
}

// listenerSetGateway maps a ListenerSet to its parent Gateway.
func listenerSetGateway(_ context.Context, o client.Object) []reconcile.Request {
	return requests(desired.ParentGateway(o.(*gwv1.ListenerSet)))
}

// listenerSetGateways maps to the parent Gateways of the ListenerSets the options select.
func (m *mapper) listenerSetGateways(ctx context.Context, opts ...client.ListOption) []reconcile.Request {
	l := &gwv1.ListenerSetList{}
	if !m.listenerSets {
		return nil
	}
	if err := m.c.List(ctx, l, append(opts, client.UnsafeDisableDeepCopy)...); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range l.Items {
		out = append(out, listenerSetGateway(ctx, &l.Items[i])...)
	}
	return out
}

// listenerSetRoutes maps a ListenerSet to the routes that name it as a parent.
func (m *mapper) listenerSetRoutes(ctx context.Context, o client.Object) []reconcile.Request {
	return m.routes(ctx, client.MatchingFields{indexListenerSetParent: client.ObjectKeyFromObject(o).String()})
}

func (m *mapper) gatewayRoutes(ctx context.Context, o client.Object) []reconcile.Request {
	l := &gwv1.HTTPRouteList{}
	if err := m.c.List(ctx, l, client.MatchingFields{indexParent: o.GetNamespace() + "/" + o.GetName()}); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, r := range l.Items {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: r.Namespace, Name: r.Name}})
	}
	return out
}

// namespaceRoutes maps a namespace to the HTTPRoutes in it.
func (m *mapper) namespaceRoutes(ctx context.Context, o client.Object) []reconcile.Request {
	l := &gwv1.HTTPRouteList{}
	if err := m.c.List(ctx, l, client.InNamespace(o.GetName())); err != nil {
		return nil
	}
	out := make([]reconcile.Request, len(l.Items))
	for i, r := range l.Items {
		out[i] = reconcile.Request{NamespacedName: types.NamespacedName{Namespace: r.Namespace, Name: r.Name}}
	}
	return out
}

// namespaceGateways maps a namespace to the parent Gateways of the routes in it.
func (m *mapper) namespaceGateways(ctx context.Context, o client.Object) []reconcile.Request {
	var out []reconcile.Request
	m.eachRoute(ctx, func(r client.Object) { out = append(out, m.anyRouteGateways(ctx, r)...) }, client.InNamespace(o.GetName()))
	// Its ListenerSets' Gateways too: one may select ListenerSets by namespace label, and a
	// ListenerSet's listeners routes by theirs.
	out = append(out, m.listenerSetGateways(ctx, client.InNamespace(o.GetName()))...)
	// And its own Gateways: their class's blueprint may serve some namespaces only.
	return append(out, m.gateways(ctx, client.InNamespace(o.GetName()))...)
}

// secretGateways maps a Secret to the Gateways whose listeners name it.
func (m *mapper) secretGateways(ctx context.Context, o client.Object) []reconcile.Request {
	key := o.GetNamespace() + "/" + o.GetName()
	return append(m.gateways(ctx, client.MatchingFields{indexCertificate: key}), m.listenerSetGateways(ctx, client.MatchingFields{indexCertificate: key})...)
}

// grantGateways maps a ReferenceGrant to the Gateways in the namespaces it grants to, and to
// the parent Gateways of the routes there (whose templates see .Backends, and .Routes each
// backendRef's verdict).
func (m *mapper) grantGateways(ctx context.Context, o client.Object) []reconcile.Request {
	out := slices.Concat(grantFrom(ctx, o, "Gateway", m.gateways), grantFrom(ctx, o, "ListenerSet", m.listenerSetGateways))
	for _, k := range append([]routeKind{httpRoutes}, m.routeKinds...) {
		out = append(out, grantFrom(ctx, o, gwv1.Kind(k.kind), func(ctx context.Context, opts ...client.ListOption) []reconcile.Request {
			return m.routeParents(ctx, []routeKind{k}, opts...)
		})...)
	}
	return out
}

// serviceGateways maps a Service to the parent Gateways of the routes whose backendRefs name it.
func (m *mapper) serviceGateways(ctx context.Context, o client.Object) []reconcile.Request {
	return m.routeParents(ctx, append([]routeKind{httpRoutes}, m.routeKinds...), client.MatchingFields{indexBackend: o.GetNamespace() + "/" + o.GetName()})
}

// routeParents lists the Gateways the routes of kinds listed with opts name as parents.
func (m *mapper) routeParents(ctx context.Context, kinds []routeKind, opts ...client.ListOption) []reconcile.Request {
	var out []reconcile.Request
	for _, k := range kinds {
		l := k.list()
		if err := m.c.List(ctx, l, opts...); err != nil {
			continue
		}
		for _, r := range k.items(l) {
			out = append(out, parentRequests(r)...)
		}
	}
	return out
}

// eachRoute calls f on every route, of every served kind, that opts select.
func (m *mapper) eachRoute(ctx context.Context, f func(client.Object), opts ...client.ListOption) {
	for _, k := range append([]routeKind{httpRoutes}, m.routeKinds...) {
		l := k.list()
		if err := m.c.List(ctx, l, opts...); err != nil {
			continue
		}
		for _, r := range k.items(l) {
			f(r)
		}
	}
}

// grantFrom lists, with list, the objects of kind in each namespace a ReferenceGrant grants to.
func grantFrom(ctx context.Context, o client.Object, kind gwv1.Kind, list func(context.Context, ...client.ListOption) []reconcile.Request) []reconcile.Request {
	var out []reconcile.Request
	for _, f := range o.(*gwv1beta1.ReferenceGrant).Spec.From {
		if f.Group == gwv1.GroupName && f.Kind == kind {
			out = append(out, list(ctx, client.InNamespace(string(f.Namespace)))...)
		}
	}
	return out
}

// serviceRoutes maps a Service to the HTTPRoutes whose backendRefs name it.
func (m *mapper) serviceRoutes(ctx context.Context, o client.Object) []reconcile.Request {
	return m.routes(ctx, client.MatchingFields{indexBackend: o.GetNamespace() + "/" + o.GetName()})
}

// grantRoutes maps a ReferenceGrant to the HTTPRoutes in the namespaces it grants to.
func (m *mapper) grantRoutes(ctx context.Context, o client.Object) []reconcile.Request {
	return grantFrom(ctx, o, "HTTPRoute", m.routes)
}

func (m *mapper) routes(ctx context.Context, opts ...client.ListOption) []reconcile.Request {
	l := &gwv1.HTTPRouteList{}
	if err := m.c.List(ctx, l, opts...); err != nil {
		return nil
	}
	out := make([]reconcile.Request, len(l.Items))
	for i, r := range l.Items {
		out[i] = reconcile.Request{NamespacedName: types.NamespacedName{Namespace: r.Namespace, Name: r.Name}}
	}
	return out
}

// createOrDelete passes only the appearance and disappearance of an object.
var createOrDelete = predicate.Funcs{UpdateFunc: func(event.UpdateEvent) bool { return false }}

func (m *mapper) policyClass(_ context.Context, o client.Object) []reconcile.Request {
	ref := o.(v1alpha1.Policy).GetTargetRef()
	if ref.Kind != "GatewayClass" {
		return nil
	}
	return requests(types.NamespacedName{Name: string(ref.Name)})
}

// targetPolicies maps a target object to the policies of a kind that target it.
func (m *mapper) targetPolicies(kind, targetKind string) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		opts := []client.ListOption{client.MatchingFields{indexTarget: targetKey(targetKind, o.GetName())}}
		switch targetKind {
		case "Namespace":
			opts = append(opts, client.InNamespace(o.GetName()))
		default: // a Gateway or a route
			opts = append(opts, client.InNamespace(o.GetNamespace()))
		}
		var keys []types.NamespacedName
		if kind == precedence.KindGatewayClassConfig {
			l := &v1alpha1.GatewayClassConfigList{}
			if err := m.c.List(ctx, l, opts...); err != nil {
				return nil
			}
			for _, p := range l.Items {
				keys = append(keys, types.NamespacedName{Namespace: p.Namespace, Name: p.Name})
			}
		} else {
			l := &v1alpha1.GatewayConfigList{}
			if err := m.c.List(ctx, l, opts...); err != nil {
				return nil
			}
			for _, p := range l.Items {
				keys = append(keys, types.NamespacedName{Namespace: p.Namespace, Name: p.Name})
			}
		}
		return requests(keys...)
	}
}

func controllerOptions(concurrency int) controller.Options {
	return controller.Options{MaxConcurrentReconciles: concurrency}
}

// served reports whether the API server serves a kind.
func served(mapper meta.RESTMapper, gvk schema.GroupVersionKind) bool {
	_, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	return err == nil
}
