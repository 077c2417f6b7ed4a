package controllers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

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
	// controllerNamespace holds the class-wide GatewayClassConfigs, part of each revision.
	controllerNamespace string
}

func (r *revisionReconciler) setup(mgr ctrl.Manager, m *mapper) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("revision").
		For(&v1alpha1.GatewayClassBlueprint{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&v1alpha1.GatewayClassBlueprintRevision{}).
		// A class-wide GatewayClassConfig's change is a revision of its class's blueprint.
		Watches(&v1alpha1.GatewayClassConfig{}, handler.EnqueueRequestsFromMapFunc(m.classConfigBlueprints), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// So is a class coming to name the blueprint, or leaving it, with its class-wide configs.
		Watches(&gwv1.GatewayClass{}, handler.EnqueueRequestsFromMapFunc(classBlueprint), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}

// classBlueprint maps a Gantry GatewayClass to the blueprint it names (on an update, the old
// and the new one both come through here).
func classBlueprint(_ context.Context, o client.Object) []reconcile.Request {
	class := o.(*gwv1.GatewayClass)
	if class.Spec.ControllerName != v1alpha1.ControllerName {
		return nil
	}
	name, err := desired.BlueprintName(class)
	if err != nil {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: name}}}
}

// classConfigBlueprints maps a class-wide GatewayClassConfig (its old and new target both come
// through here on an update) to the blueprint of the class it targets.
func (m *mapper) classConfigBlueprints(ctx context.Context, o client.Object) []reconcile.Request {
	p := o.(*v1alpha1.GatewayClassConfig)
	if p.Namespace != m.controllerNamespace || p.Spec.TargetRef.Kind != "GatewayClass" {
		return nil
	}
	class := &gwv1.GatewayClass{}
	if err := m.c.Get(ctx, client.ObjectKey{Name: string(p.Spec.TargetRef.Name)}, class); err != nil {
		return nil
	}
	return classBlueprint(ctx, class)
}

// classConfigs are the class-wide GatewayClassConfigs of blueprint bp as a revision keeps them:
// those of the controller's namespace that target a Gantry GatewayClass naming bp, by class and
// then in their order of precedence.
func classConfigs(ctx context.Context, c client.Reader, controllerNamespace, bp string) ([]v1alpha1.ClassConfig, error) {
	out, _, err := classConfigsKeyed(ctx, c, controllerNamespace, bp)
	return out, err
}

// classConfigsKeyed is classConfigs and a key that changes whenever they do (their UIDs and
// resourceVersions).
func classConfigsKeyed(ctx context.Context, c client.Reader, controllerNamespace, bp string) ([]v1alpha1.ClassConfig, string, error) {
	// Plain lists, filtered here: the same code serves the controller's cache and the CLI's
	// client, which has no field indexes. Classes and the controller namespace's policies are
	// few; nothing listed is changed, so the cache's own objects are read, not copies.
	classes := &gwv1.GatewayClassList{}
	if err := c.List(ctx, classes, client.UnsafeDisableDeepCopy); err != nil {
		return nil, "", err
	}
	ours := map[string]bool{}
	for _, class := range classes.Items {
		if name, err := desired.BlueprintName(&class); err == nil && name == bp && class.Spec.ControllerName == v1alpha1.ControllerName {
			ours[class.Name] = true
		}
	}
	if len(ours) == 0 {
		return nil, "", nil
	}
	l := &v1alpha1.GatewayClassConfigList{}
	if err := c.List(ctx, l, client.InNamespace(controllerNamespace), client.UnsafeDisableDeepCopy); err != nil {
		return nil, "", err
	}
	var out []v1alpha1.ClassConfig
	var key []string
	for _, p := range l.Items {
		if p.DeletionTimestamp.IsZero() && p.Spec.TargetRef.Kind == "GatewayClass" && ours[string(p.Spec.TargetRef.Name)] {
			out = append(out, v1alpha1.ClassConfig{Namespace: p.Namespace, Name: p.Name, Created: p.CreationTimestamp, Spec: *p.Spec.DeepCopy()})
			key = append(key, string(p.UID)+"@"+p.ResourceVersion)
		}
	}
	slices.Sort(key)
	// By class, then in the order of precedence among policies of one level (GEP-713: the
	// older first, then by name).
	slices.SortFunc(out, func(a, b v1alpha1.ClassConfig) int {
		if c := strings.Compare(string(a.Spec.TargetRef.Name), string(b.Spec.TargetRef.Name)); c != 0 {
			return c
		}
		if c := a.Created.Compare(b.Created.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, strings.Join(key, ","), nil
}

// latestNames remembers latestRevision's answers: every reconcile of every Gateway asks, and the
// hash is of the whole spec. Keyed by blueprint, generation and the policies' key; a few
// thousand entries at most, dropped all at once beyond that.
var latestNames = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// latestRevision names the revision of bp as it is now, its spec and its class-wide
// GatewayClassConfigs, and returns those.
func latestRevision(ctx context.Context, c client.Reader, controllerNamespace string, bp *v1alpha1.GatewayClassBlueprint) (string, []v1alpha1.ClassConfig, error) {
	configs, key, err := classConfigsKeyed(ctx, c, controllerNamespace, bp.Name)
	if err != nil {
		return "", nil, fmt.Errorf("class-wide GatewayClassConfigs of blueprint %s: %w", bp.Name, err)
	}
	if bp.UID == "" || bp.Generation == 0 {
		return v1alpha1.RevisionNameWith(bp.Name, &bp.Spec, configs), configs, nil // not from the API server: no key to trust
	}
	k := fmt.Sprintf("%s/%s/%d/%s", bp.Name, bp.UID, bp.Generation, key)
	latestNames.Lock()
	name, ok := latestNames.m[k]
	latestNames.Unlock()
	if !ok {
		name = v1alpha1.RevisionNameWith(bp.Name, &bp.Spec, configs)
		latestNames.Lock()
		if len(latestNames.m) >= 4096 {
			latestNames.m = map[string]string{}
		}
		latestNames.m[k] = name
		latestNames.Unlock()
	}
	return name, configs, nil
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
	name, configs, err := latestRevision(ctx, r, r.controllerNamespace, bp)
	if err != nil {
		return ctrl.Result{}, err
	}
	i := slices.IndexFunc(revs, func(rev v1alpha1.GatewayClassBlueprintRevision) bool { return rev.Name == name })
	switch {
	case i < 0:
		rev := v1alpha1.GatewayClassBlueprintRevision{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1alpha1.LabelBlueprint: desired.LabelValue(bp.Name)}},
			Spec:       v1alpha1.GatewayClassBlueprintRevisionSpec{Blueprint: bp.Name, Revision: newest + 1, Template: *v1alpha1.RevisionTemplate(&bp.Spec).DeepCopy(), ClassConfigs: configs},
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
