package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/csaupgrade"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A unit whose objects to write are all new is created, not dry-run and applied (issue 22,
// item 2: the dry-run of every new object was 4 of a first convergence's 10 requests per
// Gateway, against the floor's 6).
//
//   - Collision-safe in one request: a create fails with AlreadyExists when anything holds the
//     name, where an apply would merge into it. Server-side apply has no create-only mode (an
//     apply carrying a uid is refused when the object does not exist).
//   - Whole or not at all, at rest: when the API server refuses one object, the objects the
//     attempt created are deleted again (conditional on their UID) before the refusal is
//     reported, and the unit is marked careful: its next attempts dry-run first, as before, so
//     a refusal that lasts does not create and delete on every retry. A name that is taken
//     marks it careful too and sends it down the careful path at once, which says whose the
//     object is. A unit is careful until it is written whole.
//   - Field ownership as an apply would leave it, at the next write: a create records its
//     fields under an Update entry of the field manager, and fields an apply later drops would
//     stay, co-owned by that entry. Before Gantry next writes such an object, the entry is
//     turned into Gantry's Apply entry (upgradeCreated), as kubectl does when a client-side
//     applied object moves to server-side apply. That costs a request per object once in its
//     life, and none in a first convergence. The entry also owns the fields the API server
//     defaulted at the create: an apply that drops one lets the server default it again.
//
// Written by hand: controller-runtime and client-go have no create-or-roll-back of a set of
// objects; csaupgrade (client-go) computes the ownership move when the entry is not alone.

// unitKey names a unit for the careful set: its Gateway (by name and UID) and its owner.
type unitKey struct {
	gateway types.NamespacedName
	uid     types.UID
	owner   string
}

// careful holds the units whose last create failed: they dry-run first. A unit leaves it when
// it is written whole, or with its Gateway (forget), so that Gateways created and deleted in a
// loop do not grow it.
type careful struct{ m sync.Map }

func (c *careful) is(k unitKey) bool { _, ok := c.m.Load(k); return ok }
func (c *careful) set(k unitKey)     { c.m.Store(k, struct{}{}) }
func (c *careful) clear(k unitKey)   { c.m.Delete(k) }

// forget drops the units of a Gateway that is gone.
func (c *careful) forget(gw types.NamespacedName) {
	c.m.Range(func(k, _ any) bool {
		if k.(unitKey).gateway == gw {
			c.m.Delete(k)
		}
		return true
	})
}

// rollbackTimeout bounds the deletes that roll back a refused create.
const rollbackTimeout = 10 * time.Second

// errNameTaken is createUnit's answer when an object of the unit exists already: the careful
// path finds out whose.
var errNameTaken = errors.New("a name of the unit is taken")

// createUnit creates objs, all of which the cache does not hold, at once. On any failure the
// objects it created are deleted again; a taken name returns errNameTaken (after that
// rollback), any other failure the API server's refusals. objs are changed only when all were
// created, to the API server's answers: after a failure the careful path may apply them.
func (r *GatewayReconciler) createUnit(ctx context.Context, objs []*unstructured.Unstructured) ([]objectKey, error) {
	var (
		wg      sync.WaitGroup
		created = make([]*unstructured.Unstructured, len(objs))
		errs    = make([]error, len(objs))
	)
	for i, o := range objs {
		wg.Go(func() {
			c := o.DeepCopy()
			done := r.tracker.writing(ctx, c)
			// Strict, as an apply is: a create otherwise drops a field the schema does not
			// know (a blueprint's typo) with only a warning.
			if err := r.Client.Create(ctx, c, client.FieldOwner(FieldManager), client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
				done(nil)
				errs[i] = err
				return
			}
			done(c)
			created[i] = c
		})
	}
	wg.Wait()
	failed, taken := false, false
	for _, err := range errs {
		failed = failed || err != nil
		taken = taken || apierrors.IsAlreadyExists(err)
	}
	if !failed {
		keys := make([]objectKey, len(created))
		for i, c := range created {
			keys[i] = keyOf(c)
			// The API server's answer, as an apply leaves it in its object: what the Gateway's
			// status says of the object's health is computed from it, not from what was sent.
			objs[i].Object = c.Object
		}
		return keys, nil
	}
	// Roll back: what this attempt created goes again, unless it changed meanwhile (UID); also
	// when the reconcile is being cancelled (a shutdown), within rollbackTimeout.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	rollback := make([]error, len(created))
	for i, c := range created {
		if c == nil {
			continue
		}
		wg.Go(func() {
			uid := c.GetUID()
			err := r.Client.Delete(rctx, c, client.Preconditions{UID: &uid}, client.PropagationPolicy(metav1.DeletePropagationBackground))
			if err != nil && !apierrors.IsNotFound(err) {
				rollback[i] = fmt.Errorf("delete %s again, created with a refused unit: %w", keyOf(c), err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(rollback...); err != nil {
		return nil, errors.Join(append(refusals(objs, errs, "created with the unit's other objects"), err)...)
	}
	if taken {
		return nil, errNameTaken
	}
	return nil, errors.Join(refusals(objs, errs, "nothing of the unit remains: what was created with it was deleted again")...)
}

// refusals names each refused object and what became of the rest.
func refusals(objs []*unstructured.Unstructured, errs []error, rest string) []error {
	var out []error
	for i, err := range errs {
		if err != nil {
			out = append(out, fmt.Errorf("apply %s (%s): %w", keyOf(objs[i]), rest, err))
		}
	}
	return out
}

// createdEntries is what the rendered cache keeps of an object's managedFields (meta is its
// metadata): nothing, unless Gantry created the object and has not written it since (an Update
// entry of its field manager), and then each entry's manager, operation and subresource,
// without its fields, in the server's order, so that upgradeCreated can address the entry. The
// cache keeps them inside the compacted JSON (compact.go): about 50 bytes an entry, only until
// the object's first write. Read from the map as the watch decoded it: a transform runs on
// every event, and GetManagedFields converts the whole list.
func createdEntries(meta map[string]any) []any {
	list, _ := meta["managedFields"].([]any)
	created := false
	for _, e := range list {
		m, _ := e.(map[string]any)
		sub, _ := m["subresource"].(string)
		if m["manager"] == FieldManager && m["operation"] == string(metav1.ManagedFieldsOperationUpdate) && sub == "" {
			created = true
		}
	}
	if !created {
		return nil
	}
	kept := make([]any, len(list))
	for i, e := range list {
		m, _ := e.(map[string]any)
		k := map[string]any{"manager": m["manager"], "operation": m["operation"]}
		if sub, ok := m["subresource"]; ok {
			k["subresource"] = sub
		}
		kept[i] = k
	}
	return kept
}

// hasEntry reports whether mf holds an entry of Gantry's field manager for op, on the object
// itself (not a subresource).
func hasEntry(mf []metav1.ManagedFieldsEntry, op metav1.ManagedFieldsOperationType) bool {
	return entryAt(mf, op) >= 0
}

func entryAt(mf []metav1.ManagedFieldsEntry, op metav1.ManagedFieldsOperationType) int {
	for i, e := range mf {
		if e.Manager == FieldManager && e.Operation == op && e.Subresource == "" {
			return i
		}
	}
	return -1
}

// upgradeCreated turns the Update entry a create left into Gantry's Apply entry, before
// Gantry writes the object again (live is the cache's expanded copy). When the entry is alone
// of Gantry's, it is renamed in place, with JSON patch tests that it is still the entry at
// that index; otherwise (or when the tests fail: the cache was behind) the object is read and
// csaupgrade merges the entry into the Apply entry, conditional on the resourceVersion read.
func (r *GatewayReconciler) upgradeCreated(ctx context.Context, live *unstructured.Unstructured) error {
	mf := live.GetManagedFields()
	at := entryAt(mf, metav1.ManagedFieldsOperationUpdate)
	if at < 0 {
		return nil
	}
	target := &unstructured.Unstructured{}
	target.SetGroupVersionKind(live.GroupVersionKind())
	target.SetNamespace(live.GetNamespace())
	target.SetName(live.GetName())
	if !hasEntry(mf, metav1.ManagedFieldsOperationApply) {
		path := fmt.Sprintf("/metadata/managedFields/%d/", at)
		patch, err := json.Marshal([]map[string]any{
			{"op": "test", "path": path + "manager", "value": FieldManager},
			{"op": "test", "path": path + "operation", "value": metav1.ManagedFieldsOperationUpdate},
			{"op": "replace", "path": path + "operation", "value": metav1.ManagedFieldsOperationApply},
		})
		if err != nil {
			return err
		}
		renamed := target.DeepCopy()
		done := r.tracker.writing(ctx, renamed) // its watch event is Gantry's own
		if err := r.Client.Patch(ctx, renamed, client.RawPatch(types.JSONPatchType, patch)); err == nil {
			done(renamed)
			return nil
		}
		done(nil)
	}
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(target), target); err != nil {
		return fmt.Errorf("read %s to move its fields to Gantry's apply: %w", keyOf(live), err)
	}
	patch, err := csaupgrade.UpgradeManagedFieldsPatch(target, sets.New(FieldManager), FieldManager)
	if err != nil || patch == nil {
		return err
	}
	done := r.tracker.writing(ctx, target)
	if err := r.Client.Patch(ctx, target, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		done(nil)
		return fmt.Errorf("move the fields of %s to Gantry's apply: %w", keyOf(live), err)
	}
	done(target)
	return nil
}
