package controllers

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// What a platform engineer does to a staged rollout (`gantry rollout`). Each reads the
// blueprint and writes it back with its resourceVersion, and on a conflict (the controller writes
// the blueprint's status often during a rollout) reads it again and makes its one change there,
// so nothing written meanwhile is lost.

// PauseRollout sets or clears the blueprint's spec.rollout.paused. Paused, no step is taken;
// Gateways already reached keep the new revision.
func PauseRollout(ctx context.Context, c client.Client, blueprint string, paused bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		bp, err := rolloutBlueprint(ctx, c, blueprint)
		if err != nil {
			return err
		}
		if bp.Spec.Rollout.Paused == paused {
			return nil
		}
		bp.Spec.Rollout.Paused = paused
		return wrapBlueprint(blueprint, c.Update(ctx, bp))
	})
}

// wrapBlueprint names the blueprint in err, keeping it a conflict for RetryOnConflict.
func wrapBlueprint(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("GatewayClassBlueprint %s: %w", name, err)
}

// ResumeRollout unpauses the rollout and, when it stopped, goes on from its step with a new
// deadline, accepting the Gateways that fail now: they no longer hold it, as if they had been
// broken before it began (a tenant's Gateway broken on purpose cannot keep a rollout stopped).
// Whoever resumes has looked at why it stopped; a Gateway that breaks from then on stops it
// again.
func ResumeRollout(ctx context.Context, c client.Client, blueprint string) error {
	if err := PauseRollout(ctx, c, blueprint, false); err != nil {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		bp, err := rolloutBlueprint(ctx, c, blueprint)
		if err != nil {
			return err
		}
		st := bp.Status.Rollout
		if st == nil || st.Phase != v1alpha1.RolloutStopped {
			return nil
		}
		patch := client.MergeFromWithOptions(bp.DeepCopy(), client.MergeFromWithOptimisticLock{})
		now := metav1.NewTime(time.Now().Truncate(time.Second))
		st.Phase, st.WaitingSince, st.HealthBaseline = v1alpha1.RolloutProgressing, &now, &now
		st.Message = fmt.Sprintf("resumed at step %d of %d, accepting the Gateways failing then", st.Step, st.Steps)
		return wrapBlueprint(blueprint, c.Status().Patch(ctx, bp, patch))
	})
}

// UndoRollout puts a revision's template back into the blueprint's spec, keeping its rollout,
// and its class-wide GatewayClassConfigs back into controllerNamespace (made again if deleted
// since, deleted if made since): by default the revision the fleet was on before the rollout
// (status.rollout.from), else the one named (by name or number). It returns the revision's name.
//
// Undoing a rollout that had not completed moves the Gateways it reached back at once (the rest
// never left that revision); undoing a completed one is a rollout like any other.
func UndoRollout(ctx context.Context, c client.Client, controllerNamespace, blueprint, to string) (string, error) {
	bp, err := rolloutBlueprint(ctx, c, blueprint)
	if err != nil {
		return "", err
	}
	if to == "" {
		if bp.Status.Rollout == nil || bp.Status.Rollout.From == "" {
			return "", fmt.Errorf("GatewayClassBlueprint %s: no earlier revision to go back to (status.rollout.from is empty); name one", blueprint)
		}
		to = bp.Status.Rollout.From
	}
	rev, err := findRevision(ctx, c, blueprint, to)
	if err != nil {
		return "", err
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if bp == nil {
			if bp, err = rolloutBlueprint(ctx, c, blueprint); err != nil {
				return err
			}
		}
		rollout := bp.Spec.Rollout
		bp.Spec = *rev.Spec.Template.DeepCopy()
		bp.Spec.Rollout = rollout
		err := c.Update(ctx, bp)
		bp = nil // read again on a conflict
		return wrapBlueprint(blueprint, err)
	})
	if err != nil {
		return "", err
	}
	if err := restoreClassConfigs(ctx, c, controllerNamespace, blueprint, rev.Spec.ClassConfigs); err != nil {
		return "", fmt.Errorf("blueprint %s set back to revision %s, but its class-wide GatewayClassConfigs not: %w", blueprint, rev.Name, err)
	}
	return rev.Name, nil
}

// restoreClassConfigs makes the class-wide GatewayClassConfigs of the blueprint's classes what
// a revision kept: each set back or made again, and one made since deleted.
func restoreClassConfigs(ctx context.Context, c client.Client, controllerNamespace, blueprint string, want []v1alpha1.ClassConfig) error {
	live, err := classConfigs(ctx, c, controllerNamespace, blueprint)
	if err != nil {
		return err
	}
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[w.Name] = true
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			p := &v1alpha1.GatewayClassConfig{}
			switch err := c.Get(ctx, client.ObjectKey{Namespace: w.Namespace, Name: w.Name}, p); {
			case apierrors.IsNotFound(err):
				p = &v1alpha1.GatewayClassConfig{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name}, Spec: *w.Spec.DeepCopy()}
				return c.Create(ctx, p)
			case err != nil:
				return err
			}
			if equality.Semantic.DeepEqual(p.Spec, w.Spec) {
				return nil
			}
			p.Spec = *w.Spec.DeepCopy()
			return c.Update(ctx, p)
		})
		if err != nil {
			return fmt.Errorf("GatewayClassConfig %s/%s: %w", w.Namespace, w.Name, err)
		}
	}
	for _, l := range live {
		if !wanted[l.Name] {
			p := &v1alpha1.GatewayClassConfig{ObjectMeta: metav1.ObjectMeta{Namespace: l.Namespace, Name: l.Name}}
			if err := c.Delete(ctx, p); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("GatewayClassConfig %s/%s: %w", l.Namespace, l.Name, err)
			}
		}
	}
	return nil
}

// findRevision finds a blueprint's revision by name or by number.
func findRevision(ctx context.Context, c client.Client, blueprint, to string) (*v1alpha1.GatewayClassBlueprintRevision, error) {
	if n, err := strconv.ParseInt(to, 10, 64); err == nil {
		l := &v1alpha1.GatewayClassBlueprintRevisionList{}
		if err := c.List(ctx, l, client.MatchingLabels{v1alpha1.LabelBlueprint: desired.LabelValue(blueprint)}); err != nil {
			return nil, err
		}
		for i := range l.Items {
			if l.Items[i].Spec.Blueprint == blueprint && l.Items[i].Spec.Revision == n {
				return &l.Items[i], nil
			}
		}
		return nil, fmt.Errorf("GatewayClassBlueprint %s has no revision %d", blueprint, n)
	}
	rev := &v1alpha1.GatewayClassBlueprintRevision{}
	if err := c.Get(ctx, client.ObjectKey{Name: to}, rev); err != nil {
		return nil, fmt.Errorf("GatewayClassBlueprintRevision %s: %w", to, err)
	}
	if rev.Spec.Blueprint != blueprint {
		return nil, fmt.Errorf("GatewayClassBlueprintRevision %s is a revision of %s, not of %s", to, rev.Spec.Blueprint, blueprint)
	}
	return rev, nil
}

func rolloutBlueprint(ctx context.Context, c client.Client, name string) (*v1alpha1.GatewayClassBlueprint, error) {
	bp := &v1alpha1.GatewayClassBlueprint{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, bp); err != nil {
		return nil, fmt.Errorf("GatewayClassBlueprint %s: %w", name, err)
	}
	if bp.Spec.Rollout == nil {
		return nil, fmt.Errorf("GatewayClassBlueprint %s asks for no staged rollout (spec.rollout is not set)", name)
	}
	return bp, nil
}
