package controllers

import (
	"context"
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// tracker knows the objects Gantry rendered. It has its own cache, restricted to objects with
// Gantry's template label, so that watching a kind such as Deployment does not cache every
// Deployment of the cluster. A kind is watched from the first time a blueprint renders it (the
// blueprint's status.renderedKinds remembers it across restarts); each event maps, through the
// owner annotation, to exactly the Gateway that rendered the object.
type tracker struct {
	cache  cache.Cache
	mapper meta.RESTMapper
	// reader reads routes, to map a route's object to its Gateway.
	reader client.Reader
	// routeKinds are the route kinds beside HTTPRoute the API server serves.
	routeKinds []routeKind

	mu      sync.Mutex
	ctrl    controller.Controller
	watched map[schema.GroupVersionKind]bool

	// wrote remembers the resourceVersion of each object as Gantry's own apply left it, so that
	// the watch event echoing that apply does not reconcile the Gateway again for nothing. Both
	// are kept hashed (wroteHash): an entry is 24 bytes, where the key's and the version's
	// strings were about 550 (2.2 MB at 1,000 Gateways, docs/performance.md). Two keys or two
	// versions that hash alike (one chance in 2^64 a pair) would at worst skip one event's
	// reconcile, until the next event or resync.
	// The two latest versions are kept: a first write after a create is two writes (the rename
	// of create.go, then the apply), and both echoes are Gantry's own.
	wroteMu sync.Mutex
	wrote   map[uint64][2]uint64
	// inflight holds the objects being written: a write's watch event can arrive before its
	// answer does (the API server sends both at once), and would then not be known as Gantry's
	// own. Such events are held until the write's answer, then dropped if they echo it and
	// passed on through drift if not.
	inflight map[uint64]*flight
	// drift takes the held events of changes that were not Gantry's, to the Gateway's queue.
	drift chan<- event.GenericEvent
}

// flight is one object's writes under way and the events that arrived meanwhile: the first
// maxHeld, and the newest in the last place (a tenant editing the object in a loop during a
// slow write holds no more than that). Any beyond maxHeld counts as someone else's change.
type flight struct {
	writes   int
	held     []client.Object
	overflow bool
}

// maxHeld bounds the events one flight holds.
const maxHeld = 8

// wroteSeed seeds wroteHash for the process.
var wroteSeed = maphash.MakeSeed()

// wroteHash hashes an object's key for tracker.wrote.
func wroteHash(k objectKey) uint64 {
	var h maphash.Hash
	h.SetSeed(wroteSeed)
	for _, s := range []string{k.Group, k.Kind, k.Namespace, k.Name} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	return h.Sum64()
}

// writing marks a write of the object o names as under way, until the returned function is
// called with what the write returned (nil if it failed): that records the resourceVersion the
// write left, and passes on the events held meanwhile that were not its own.
//
// Passing them on waits for room in the channel, or for ctx to end (a shutdown: the next start
// lists and reconciles everything anyway).
//
// One case is taken for Gantry's own and is not: an apply that changes nothing answers with the
// version the object already had. Gantry applies only what its cache shows to differ, so that
// takes another writer making the very change Gantry was about to make, between Gantry's read
// and its apply; that writer's event is then dropped. What Gantry's fields hold is right either
// way, and health is computed from the answer; only a template reading the object through
// .Resources sees the other writer's change late, at the Gateway's next reconcile.
func (t *tracker) writing(ctx context.Context, o *unstructured.Unstructured) (done func(written *unstructured.Unstructured)) {
	k := wroteHash(keyOf(o))
	t.wroteMu.Lock()
	if t.inflight == nil {
		t.inflight = map[uint64]*flight{}
	}
	f := t.inflight[k]
	if f == nil {
		f = &flight{}
		t.inflight[k] = f
	}
	f.writes++
	t.wroteMu.Unlock()
	return func(written *unstructured.Unstructured) {
		t.wroteMu.Lock()
		if written != nil {
			t.recordLocked(k, written.GetResourceVersion())
		}
		foreign := false
		var newest client.Object
		if f.writes--; f.writes == 0 {
			delete(t.inflight, k)
			foreign = f.overflow
			for _, e := range f.held {
				foreign = foreign || !t.wroteLocked(k, e.GetResourceVersion())
			}
			if len(f.held) > 0 {
				newest = f.held[len(f.held)-1]
			}
		}
		t.wroteMu.Unlock()
		// One event is enough: they are all of one object, and the newest says it as it is.
		if foreign && t.drift != nil {
			select {
			case t.drift <- event.GenericEvent{Object: newest}:
			case <-ctx.Done():
			}
		}
	}
}

func (t *tracker) recordLocked(k uint64, rv string) {
	if t.wrote == nil {
		t.wrote = map[uint64][2]uint64{}
	}
	t.wrote[k] = [2]uint64{maphash.String(wroteSeed, rv), t.wrote[k][0]}
}

func (t *tracker) wroteLocked(k uint64, rv string) bool {
	got, ok := t.wrote[k]
	h := maphash.String(wroteSeed, rv)
	return ok && (got[0] == h || got[1] == h)
}

// echo reports whether an object is as one of Gantry's two latest writes of it left it, or is
// being written now (the event is then held until the write's answer, see writing).
func (t *tracker) echo(o client.Object) bool {
	k := wroteHash(cachedKey(o))
	t.wroteMu.Lock()
	defer t.wroteMu.Unlock()
	if t.wroteLocked(k, o.GetResourceVersion()) {
		return true
	}
	if f := t.inflight[k]; f != nil {
		if len(f.held) < maxHeld {
			f.held = append(f.held, o)
		} else {
			f.held[maxHeld-1], f.overflow = o, true
		}
		return true
	}
	return false
}

// cachedKey is the key of an object of the rendered cache (compact.go), read through its
// accessors.
func cachedKey(o client.Object) objectKey {
	return objectKey{o.GetObjectKind().GroupVersionKind().GroupKind(), types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}}
}

// forgetApplied drops the record of a deleted object.
func (t *tracker) forgetApplied(k objectKey) {
	t.wroteMu.Lock()
	defer t.wroteMu.Unlock()
	delete(t.wrote, wroteHash(k))
}

// renderedSelector matches objects carrying Gantry's template label.
func renderedSelector() labels.Selector {
	req, err := labels.NewRequirement(v1alpha1.LabelTemplate, selection.Exists, nil)
	if err != nil {
		panic(err) // a constant requirement; cannot fail
	}
	return labels.NewSelector().Add(*req)
}

// ownerKey is the owner annotation's value for a Gateway.
func ownerKey(gw types.NamespacedName) string { return gw.Namespace + "/" + gw.Name }

func ownerOf(o client.Object) (types.NamespacedName, bool) {
	ns, name, ok := strings.Cut(annotationOf(o, v1alpha1.AnnotationOwner), "/")
	if !ok || ns == "" || name == "" {
		return types.NamespacedName{}, false
	}
	return types.NamespacedName{Namespace: ns, Name: name}, true
}

// indexOwner indexes rendered objects by their owner annotation: a Gateway's route templates
// render into the routes' namespaces, so its objects are found by owner, not by namespace.
//
// It is the informer's own index, asked directly (ownerIndexer), not a field index of
// controller-runtime: IndexField keys every namespaced object twice, by namespace and owner and
// by owner across namespaces, and the owner's objects are only ever looked for across
// namespaces. Each key holds a set of its own, a map for a Gateway's one object of a kind: in
// heap profiles of the harness's N=10,000 runs the informers' indexes were 24.7 MB of a 176 MB
// live heap with both keys, 20.2 MB of 147 MB with the owner keyed once (docs/performance.md).
const indexOwner = "gantry.owner"

// ownerIndex is indexOwner's function: an object's owner annotation, when it has one.
func ownerIndex(obj any) ([]string, error) {
	o, ok := obj.(client.Object)
	if !ok {
		return nil, nil
	}
	if owner := annotationOf(o, v1alpha1.AnnotationOwner); owner != "" {
		return []string{owner}, nil
	}
	return nil, nil
}

// ownerIndexer is the index of the informer of u's kind in c, once it has synced. On a cache that
// has not started, GetInformer does not wait and the index is empty, where cache.List says
// the cache has not started: an empty answer would read as "no objects" (a finalizer dropped
// with objects left, nothing pruned), so it is an error.
func ownerIndexer(ctx context.Context, c cache.Cache, u *unstructured.Unstructured) (toolscache.Indexer, error) {
	inf, err := c.GetInformer(ctx, u)
	if err != nil {
		return nil, err
	}
	if !inf.HasSynced() {
		return nil, fmt.Errorf("the cache of %s has not synced: %w", u.GroupVersionKind().Kind, errCacheBehind)
	}
	i, ok := inf.(interface{ GetIndexer() toolscache.Indexer })
	if !ok {
		return nil, fmt.Errorf("the informer of %s has no index (%T)", u.GroupVersionKind(), inf)
	}
	return i.GetIndexer(), nil
}

// watch starts watching kinds not watched yet.
func (t *tracker) watch(ctx context.Context, gvks ...schema.GroupVersionKind) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, gvk := range gvks {
		if t.watched[gvk] {
			continue
		}
		if _, err := t.namespaced(gvk); err != nil {
			// Not served, e.g. a kind recorded in renderedKinds whose CRD is gone: nothing of it
			// can exist. It is watched when a render produces it again.
			continue
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		inf, err := t.cache.GetInformer(ctx, u, cache.BlockUntilSynced(false))
		if err != nil {
			return fmt.Errorf("index %s: %w", gvk, err)
		}
		if err := inf.AddIndexers(toolscache.Indexers{indexOwner: ownerIndex}); err != nil {
			return fmt.Errorf("index %s: %w", gvk, err)
		}
		h := handler.EnqueueRequestsFromMapFunc(t.gatewayOf)
		// Our own applies come back as events; they change nothing the render depends on.
		notEcho := predicate.Funcs{
			CreateFunc: func(e event.CreateEvent) bool { return !t.echo(e.Object) },
			UpdateFunc: func(e event.UpdateEvent) bool { return !t.echo(e.ObjectNew) },
			// Whoever deleted it (Gantry's prune forgets it too), its record goes with it.
			DeleteFunc: func(e event.DeleteEvent) bool { t.forgetApplied(cachedKey(e.Object)); return true },
		}
		if err := t.ctrl.Watch(source.Kind[client.Object](t.cache, u, h, notEcho)); err != nil {
			return fmt.Errorf("watch %s: %w", gvk, err)
		}
		t.watched[gvk] = true
	}
	return nil
}

// gatewayOf maps an event on a rendered object to the Gateway it may be proven to belong to
// (see ownerProof): a claim alone, in a namespace that is not the Gateway's, reconciles nothing.
// A route's object maps to the Gateway its annotation names only if the route names that
// Gateway as a parent, so that a tenant's own objects cannot set another Gateway rendering.
func (t *tracker) gatewayOf(ctx context.Context, o client.Object) []reconcile.Request {
	gw, ok := ownerOf(o)
	if !ok {
		return nil
	}
	if o.GetNamespace() == "" {
		return []reconcile.Request{{NamespacedName: gw}} // only the cluster's admins write these
	}
	ref := metav1.GetControllerOf(o)
	if ref == nil {
		return nil
	}
	switch ref.Kind {
	case "Gateway":
		if o.GetNamespace() == gw.Namespace && ref.Name == gw.Name {
			return []reconcile.Request{{NamespacedName: gw}}
		}
		return nil
	}
	route := servedRoute(t.routeKinds, ref.Kind)
	if route == nil {
		return nil
	}
	if err := t.reader.Get(ctx, client.ObjectKey{Namespace: o.GetNamespace(), Name: ref.Name}, route); err != nil {
		return nil // a route's deletion reconciles its Gateways through the route's own watch
	}
	for _, p := range parentRequests(route) {
		if p.NamespacedName == gw {
			return []reconcile.Request{p}
		}
	}
	return nil
}

func (t *tracker) kinds() []schema.GroupVersionKind {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.SortedFunc(maps.Keys(t.watched), func(a, b schema.GroupVersionKind) int {
		return strings.Compare(a.String(), b.String())
	})
}

// owned lists the objects a Gateway's renders produced, of every watched kind, from the cache,
// each expanded whole: in the Gateway's namespace, in its routes' namespaces and cluster-scoped
// ones. The labels and the owner annotation find them; only those the proof holds for are
// returned (see ownerProof).
func (t *tracker) owned(ctx context.Context, proof ownerProof) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	gw := proof.gw
	gwLabel := desired.LabelValue(gw.Name)
	key := ownerKey(gw)
	for _, gvk := range t.kinds() {
		if _, err := t.namespaced(gvk); err != nil {
			continue // the kind's CRD is gone: nothing of it can exist
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		idx, err := ownerIndexer(ctx, t.cache, u)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", gvk.Kind, err)
		}
		cached, err := idx.ByIndex(indexOwner, key)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", gvk.Kind, err)
		}
		for _, c := range cached {
			o, ok := c.(client.Object)
			if !ok || labelOf(o, v1alpha1.LabelGatewayName) != gwLabel {
				continue
			}
			// A copy, expanded (compact.go): the cache's object is shared.
			obj, ok := o.DeepCopyObject().(*unstructured.Unstructured)
			if !ok {
				return nil, fmt.Errorf("list %s: the cache holds a %T", gvk.Kind, o)
			}
			if obj.GetKind() == "" {
				obj.SetGroupVersionKind(gvk) // as the cache's List sets it
			}
			if proof.proves(obj) {
				out = append(out, obj)
			}
		}
	}
	return out, nil
}

func (t *tracker) namespaced(gvk schema.GroupVersionKind) (bool, error) {
	m, err := t.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return false, err
	}
	return m.Scope.Name() == meta.RESTScopeNameNamespace, nil
}
