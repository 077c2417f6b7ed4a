package controllers_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
)

// proxyTemplate renders a Deployment per Gateway: it is ready only when the test, standing in
// for the kubelet and controller-manager envtest does not run, says so.
const proxyTemplate = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Gateway.metadata.name }}-proxy
spec:
  replicas: 1
  selector: {matchLabels: {app: proxy}}
  template:
    metadata: {labels: {app: proxy}}
    spec:
      containers: [{name: proxy, image: "registry.example.com/proxy:{{ .Values.v }}"}]
`

// TestStagedRollout: issue 23, item 3. A blueprint asks for a staged rollout: a canary set,
// then half the fleet, then all of it. A revision whose readiness never passes stops at its
// first step with the rest of the fleet untouched, and the blueprint, the class and an Event
// say so; undo takes the canaries back at once. A good revision goes step by step, each step
// taken only once the Gateways reached are healthy; it can be paused, survives a controller
// restart mid-rollout where it was, and completes.
func TestStagedRollout(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	bp := blueprint("staged", `{"v": "1"}`, map[string]string{"values": valuesTemplate})
	bp.Spec.Rollout = &v1alpha1.Rollout{
		Steps: []v1alpha1.RolloutStep{
			{GatewaySelector: &metav1.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}},
			{Percent: ptr(int32(50))},
		},
		ProgressDeadlineSeconds: ptr(int32(4)),
	}
	class := setup(t, ns, bp)
	// Each Gateway in a namespace of its own: percentage steps count namespaces.
	names := []string{"canary", "g1", "g2", "g3", "g4", "g5"}
	nsOf := map[string]string{"canary": ns}
	for _, n := range names[1:] {
		nsOf[n] = namespace(t, nil)
	}
	for _, n := range names {
		gw := gateway(nsOf[n], n, class)
		if n == "canary" {
			gw.Labels = map[string]string{"canary": "true"}
		}
		create(t, gw)
	}
	rev1 := v1alpha1.RevisionName(bp.Name, &bp.Spec)

	// values reads what each Gateway was rendered with, and which revision its status names.
	values := func() (map[string]string, map[string]string, error) {
		vs, revs := map[string]string{}, map[string]string{}
		for _, n := range names {
			v, err := renderedValues(ctx, nsOf[n], n)
			if err != nil {
				return nil, nil, err
			}
			vs[n] = fmt.Sprint(v["v"])
			gw := &gwv1.Gateway{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: nsOf[n], Name: n}, gw); err != nil {
				return nil, nil, err
			}
			c := meta.FindStatusCondition(gw.Status.Conditions, controllers.ConditionBlueprintRevision)
			if c == nil {
				return nil, nil, fmt.Errorf("Gateway %s has no %s", n, controllers.ConditionBlueprintRevision)
			}
			revs[n] = c.Reason + " " + c.Message
		}
		return vs, revs, nil
	}
	// fleet waits until exactly the Gateways in want have value v (and are on revision rev), the
	// others other (on revision otherRev), and returns those that have v.
	fleet := func(v, rev, other, otherRev string, want func(n []string) error) []string {
		t.Helper()
		var got []string
		eventually(t, fmt.Sprintf("Gateways on %s or %s", v, other), func() error {
			vs, revs, err := values()
			if err != nil {
				return err
			}
			got = nil
			for _, n := range names {
				switch {
				case vs[n] == v && strings.Contains(revs[n], rev):
					got = append(got, n)
				case vs[n] == other && strings.Contains(revs[n], otherRev):
				default:
					return fmt.Errorf("Gateway %s has value %s, revision %s", n, vs[n], revs[n])
				}
			}
			return want(got)
		})
		return got
	}
	exactly := func(want ...string) func([]string) error {
		return func(got []string) error {
			if !slices.Equal(got, want) {
				return fmt.Errorf("on the new revision: %v, want %v", got, want)
			}
			return nil
		}
	}
	rollout := func(phase string, step int32, says string) *v1alpha1.RolloutStatus {
		t.Helper()
		var st *v1alpha1.RolloutStatus
		eventually(t, fmt.Sprintf("rollout %s at step %d saying %q", phase, step, says), func() error {
			got := &v1alpha1.GatewayClassBlueprint{}
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(bp), got); err != nil {
				return err
			}
			st = got.Status.Rollout
			if st == nil || st.Phase != phase || st.Step != step || !strings.Contains(st.Message, says) {
				return fmt.Errorf("status.rollout = %+v", st)
			}
			return nil
		})
		return st
	}
	classSays := func(status metav1.ConditionStatus, reason string, says ...string) {
		t.Helper()
		eventually(t, "class condition "+reason, func() error {
			c := &gwv1.GatewayClass{}
			if err := k8s.Get(ctx, client.ObjectKey{Name: class}, c); err != nil {
				return err
			}
			got := meta.FindStatusCondition(c.Status.Conditions, controllers.ConditionRollout)
			if got == nil || got.Status != status || got.Reason != reason {
				return fmt.Errorf("class %s = %+v", controllers.ConditionRollout, got)
			}
			for _, s := range says {
				if !strings.Contains(got.Message, s) {
					return fmt.Errorf("class %s says %q, not %q", controllers.ConditionRollout, got.Message, s)
				}
			}
			return nil
		})
	}
	ready := func(gws ...string) {
		t.Helper()
		for _, n := range gws {
			eventually(t, "Deployment of "+n+" ready", func() error {
				dep := &appsv1.Deployment{}
				if err := k8s.Get(ctx, client.ObjectKey{Namespace: nsOf[n], Name: n + "-proxy"}, dep); err != nil {
					return err
				}
				dep.Status = appsv1.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1,
					Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"},
						{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"}}}
				return k8s.Status().Update(ctx, dep)
			})
		}
	}

	// The first revision is nothing to roll from: every Gateway takes it.
	fleet("1", rev1, "-", "-", exactly(names...))
	rollout(v1alpha1.RolloutComplete, 3, "")

	// A bad revision: its Deployments never become ready.
	update(t, bp, func(b *v1alpha1.GatewayClassBlueprint) {
		b.Spec.Values.Default = raw(`{"v": "2"}`)
		b.Spec.GatewayTemplate.ResourceTemplates["proxy"] = proxyTemplate
	})
	rev2 := v1alpha1.RevisionName(bp.Name, &bp.Spec)
	st := rollout(v1alpha1.RolloutStopped, 1, "Gateway "+ns+"/canary: not healthy")
	if st.Revision != rev2 || st.From != rev1 || st.Updated != 1 || st.Gateways != 6 {
		t.Errorf("stopped rollout: %+v", st)
	}
	fleet("2", rev2, "1", controllers.ReasonPrevious+" "+"rendered from GatewayClassBlueprintRevision "+rev1, exactly("canary"))
	classSays(metav1.ConditionFalse, v1alpha1.RolloutStopped, "1 of 6 Gateways updated", "1 on "+rev2, "5 on "+rev1)
	for _, n := range names[1:] {
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: nsOf[n], Name: n + "-proxy"}, &appsv1.Deployment{}); !apierrors.IsNotFound(err) {
			t.Errorf("Gateway %s, which the rollout did not reach, has the bad revision's Deployment: %v", n, err)
		}
	}
	eventually(t, "a RolloutStopped Event", func() error {
		evs := &eventsv1.EventList{}
		if err := k8s.List(ctx, evs); err != nil {
			return err
		}
		for _, e := range evs.Items {
			if e.Regarding.Name == bp.Name && e.Reason == "RolloutStopped" && strings.Contains(e.Note, "canary") {
				return nil
			}
		}
		return fmt.Errorf("no RolloutStopped Event for %s among %d", bp.Name, len(evs.Items))
	})

	// Undo: the canary goes back at once; the bad revision's Deployment with it.
	if to, err := controllers.UndoRollout(ctx, k8s, controllerNS, bp.Name, ""); err != nil || to != rev1 {
		t.Fatalf("undo: %s, %v", to, err)
	}
	fleet("1", rev1, "-", "-", exactly(names...))
	rollout(v1alpha1.RolloutComplete, 3, "")
	waitGone(t, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: nsOf["canary"], Name: "canary-proxy"}})
	classSays(metav1.ConditionTrue, v1alpha1.RolloutComplete, "6 of 6 Gateways updated")

	// A good revision, paused before it starts: nothing moves.
	update(t, bp, func(b *v1alpha1.GatewayClassBlueprint) {
		b.Spec.Values.Default = raw(`{"v": "3"}`)
		b.Spec.GatewayTemplate.ResourceTemplates["proxy"] = proxyTemplate
		b.Spec.Rollout.Paused = true
		b.Spec.Rollout.ProgressDeadlineSeconds = ptr(int32(600))
	})
	rev3 := v1alpha1.RevisionName(bp.Name, &bp.Spec)
	rollout(v1alpha1.RolloutPaused, 0, "paused at step 0")
	time.Sleep(2 * time.Second) // a step wrongly taken would move a Gateway by now
	fleet("3", rev3, "1", rev1, exactly())

	// Resumed: the canary first, and no further until it is healthy.
	if err := controllers.ResumeRollout(ctx, k8s, bp.Name); err != nil {
		t.Fatal(err)
	}
	rollout(v1alpha1.RolloutProgressing, 1, "waiting for 1 Gateways")
	fleet("3", rev3, "1", rev1, exactly("canary"))
	ready("canary")
	// Half the namespaces, in the order the hash fixes: 3 of 6, the canary's or not.
	rollout(v1alpha1.RolloutProgressing, 2, "waiting for")
	half := fleet("3", rev3, "1", rev1, func(got []string) error {
		if len(got) < 3 || len(got) > 4 || !slices.Contains(got, "canary") {
			return fmt.Errorf("on the new revision: %v, want the canary and the Gateways of 3 of the 6 namespaces", got)
		}
		return nil
	})

	// A restart mid-rollout goes on where it was: the same step, the same Gateways.
	restartController(t)
	time.Sleep(2 * time.Second)
	rollout(v1alpha1.RolloutProgressing, 2, fmt.Sprintf("waiting for %d Gateways", len(half)-1))
	fleet("3", rev3, "1", rev1, exactly(half...))
	ready(half...)
	rollout(v1alpha1.RolloutProgressing, 3, fmt.Sprintf("waiting for %d Gateways", len(names)-len(half)))
	fleet("3", rev3, "-", "-", exactly(names...))
	ready(names...)
	rollout(v1alpha1.RolloutComplete, 3, "every Gateway reached renders from revision "+rev3)
	classSays(metav1.ConditionTrue, v1alpha1.RolloutComplete, "6 of 6 Gateways updated, 6 healthy")
}

// TestRolloutIsNotHeldByAGatewayBrokenBefore: a tenant whose Gateway fails to render for its
// own values, and who labels it into the canary set, cannot hold the platform's rollout: a
// Gateway already failing before a step began is not what the step is judged on. The rollout
// completes, and the tenant's Gateway still says why it fails.
func TestRolloutIsNotHeldByAGatewayBrokenBefore(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	bp := blueprint("held", `{"v": "1"}`, map[string]string{
		"values": valuesTemplate,
		"guard":  `{{ if eq (toString .Values.mode) "broken" }}{{ fail "mode broken is not served" }}{{ end }}`,
	})
	bp.Spec.Rollout = &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{
		{GatewaySelector: &metav1.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}},
	}, ProgressDeadlineSeconds: ptr(int32(600))}
	class := setup(t, ns, bp)
	good, broken := gateway(ns, "good", class), gateway(ns, "broken", class)
	broken.Labels = map[string]string{"canary": "true"}
	create(t, good, broken, gatewayConfig(ns, "mine", "Gateway", "broken", `{"mode": "broken"}`, ""))
	waitValues(t, ns, "good", `{"v": "1"}`)
	waitGateway(t, ns, "broken", "Programmed", metav1.ConditionFalse, "RenderFailed")
	time.Sleep(1100 * time.Millisecond) // the step begins in a later second than the failure

	update(t, bp, func(b *v1alpha1.GatewayClassBlueprint) { b.Spec.Values.Default = raw(`{"v": "2"}`) })
	eventually(t, "the rollout completes", func() error {
		got := &v1alpha1.GatewayClassBlueprint{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(bp), got); err != nil {
			return err
		}
		if st := got.Status.Rollout; st == nil || st.Phase != v1alpha1.RolloutComplete || st.Revision != v1alpha1.RevisionName(bp.Name, &got.Spec) {
			return fmt.Errorf("status.rollout = %+v", st)
		}
		return nil
	})
	waitValues(t, ns, "good", `{"v": "2"}`)
	gw := waitGateway(t, ns, "broken", "Programmed", metav1.ConditionFalse, "RenderFailed")
	if c := meta.FindStatusCondition(gw.Status.Conditions, "Programmed"); !strings.Contains(c.Message, "mode broken is not served") {
		t.Errorf("the broken Gateway no longer says why: %s", c.Message)
	}
}

// TestClassWideConfigIsARevision: issue 23, item 1. A change of a class-wide GatewayClassConfig
// changes every Gateway of the class, so it is a revision too, kept with the policies as they
// were, and a staged rollout takes it in steps: while paused, no Gateway takes the new values,
// though the policy already says them; resumed, they reach the fleet; undo puts the policy back
// as the revision had it, and the Gateways render what they rendered before.
func TestClassWideConfigIsARevision(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	other := namespace(t, nil)
	bp := blueprint("classwide", `{"v": "blueprint"}`, map[string]string{"values": valuesTemplate})
	bp.Spec.Rollout = &v1alpha1.Rollout{Steps: []v1alpha1.RolloutStep{{GatewaySelector: &metav1.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}}}}
	class := setup(t, ns, bp)
	gcc := gatewayClassConfig(controllerNS, "sizing-"+ns, "GatewayClass", class, `{"v": "one"}`, "")
	create(t, gcc, gateway(ns, "web", class), gateway(other, "api", class))
	waitValues(t, ns, "web", `{"v": "one"}`)
	waitValues(t, other, "api", `{"v": "one"}`)
	revisionOf := func(gwNS, name string) string {
		gw := &gwv1.Gateway{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: gwNS, Name: name}, gw); err != nil {
			return err.Error()
		}
		if c := meta.FindStatusCondition(gw.Status.Conditions, controllers.ConditionBlueprintRevision); c != nil {
			return c.Reason + ": " + c.Message
		}
		return "none"
	}
	var first string
	eventually(t, "a revision with the class-wide config", func() error {
		got := &v1alpha1.GatewayClassBlueprint{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(bp), got); err != nil {
			return err
		}
		rev := &v1alpha1.GatewayClassBlueprintRevision{}
		if err := k8s.Get(ctx, client.ObjectKey{Name: got.Status.LatestRevision}, rev); err != nil {
			return err
		}
		if len(rev.Spec.ClassConfigs) != 1 || rev.Spec.ClassConfigs[0].Name != gcc.Name || string(rev.Spec.ClassConfigs[0].Spec.Default.Raw) != `{"v":"one"}` {
			return fmt.Errorf("revision %s keeps %+v", rev.Name, rev.Spec.ClassConfigs)
		}
		if got.Status.Rollout == nil || got.Status.Rollout.Phase != v1alpha1.RolloutComplete || got.Status.Rollout.Revision != rev.Name {
			return fmt.Errorf("rollout %+v", got.Status.Rollout)
		}
		if r := revisionOf(ns, "web"); !strings.Contains(r, rev.Name) {
			return fmt.Errorf("web: %s", r)
		}
		first = rev.Name
		return nil
	})

	// Paused, then the policy changes: a new revision, and no Gateway takes it.
	update(t, bp, func(b *v1alpha1.GatewayClassBlueprint) { b.Spec.Rollout.Paused = true })
	update(t, gcc, func(p *v1alpha1.GatewayClassConfig) { p.Spec.Default = raw(`{"v": "two"}`) })
	var second string
	eventually(t, "a second revision, paused", func() error {
		got := &v1alpha1.GatewayClassBlueprint{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(bp), got); err != nil {
			return err
		}
		if st := got.Status.Rollout; st == nil || st.Phase != v1alpha1.RolloutPaused || st.Revision == first || st.From != first {
			return fmt.Errorf("rollout %+v", st)
		}
		second = got.Status.Rollout.Revision
		return nil
	})
	time.Sleep(2 * time.Second) // a Gateway wrongly given the new values would have them by now
	waitValues(t, ns, "web", `{"v": "one"}`)
	waitValues(t, other, "api", `{"v": "one"}`)
	if r := revisionOf(ns, "web"); !strings.HasPrefix(r, controllers.ReasonPrevious+": ") || !strings.Contains(r, first) {
		t.Errorf("web, not reached: %s; want Previous, naming %s", r, first)
	}

	// Resumed: the fleet takes the new values.
	if err := controllers.PauseRollout(ctx, k8s, bp.Name, false); err != nil {
		t.Fatal(err)
	}
	waitValues(t, ns, "web", `{"v": "two"}`)
	waitValues(t, other, "api", `{"v": "two"}`)
	eventually(t, "web on the second revision", func() error {
		if r := revisionOf(ns, "web"); !strings.Contains(r, second) {
			return fmt.Errorf("web: %s", r)
		}
		return nil
	})

	// Undo: the policy as the first revision had it, and the values with it.
	if to, err := controllers.UndoRollout(ctx, k8s, controllerNS, bp.Name, ""); err != nil || to != first {
		t.Fatalf("undo: %s, %v", to, err)
	}
	got := &v1alpha1.GatewayClassConfig{}
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(gcc), got); err != nil || string(got.Spec.Default.Raw) != `{"v":"one"}` {
		t.Errorf("the class-wide policy after undo: %v, %s", err, got.Spec.Default.Raw)
	}
	waitValues(t, ns, "web", `{"v": "one"}`)
	waitValues(t, other, "api", `{"v": "one"}`)
}
