package controllers

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// RevisionHistory is how many revisions of a blueprint are kept: the newest.
const RevisionHistory = 10

// revisionReconciler keeps a GatewayClassBlueprintRevision for each spec a blueprint has had:
// the current one (named by v1alpha1.RevisionName, so that a Gateway rendered from a spec names
// its revision without reading it) and the RevisionHistory-1 before it. The blueprint's status
// names the current one.
type revisionReconciler struct {
	client.Client
}

func (r *revisionReconciler) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("revision").
		For(&v1alpha1.GatewayClassBlueprint{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&v1alpha1.GatewayClassBlueprintRevision{}).
		Complete(r)
}

func (r *revisionReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	bp := &v1alpha1.GatewayClassBlueprint{}
	if err := r.Get(ctx, req.NamespacedName, bp); err != nil || !bp.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, client.IgnoreNotFound(err) // its revisions go with it (owner references)
	}
	l := &v1alpha1.GatewayClassBlueprintRevisionList{}
	if err := r.List(ctx, l, client.MatchingLabels{v1alpha1.LabelBlueprint: desired.LabelValue(bp.Name)}); err != nil {
		return ctrl.Result{}, err
	}
	revs := slices.DeleteFunc(l.Items, func(rev v1alpha1.GatewayClassBlueprintRevision) bool { return rev.Spec.Blueprint != bp.Name })
	newest := bp.Status.Revision // revisions deleted by hand do not lower the count
	for _, rev := range revs {
		newest = max(newest, rev.Spec.Revision)
	}
	name := v1alpha1.RevisionName(bp.Name, &bp.Spec)
	i := slices.IndexFunc(revs, func(rev v1alpha1.GatewayClassBlueprintRevision) bool { return rev.Name == name })
	switch {
	case i < 0:
		rev := v1alpha1.GatewayClassBlueprintRevision{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1alpha1.LabelBlueprint: desired.LabelValue(bp.Name)}},
			Spec:       v1alpha1.GatewayClassBlueprintRevisionSpec{Blueprint: bp.Name, Revision: newest + 1, Template: *v1alpha1.RevisionTemplate(&bp.Spec).DeepCopy()},
		}
		if err := controllerutil.SetControllerReference(bp, &rev, r.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, &rev); err != nil {
			if apierrors.IsAlreadyExists(err) {
				return ctrl.Result{}, fmt.Errorf("revision %s: %w", name, errCacheBehind)
			}
			return ctrl.Result{}, fmt.Errorf("create revision %s: %w", name, err)
		}
		revs = append(revs, rev)
		i = len(revs) - 1
	case revs[i].Spec.Revision < newest:
		// Back to an earlier spec: that revision is the newest again.
		patch := client.MergeFrom(revs[i].DeepCopy())
		revs[i].Spec.Revision = newest + 1
		if err := r.Patch(ctx, &revs[i], patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("renumber revision %s: %w", name, err)
		}
	}
	cur := revs[i]
	if bp.Status.LatestRevision != cur.Name || bp.Status.Revision != cur.Spec.Revision {
		patch := client.MergeFrom(bp.DeepCopy())
		bp.Status.LatestRevision, bp.Status.Revision = cur.Name, cur.Spec.Revision
		if err := r.Status().Patch(ctx, bp, patch); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	// The newest RevisionHistory stay, the current one among them.
	slices.SortFunc(revs, func(a, b v1alpha1.GatewayClassBlueprintRevision) int { return int(b.Spec.Revision - a.Spec.Revision) })
	for _, old := range revs[min(RevisionHistory, len(revs)):] {
		if old.Name == cur.Name || rolloutNeeds(bp, old.Name) {
			continue
		}
		if err := r.Delete(ctx, &old, client.Preconditions{UID: &old.UID}); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("delete revision %s: %w", old.Name, err)
		}
	}
	return ctrl.Result{}, nil
}

// ConditionBlueprintRevision is the Gateway condition that names the blueprint revision it was
// last rendered and applied from.
const ConditionBlueprintRevision = "gateway.gantry.dev/BlueprintRevision"

// ReasonLatest is ConditionBlueprintRevision's reason when that revision is the blueprint's
// current spec; ReasonPrevious when it is an earlier one, because the blueprint's staged rollout
// has not reached the Gateway.
const (
	ReasonLatest   = "Latest"
	ReasonPrevious = "Previous"
)

// revisionMessagePrefix begins ConditionBlueprintRevision's message, followed by the revision's
// name: the rollout reads back from it where each Gateway is (revisionOf).
const revisionMessagePrefix = "rendered from GatewayClassBlueprintRevision "

// revisionCondition says which revision of blueprint bp the Gateway was rendered from, and
// whether that is the current one (latest).
func revisionCondition(gen int64, bp, revision, latest string) metav1.Condition {
	c := metav1.Condition{Type: ConditionBlueprintRevision, Status: metav1.ConditionTrue, Reason: ReasonLatest, ObservedGeneration: gen,
		Message: fmt.Sprintf("%s%s, blueprint %s's current spec", revisionMessagePrefix, revision, bp)}
	if revision != latest {
		c.Reason = ReasonPrevious
		c.Message = fmt.Sprintf("%s%s, not blueprint %s's current spec (%s): its staged rollout has not reached this Gateway", revisionMessagePrefix, revision, bp, latest)
	}
	return c
}

// rolloutNeeds says whether the blueprint's staged rollout renders Gateways from the revision:
// it is kept beyond the history while it does.
func rolloutNeeds(bp *v1alpha1.GatewayClassBlueprint, revision string) bool {
	st := bp.Status.Rollout
	return st != nil && (st.From == revision || st.Revision == revision)
}
