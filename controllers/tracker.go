package controllers

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"gantry.dev/gantry/apis/v1alpha1"
)

// tracker knows the objects Gantry rendered. It has its own cache, restricted to objects with
// Gantry's template label, so that watching a kind such as Deployment does not cache every
// Deployment of the cluster. A kind is watched from the first time a blueprint renders it (the
// blueprint's status.renderedKinds remembers it across restarts); each event maps, through the
// owner annotation, to exactly the Gateway that rendered the object.
type tracker struct {
	cache  cache.Cache
	mapper meta.RESTMapper

	mu      sync.Mutex
	ctrl    controller.Controller
	watched map[schema.GroupVersionKind]bool
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

// watch starts watching kinds not watched yet.
func (t *tracker) watch(gvks ...schema.GroupVersionKind) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, gvk := range gvks {
		if t.watched[gvk] {
			continue
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		h := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			if gw, ok := ownerOf(o); ok {
				return []reconcile.Request{{NamespacedName: gw}}
			}
			return nil
		})
		if err := t.ctrl.Watch(source.Kind[client.Object](t.cache, u, h)); err != nil {
			return fmt.Errorf("watch %s: %w", gvk, err)
		}
		t.watched[gvk] = true
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

// owned lists the objects a Gateway's renders produced, of every watched kind, from the cache.
func (t *tracker) owned(ctx context.Context, gw types.NamespacedName, gwLabel string) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	key := ownerKey(gw)
	for _, gvk := range t.kinds() {
		namespaced, err := t.namespaced(gvk)
		if err != nil {
			continue // the kind's CRD is gone: nothing of it can exist
		}
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		opts := []client.ListOption{client.MatchingLabels{v1alpha1.LabelGatewayName: gwLabel}}
		if namespaced {
			opts = append(opts, client.InNamespace(gw.Namespace))
		}
		if err := t.cache.List(ctx, list, opts...); err != nil {
			return nil, fmt.Errorf("list %s: %w", gvk.Kind, err)
		}
		for i := range list.Items {
			if list.Items[i].GetAnnotations()[v1alpha1.AnnotationOwner] == key {
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
