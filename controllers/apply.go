package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// FieldManager is the server-side apply field manager of everything Gantry writes.
const FieldManager = "gantry"

// objectKey identifies an object across API versions of its kind.
type objectKey struct {
	schema.GroupKind
	types.NamespacedName
}

func keyOf(o *unstructured.Unstructured) objectKey {
	return objectKey{o.GroupVersionKind().GroupKind(), types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}}
}

func (k objectKey) String() string {
	if k.Namespace == "" {
		return k.Kind + " " + k.Name
	}
	return k.Kind + " " + k.Namespace + "/" + k.Name
}

// toApply turns desired objects into what is applied: the owner annotation, and an owner
// reference to the Gateway or route (of any kind) for namespaced objects (cluster-scoped ones are
// cleaned up through the Gateway's finalizer instead).
func (r *GatewayReconciler) toApply(gw *gwv1.Gateway, routes []client.Object, objs []desired.Object) (out []*unstructured.Unstructured, clusterScoped bool, err error) {
	defer func() {
		for _, u := range out {
			if e := stampRenderHash(u); e != nil && err == nil {
				out, clusterScoped, err = nil, false, e
				return
			}
		}
	}()
	for _, d := range objs {
		u := &unstructured.Unstructured{Object: d.Object}
		ann := u.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann[v1alpha1.AnnotationOwner] = ownerKey(types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name})
		if u.GetNamespace() == "" {
			ann[v1alpha1.AnnotationOwnerUID] = string(gw.UID) // no owner reference can say it
		}
		u.SetAnnotations(ann) // copies ann: everything must be in it by now
		if u.GetNamespace() == "" {
			clusterScoped = true
			out = append(out, u)
			continue
		}
		ref := metav1.OwnerReference{APIVersion: gwv1.GroupVersion.String(), Kind: "Gateway", Name: gw.Name, UID: gw.UID, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
		if d.Owner.Kind != "Gateway" {
			i := slices.IndexFunc(routes, func(rt client.Object) bool {
				return desired.RouteKindOf(rt) == d.Owner.Kind && rt.GetNamespace() == d.Owner.Namespace && rt.GetName() == d.Owner.Name
			})
			if i < 0 {
				return nil, false, fmt.Errorf("%s %s vanished during the render", d.Owner.Kind, d.Owner.NamespacedName)
			}
			ref = metav1.OwnerReference{APIVersion: gwv1.GroupVersion.String(), Kind: d.Owner.Kind, Name: routes[i].GetName(), UID: routes[i].GetUID(), Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
		}
		u.SetOwnerReferences([]metav1.OwnerReference{ref})
		out = append(out, u)
	}
	return out, clusterScoped, nil
}

func ptr[T any](v T) *T { return &v }

// stampRenderHash records a hash of the object as rendered in an annotation (see
// v1alpha1.AnnotationRenderHash).
func stampRenderHash(u *unstructured.Unstructured) error {
	b, err := json.Marshal(u.Object) // encoding/json sorts map keys: the same render, the same bytes
	if err != nil {
		return fmt.Errorf("hash %s: %w", keyOf(u), err)
	}
	sum := sha256.Sum256(b)
	ann := u.GetAnnotations()
	ann[v1alpha1.AnnotationRenderHash] = hex.EncodeToString(sum[:12])
	u.SetAnnotations(ann)
	return nil
}

// conflictError is an object that exists but is not Gantry's (or is another Gateway's).
type conflictError struct {
	key   objectKey
	owner string
}

func (e *conflictError) Error() string {
	if e.owner != "" {
		return fmt.Sprintf("%s already exists and belongs to Gateway %s; Gantry does not take it over", e.key, e.owner)
	}
	return fmt.Sprintf("%s already exists and was not created by Gantry; Gantry does not take it over", e.key)
}

// applyUnit is the objects of one owner: the Gateway's own, or one route's. A unit is written
// whole or, as far as checks before the first write can tell, not at all; one route's unit
// failing is that route's failure, not the Gateway's.
type applyUnit struct {
	owner desired.Owner
	objs  []*unstructured.Unstructured
}

// units groups the objects to apply by owner, the Gateway's first; owners[i] is objs[i]'s.
func units(objs []*unstructured.Unstructured, owners []desired.Owner) []applyUnit {
	var out []applyUnit
	index := map[desired.Owner]int{}
	for i, o := range objs {
		j, ok := index[owners[i]]
		if !ok {
			j = len(out)
			index[owners[i]] = j
			out = append(out, applyUnit{owner: owners[i]})
		}
		out[j].objs = append(out[j].objs, o)
	}
	slices.SortStableFunc(out, func(a, b applyUnit) int {
		if a.owner.Kind == b.owner.Kind {
			return 0
		}
		if a.owner.Kind == "Gateway" {
			return -1
		}
		return 1
	})
	return out
}

// apply writes, unit by unit, the objects that differ from their live state, and only those.
// A failure of the Gateway's own unit is returned and stops the rest; a route's failure goes
// into routeErrs and the other units go on.
// taken names the fields it took from other field managers, as fieldConflicts does.
func (r *GatewayReconciler) apply(ctx context.Context, gw *gwv1.Gateway, objs []*unstructured.Unstructured, owners []desired.Owner, owned []*unstructured.Unstructured) (applied []objectKey, taken []string, routeErrs map[desired.RouteKey]error, err error) {
	live := make(map[objectKey]*unstructured.Unstructured, len(owned))
	for _, o := range owned {
		live[keyOf(o)] = o
	}
	defer func() {
		if len(taken) > 0 {
			fieldsTakenTotal.Add(float64(len(taken)))
			r.event(gw, corev1.EventTypeWarning, "FieldsTaken", "Apply", "took fields another field manager owned, to hold what the blueprint renders: %s", strings.Join(taken, "; "))
		}
	}()
	for _, u := range units(objs, owners) {
		unit := unitKey{gateway: types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}, uid: gw.UID, owner: u.owner.Kind + " " + u.owner.NamespacedName.String()}
		done, took, err := r.applyUnit(ctx, gw, unit, u.objs, live)
		applied = append(applied, done...)
		taken = append(taken, took...)
		if err == nil {
			continue
		}
		if u.owner.Kind == "Gateway" {
			return applied, taken, routeErrs, err
		}
		if routeErrs == nil {
			routeErrs = map[desired.RouteKey]error{}
		}
		routeErrs[desired.RouteKey{Kind: u.owner.Kind, NamespacedName: u.owner.NamespacedName}] = err
	}
	return applied, taken, routeErrs, nil
}

// ConditionFieldsTaken says, on a Gateway, which fields Gantry's last write took from other
// field managers (issue 22: never force silently, and say who owned the field in status). It
// appears when a write takes a field, and turns False at the next reconcile that writes and
// takes none; a reconcile that writes nothing leaves it as it is (the fields are still held),
// and a Gateway whose objects nobody else writes never has it (Gateway API allows a Gateway
// eight conditions).
const ConditionFieldsTaken = "gateway.gantry.dev/FieldsTaken"

// Reasons of ConditionFieldsTaken.
const (
	ReasonFieldsTaken = "FieldsTaken"
	ReasonNoneTaken   = "NoneTaken"
)

// fieldsTakenCondition is ConditionFieldsTaken after a reconcile that took taken and wrote
// something or not, if it is to be set at all.
func fieldsTakenCondition(gw *gwv1.Gateway, taken []string, wrote bool) (metav1.Condition, bool) {
	c := metav1.Condition{Type: ConditionFieldsTaken, Status: metav1.ConditionTrue, Reason: ReasonFieldsTaken, ObservedGeneration: gw.Generation}
	if len(taken) > 0 {
		c.Message = truncate("the last write took fields another field manager owned, to hold what the blueprint renders: " + strings.Join(taken, "; "))
		return c, true
	}
	if prev := meta.FindStatusCondition(gw.Status.Conditions, ConditionFieldsTaken); wrote && prev != nil && prev.Status == metav1.ConditionTrue {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonNoneTaken, "the last write took no field from another field manager"
		return c, true
	}
	return c, false
}

// applyUnit writes one unit's objects. A unit whose objects to write are all new is created
// (create.go): one request per object, rolled back when the API server refuses one. Otherwise,
// or after such a refusal, it first checks every object that is not known to be ours, so that
// a collision writes nothing of the unit, and dry-runs every object to write.
// Those checks go out at once, costing one round trip rather than one each (a first
// convergence is bound by the API server, not by Gantry's CPU). An object the dry-run shows
// to be new (the answer has no resourceVersion: nothing is stored under its name) needs no
// read to prove it is not someone else's; only one that exists although the cache does not
// hold it is read. That is one request per object, not two, in a first convergence.
//
// Fields another field manager owns are taken (the blueprint decides them, as it puts back any
// drift), but said, never taken silently: the first attempt does not force, and a conflict's
// fields are returned, as `Kind ns/name .field (conflict with "manager")`, before the forced
// one. That costs a request only when there is a conflict.
func (r *GatewayReconciler) applyUnit(ctx context.Context, gw *gwv1.Gateway, unit unitKey, objs []*unstructured.Unstructured, live map[objectKey]*unstructured.Unstructured) ([]objectKey, []string, error) {
	mine := ownerKey(types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name})
	var unknown []*unstructured.Unstructured
	for _, o := range objs {
		if _, ok := live[keyOf(o)]; !ok {
			unknown = append(unknown, o)
		}
	}
	var write []*unstructured.Unstructured
	for _, o := range objs {
		if l, ok := live[keyOf(o)]; !ok || !contains(l.Object, o.Object) {
			write = append(write, o)
		}
	}
	// A unit of new objects only is created (create.go), unless its last create failed.
	if len(write) > 0 && len(unknown) == len(write) && !r.careful.is(unit) {
		created, err := r.createUnit(ctx, write)
		if err == nil {
			return created, nil, nil
		}
		r.careful.set(unit)
		if !errors.Is(err, errNameTaken) {
			return nil, nil, err
		}
	}
	// Objects Gantry created and writes for the first time since: their fields move to
	// Gantry's apply entry first.
	if err := r.upgradeEach(ctx, write, live); err != nil {
		return nil, nil, err
	}
	// Every object to write is applied as a server-side dry-run: the API server's own
	// validation, defaulting and admission decide, and a refusal of any writes nothing of the
	// unit. A unit with one object to write needs none: its apply is all or nothing already.
	// What the dry-run cannot foresee (a change between it and the write) still fails the
	// write, which is then retried.
	dryRun := len(write) > 1
	var (
		wg        sync.WaitGroup
		getErrs   = make([]error, len(unknown))
		conflicts = make([]error, len(unknown))
		dryErrs   = make([]error, len(write))
		taken     = make([][]string, len(write))
		// isNew holds the unknown objects the dry-run showed to be new.
		isNew     = make([]bool, len(unknown))
		unknownAt = map[objectKey]int{}
	)
	for i, o := range unknown {
		unknownAt[keyOf(o)] = i
	}
	// check reads an object the cache does not hold: it may exist without our labels.
	check := func(i int, o *unstructured.Unstructured) {
		existing := &unstructured.Unstructured{}
		existing.SetGroupVersionKind(o.GroupVersionKind())
		err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(o), existing)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			getErrs[i] = fmt.Errorf("get %s: %w", keyOf(o), err)
		case !sameOwner(existing, o, mine, gw.UID):
			conflicts[i] = &conflictError{key: keyOf(o), owner: existing.GetAnnotations()[v1alpha1.AnnotationOwner]}
		}
	}
	if dryRun {
		for i, o := range write {
			wg.Go(func() {
				dry := o.DeepCopy()
				var err error
				taken[i], err = r.applyOne(ctx, dry, false, client.DryRunAll)
				if err != nil {
					dryErrs[i] = fmt.Errorf("apply %s (checked before writing; nothing was written): %w", keyOf(o), err)
				}
				if j, ok := unknownAt[keyOf(o)]; ok {
					isNew[j] = err == nil && dry.GetResourceVersion() == ""
				}
			})
		}
		wg.Wait()
	}
	for i, o := range unknown {
		if !isNew[i] {
			wg.Go(func() { check(i, o) })
		}
	}
	wg.Wait()
	// A read that failed says nothing; a collision is the unit's failure before a refusal is.
	if err := errors.Join(getErrs...); err != nil {
		return nil, nil, err
	}
	if found := slices.DeleteFunc(conflicts, func(err error) bool { return err == nil }); len(found) > 0 {
		return nil, nil, joinConflicts(found)
	}
	if err := errors.Join(dryErrs...); err != nil {
		return nil, nil, err
	}
	// The writes go out at once too: the dry-runs, also made at once, found each acceptable
	// on its own, so none waits for another.
	applyErrs := make([]error, len(write))
	for i, o := range write {
		wg.Go(func() {
			done := r.tracker.writing(ctx, o)
			// After a dry-run, its conflicts are known: force at once.
			took, err := r.applyOne(ctx, o, dryRun)
			if !dryRun {
				taken[i] = took
			}
			if err != nil {
				done(nil)
				applyErrs[i] = fmt.Errorf("apply %s: %w", keyOf(o), err)
				return
			}
			done(o) // the apply wrote the server's answer, resourceVersion included, into o
		})
	}
	wg.Wait()
	var applied []objectKey
	var took []string
	for i, o := range write {
		if applyErrs[i] == nil {
			applied = append(applied, keyOf(o))
			took = append(took, taken[i]...)
		}
	}
	err := errors.Join(applyErrs...)
	if err == nil {
		r.careful.clear(unit)
	}
	return applied, took, err
}

// upgradeEach runs upgradeCreated, at once, for the objects to write that Gantry created and
// has not written since.
func (r *GatewayReconciler) upgradeEach(ctx context.Context, write []*unstructured.Unstructured, live map[objectKey]*unstructured.Unstructured) error {
	var wg sync.WaitGroup
	errs := make([]error, len(write))
	for i, o := range write {
		if l, ok := live[keyOf(o)]; ok && hasEntry(l.GetManagedFields(), metav1.ManagedFieldsOperationUpdate) {
			wg.Go(func() { errs[i] = r.upgradeCreated(ctx, l) })
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}

// applyOne server-side applies o as Gantry's field manager, forcing at once when force is set;
// otherwise it first asks without forcing, and on a conflict with other managers returns their
// fields and applies again, forced.
func (r *GatewayReconciler) applyOne(ctx context.Context, o *unstructured.Unstructured, force bool, opts ...client.ApplyOption) ([]string, error) {
	opts = append(opts, client.FieldOwner(FieldManager))
	if !force {
		err := r.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(o), opts...)
		taken := fieldConflicts(keyOf(o), err)
		if taken == nil {
			return nil, err
		}
		return taken, r.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(o), append(opts, client.ForceOwnership)...)
	}
	return nil, r.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(o), append(opts, client.ForceOwnership)...)
}

// fieldConflicts are the fields a server-side apply's conflict error names, each with the
// manager that owns it; nil when err is no such conflict.
func fieldConflicts(k objectKey, err error) []string {
	var status apierrors.APIStatus
	if !apierrors.IsConflict(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	var out []string
	for _, c := range status.Status().Details.Causes {
		if c.Type == metav1.CauseTypeFieldManagerConflict {
			out = append(out, fmt.Sprintf("%s %s (%s)", k, c.Field, c.Message))
		}
	}
	return out
}

type conflicts []error

func (c conflicts) Error() string {
	msgs := make([]string, len(c))
	for i, e := range c {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

func joinConflicts(errs []error) error { return conflicts(errs) }

// prune deletes owned objects the render no longer produces, except those annotated to be kept
// and those of templates that are pending (their objects stay until the template renders
// again). The delete is conditional on the UID, so an object replaced meanwhile is not touched.
func (r *GatewayReconciler) prune(ctx context.Context, objs []*unstructured.Unstructured, owned []*unstructured.Unstructured, pending map[string]bool) ([]objectKey, error) {
	var pruned []objectKey
	changed := false
	for _, o := range toPrune(objs, owned, pending) {
		k := keyOf(o)
		// Conditional on the version the decision was made from: an object changed since —
		// annotated to be kept, or no longer Gantry's — is looked at again, not deleted.
		uid, rv := o.GetUID(), o.GetResourceVersion()
		err := r.Client.Delete(ctx, o, client.Preconditions{UID: &uid, ResourceVersion: &rv}, client.PropagationPolicy(metav1.DeletePropagationBackground))
		switch {
		case apierrors.IsConflict(err):
			changed = true
			continue
		case err != nil && !apierrors.IsNotFound(err):
			return pruned, fmt.Errorf("prune %s: %w", k, err)
		}
		r.tracker.forgetApplied(k)
		pruned = append(pruned, k)
	}
	if changed {
		return pruned, fmt.Errorf("an object to prune changed since it was read: %w", errCacheBehind)
	}
	return pruned, nil
}

// toPrune selects the owned objects the render no longer produces, once each, except those
// annotated to be kept and those of the templates in keep.
func toPrune(objs, owned []*unstructured.Unstructured, keep map[string]bool) []*unstructured.Unstructured {
	want := make(map[objectKey]bool, len(objs))
	for _, o := range objs {
		want[keyOf(o)] = true
	}
	var out []*unstructured.Unstructured
	seen := map[objectKey]bool{}
	for _, o := range owned {
		k := keyOf(o)
		if want[k] || seen[k] || o.GetAnnotations()[v1alpha1.AnnotationKeep] == "true" || keep[pendingKey(o)] {
			continue
		}
		seen[k] = true // the same object may be listed under two versions of its kind
		out = append(out, o)
	}
	return out
}

// pendingKey identifies a template of a Gateway (no route) or of one of its routes, as the
// labels on a rendered object name it.
func pendingKey(o *unstructured.Unstructured) string {
	kind, route, ok := v1alpha1.RouteOfLabels(o.GetLabels())
	if !ok {
		return templateOf("", "", "", o.GetLabels()[v1alpha1.LabelTemplate])
	}
	ns := o.GetNamespace()
	if ns == "" {
		// A cluster-scoped object names its route's namespace in a label ("" on objects
		// rendered before the label existed, which keepTemplates keeps as it did).
		ns = o.GetLabels()[v1alpha1.LabelRouteNamespace]
	}
	return templateOf(kind, ns, route, o.GetLabels()[v1alpha1.LabelTemplate])
}

// templateOf is pendingKey from a route's kind, namespace and label value and a template label.
func templateOf(routeKind, routeNS, routeLabel, templateLabel string) string {
	return routeKind + "/" + routeNS + "/" + routeLabel + "/" + templateLabel
}

// contains reports whether every field of want has the same value in have: the live object
// already says everything the render says. Fields the API server or others added are ignored.
// Lists must have the same length and their elements contain each other's counterparts.
func contains(have, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return len(w) == 0 && have == nil
		}
		for k, wv := range w {
			if !contains(h[k], wv) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !contains(h[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(have, want)
	}
}
