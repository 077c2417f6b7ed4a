package controllers

import (
	"errors"
	"net/http"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// TestOwnedOnUnsyncedCacheIsAnError: cache.List on a cache that has not started answers
// ErrCacheNotStarted; owned(), which reads the informer's index, must not answer "no objects"
// either, or a caller (dropFinalizer, removeAll, gather) takes that for the truth. Found by a
// review (a helper session); seen failing before the fix.
func TestOwnedOnUnsyncedCacheIsAnError(t *testing.T) {
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(gvk, meta.RESTScopeNamespace)
	c, err := cache.New(&rest.Config{Host: "http://127.0.0.1:1"}, cache.Options{
		HTTPClient: http.DefaultClient, Scheme: NewScheme(), Mapper: m,
		DefaultLabelSelector: renderedSelector(), DefaultTransform: compactRendered,
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := &tracker{cache: c, mapper: m, watched: map[schema.GroupVersionKind]bool{gvk: true}}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	inf, err := c.GetInformer(t.Context(), u, cache.BlockUntilSynced(false))
	if err != nil {
		t.Fatal(err)
	}
	if err := inf.AddIndexers(toolscache.Indexers{indexOwner: ownerIndex}); err != nil {
		t.Fatal(err)
	}

	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind("ConfigMapList"))
	listErr := c.List(t.Context(), list)
	var notStarted *cache.ErrCacheNotStarted

	if !errors.As(listErr, &notStarted) {
		t.Fatalf("cache.List on the unstarted cache: %v, not ErrCacheNotStarted", listErr)
	}
	owned, err := tr.owned(t.Context(), ownerProof{gw: types.NamespacedName{Namespace: "ns", Name: "gw"}})
	if !errors.Is(err, errCacheBehind) {
		t.Errorf("cache.List says %v; owned() says %d objects and %v", listErr, len(owned), err)
	}
}
