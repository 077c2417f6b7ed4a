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
	ns, name, ok := strings.Cut(o.GetAnnotations()[v1alpha1.AnnotationOwner], "/")
	if !ok || ns == "" || name == "" {
		return types.NamespacedName{}, false
	}
	return types.NamespacedName{Namespace: ns, Name: name}, true
}

// indexOwner indexes rendered objects by their owner annotation: a Gateway's route templates
// render into the routes' namespaces, so its objects are found by owner, not by namespace.
const indexOwner = "gantry.owner"

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
		if err := t.cache.IndexField(ctx, u, indexOwner, func(o client.Object) []string {
			return []string{o.GetAnnotations()[v1alpha1.AnnotationOwner]}
		}); err != nil {
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
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		opts := []client.ListOption{client.MatchingLabels{v1alpha1.LabelGatewayName: gwLabel}, client.MatchingFields{indexOwner: key}}
		if err := t.cache.List(ctx, list, opts...); err != nil {
			return nil, fmt.Errorf("list %s: %w", gvk.Kind, err)
		}
		for i := range list.Items {
			// The list's items are the cache's copies, expanded (compact.go).
			if proof.proves(&list.Items[i]) {
				out = append(out, &list.Items[i])
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
