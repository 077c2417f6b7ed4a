package controllers

import (
	"context"
	"errors"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// errCacheBehind: the cache still shows the version of an object that our last status write
// replaced, so whatever we compute from it is out of date.
var errCacheBehind = errors.New("the cache has not seen our last status write yet")

// cacheBehindRetry is how soon to look again when the cache is behind.
const cacheBehindRetry = 250 * time.Millisecond

// statusWrites guards status writes against a stale cache. Right after a write, another
// trigger can reconcile the object from the cache's older copy and compute the status just
// written — or one the optimistic lock will refuse; either way a request for nothing. It
// remembers the resourceVersion each write replaced and declines to write while the cache
// still shows it.
type statusWrites struct {
	mu     sync.Mutex
	before map[types.UID]string
}

// patch writes next's status over old's (old is the cached object next was computed from),
// with an optimistic lock.
func (w *statusWrites) patch(ctx context.Context, c client.Client, old, next client.Object) error {
	uid, rv := old.GetUID(), old.GetResourceVersion()
	w.mu.Lock()
	if w.before == nil {
		w.before = map[types.UID]string{}
	}
	replaced, ok := w.before[uid]
	w.mu.Unlock()
	if ok && replaced == rv {
		return errCacheBehind
	}
	if err := patchStatusQuietly(ctx, c, old, next); err != nil {
		if apierrors.IsConflict(err) {
			return errCacheBehind // someone wrote since; the cache will bring it
		}
		if apierrors.IsNotFound(err) {
			return nil // deleted meanwhile: no status to write, and its deletion is reconciled on its own
		}
		return err
	}
	w.mu.Lock()
	w.before[uid] = rv
	w.mu.Unlock()
	return nil
}

// patchStatusQuietly writes next's status over old's, as a merge patch with old's
// resourceVersion as the lock, and asks for the answer as metadata only: no caller reads it,
// and the whole object decoded was 3.9% of the controller's CPU at N=1,000 (the scale
// harness's CPU profile, docs/performance.md); the API server sends less too. next is left as
// it was computed.
func patchStatusQuietly(ctx context.Context, c client.Client, old, next client.Object) error {
	data, err := client.MergeFromWithOptions(old, client.MergeFromWithOptimisticLock{}).Data(next)
	if err != nil {
		return err
	}
	gvk, err := apiutil.GVKForObject(next, c.Scheme())
	if err != nil {
		return err
	}
	answer := &metav1.PartialObjectMetadata{}
	answer.SetGroupVersionKind(gvk)
	answer.SetNamespace(next.GetNamespace())
	answer.SetName(next.GetName())
	return c.Status().Patch(ctx, answer, client.RawPatch(types.MergePatchType, data))
}

// requeueIfBehind turns errCacheBehind into a quiet, short requeue.
func requeueIfBehind(res ctrl.Result, err error) (ctrl.Result, error) {
	if errors.Is(err, errCacheBehind) {
		return ctrl.Result{RequeueAfter: cacheBehindRetry}, nil
	}
	return res, err
}
