package controllers_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
)

// TestBlueprintRevisions: issue 23, item 1. Every spec a blueprint has is kept as an immutable
// revision, named after the spec; the blueprint's status names the current one, each Gateway
// the one it was rendered from; going back to a spec makes its revision the newest again and
// renders what it rendered before; the newest RevisionHistory are kept.
func TestBlueprintRevisions(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	bp := blueprint("revs", `{"x": "1"}`, map[string]string{"values": valuesTemplate})
	class := setup(t, ns, bp)
	first := bp.Spec.DeepCopy()
	rev1 := v1alpha1.RevisionName(bp.Name, first)
	create(t, gateway(ns, "web", class))
	waitValues(t, ns, "web", `{"x": "1"}`)

	current := func(name string, number int64) {
		t.Helper()
		eventually(t, fmt.Sprintf("revision %s (%d) current", name, number), func() error {
			got := &v1alpha1.GatewayClassBlueprint{}
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(bp), got); err != nil {
				return err
			}
			if got.Status.LatestRevision != name || got.Status.Revision != number {
				return fmt.Errorf("blueprint status: latest %q revision %d", got.Status.LatestRevision, got.Status.Revision)
			}
			rev := &v1alpha1.GatewayClassBlueprintRevision{}
			if err := k8s.Get(ctx, client.ObjectKey{Name: name}, rev); err != nil {
				return err
			}
			if rev.Spec.Blueprint != bp.Name || rev.Spec.Revision != number || !reflect.DeepEqual(rev.Spec.Template, got.Spec) {
				return fmt.Errorf("revision %s: blueprint %q, number %d, template equal to the spec: %v", name, rev.Spec.Blueprint, rev.Spec.Revision, reflect.DeepEqual(rev.Spec.Template, got.Spec))
			}
			if ref := metav1.GetControllerOf(rev); ref == nil || ref.UID != got.UID {
				return fmt.Errorf("revision %s is not owned by its blueprint: %+v", name, rev.OwnerReferences)
			}
			gw := waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
			if c := meta.FindStatusCondition(gw.Status.Conditions, controllers.ConditionBlueprintRevision); c == nil || !strings.Contains(c.Message, name) || c.ObservedGeneration != gw.Generation {
				return fmt.Errorf("Gateway's %s = %+v, want it to name %s", controllers.ConditionBlueprintRevision, c, name)
			}
			return nil
		})
	}
	current(rev1, 1)

	update(t, bp, func(b *v1alpha1.GatewayClassBlueprint) { b.Spec.Values.Default = raw(`{"x": "2"}`) })
	waitValues(t, ns, "web", `{"x": "2"}`)
	second := bp.Spec.DeepCopy()
	rev2 := v1alpha1.RevisionName(bp.Name, second)
	current(rev2, 2)

	// A revision's template cannot change.
	old := &v1alpha1.GatewayClassBlueprintRevision{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: rev1}, old); err != nil {
		t.Fatal(err)
	}
	old.Spec.Template.Values.Default = raw(`{"x": "tampered"}`)
	if err := k8s.Update(ctx, old); err == nil || !strings.Contains(err.Error(), "immutable") {
		t.Errorf("a revision's template was changed: %v", err)
	}

	// Back to the first spec: its revision is the newest again, and renders what it did.
	update(t, bp, func(b *v1alpha1.GatewayClassBlueprint) { b.Spec = *first.DeepCopy() })
	waitValues(t, ns, "web", `{"x": "1"}`)
	current(rev1, 3)

	// Only the newest RevisionHistory stay.
	for i := range controllers.RevisionHistory + 2 {
		update(t, bp, func(b *v1alpha1.GatewayClassBlueprint) { b.Spec.Values.Default = raw(fmt.Sprintf(`{"x": "n%d"}`, i)) })
		waitValues(t, ns, "web", fmt.Sprintf(`{"x": "n%d"}`, i))
	}
	latest := v1alpha1.RevisionName(bp.Name, &bp.Spec)
	current(latest, int64(3+controllers.RevisionHistory+2))
	eventually(t, fmt.Sprintf("%d revisions kept", controllers.RevisionHistory), func() error {
		l := &v1alpha1.GatewayClassBlueprintRevisionList{}
		if err := k8s.List(ctx, l, client.MatchingLabels{v1alpha1.LabelBlueprint: bp.Name}); err != nil {
			return err
		}
		var low int64 = 1 << 62
		for _, r := range l.Items {
			low = min(low, r.Spec.Revision)
		}
		if len(l.Items) != controllers.RevisionHistory || low != int64(3+controllers.RevisionHistory+2-controllers.RevisionHistory+1) {
			return fmt.Errorf("%d revisions, the oldest number %d", len(l.Items), low)
		}
		return nil
	})
}
