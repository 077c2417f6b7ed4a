package controllers_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
)

// setValues replaces a policy's stanzas.
func setValues(t *testing.T, p client.Object, def, ovr string) {
	t.Helper()
	switch p := p.(type) {
	case *v1alpha1.GatewayConfig:
		update(t, p, func(p *v1alpha1.GatewayConfig) { p.Spec.Default, p.Spec.Override = raw(def), raw(ovr) })
	case *v1alpha1.GatewayClassConfig:
		update(t, p, func(p *v1alpha1.GatewayClassConfig) { p.Spec.Default, p.Spec.Override = raw(def), raw(ovr) })
	default:
		t.Fatalf("%T is not a policy", p)
	}
}

// jsonOf encodes a values map for waitValues.
func jsonOf(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// waitTargetCondition waits until a Gateway or GatewayClass has (present) or lacks a condition.
func waitTargetCondition(t *testing.T, o client.Object, typ string, present bool, msg ...string) {
	t.Helper()
	eventually(t, fmt.Sprintf("%T %s condition %s present=%v", o, o.GetName(), typ, present), func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(o), o); err != nil {
			return err
		}
		var conds []metav1.Condition
		switch o := o.(type) {
		case *gwv1.Gateway:
			conds = o.Status.Conditions
		case *gwv1.GatewayClass:
			conds = o.Status.Conditions
		}
		c := meta.FindStatusCondition(conds, typ)
		if !present {
			if c != nil {
				return fmt.Errorf("%s still set: %s", typ, c.Message)
			}
			return nil
		}
		if err := conditionIs(conds, typ, metav1.ConditionTrue, controllers.ReasonAffected, o.GetGeneration()); err != nil {
			return err
		}
		for _, m := range msg {
			if !strings.Contains(c.Message, m) {
				return fmt.Errorf("%s message %q does not name %q", typ, c.Message, m)
			}
		}
		return nil
	})
}

// TestPolicyLevels adds, changes and deletes a policy at each of the six levels of one
// Gateway's chain, checking after each step the values the template sees, each policy's
// status and the Affected conditions on the targets.
func TestPolicyLevels(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	bp := blueprint("levels", `{"level": "blueprint", "l0": "a"}`, map[string]string{"values": valuesTemplate})
	class := setup(t, ns, bp)
	gw := gateway(ns, "web", class)
	create(t, gw)
	want := map[string]any{"level": "blueprint", "l0": "a"}
	waitValues(t, ns, "web", jsonOf(t, want))

	// Level 0: the blueprint's own values.
	update(t, bp, func(bp *v1alpha1.GatewayClassBlueprint) {
		bp.Spec.Values.Default = raw(`{"level": "blueprint", "l0": "b"}`)
	})
	want["l0"] = "b"
	waitValues(t, ns, "web", jsonOf(t, want))

	// Levels 1 to 5, each added below the previous one: its default of "level" wins (more
	// specific), the one above keeps only its own key and is PartiallyEnforced.
	policies := []client.Object{
		gatewayClassConfig(controllerNS, "global-"+ns, "GatewayClass", class, "", ""), // 1
		gatewayClassConfig(ns, "for-namespace", "Namespace", ns, "", ""),              // 2
		gatewayClassConfig(ns, "for-class", "GatewayClass", class, "", ""),            // 3
		gatewayConfig(ns, "for-namespace", "Namespace", ns, "", ""),                   // 4
		gatewayConfig(ns, "for-gateway", "Gateway", "web", "", ""),                    // 5
	}
	for i, p := range policies {
		level := i + 1
		key := fmt.Sprintf("l%d", level)
		def := func(v string) string { return fmt.Sprintf(`{"level": "L%d", %q: %q}`, level, key, v) }
		switch p := p.(type) {
		case *v1alpha1.GatewayConfig:
			p.Spec.Default = raw(def("v1"))
		case *v1alpha1.GatewayClassConfig:
			p.Spec.Default = raw(def("v1"))
		}
		create(t, p)
		want["level"], want[key] = fmt.Sprintf("L%d", level), "v1"
		waitValues(t, ns, "web", jsonOf(t, want))
		waitPolicy(t, p, ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
		if i > 0 {
			waitPolicy(t, policies[i-1], ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "PartiallyEnforced")
		}

		setValues(t, p, def("v2"), "")
		want[key] = "v2"
		waitValues(t, ns, "web", jsonOf(t, want))
		waitPolicy(t, p, ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
	}
	waitTargetCondition(t, gw, controllers.ConditionGatewayConfigAffected, true, "for-namespace", "for-gateway")
	waitTargetCondition(t, gw, controllers.ConditionGatewayClassConfigAffected, true, "global-"+ns, "for-class")
	waitTargetCondition(t, &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: class}}, controllers.ConditionGatewayClassConfigAffected, true, controllerNS+"/global-"+ns, ns+"/for-class")

	// A global override beats everything below it: the Gateway's own policy loses all its
	// values and is Overridden, and says by what; removing the override gives them back.
	global, mine := policies[0], policies[4]
	setValues(t, global, `{"level": "L1", "l1": "v2"}`, `{"level": "forced", "l5": "forced"}`)
	want["level"], want["l5"] = "forced", "forced"
	waitValues(t, ns, "web", jsonOf(t, want))
	waitPolicy(t, mine, ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionFalse, "Overridden")
	// The global policy's own default of "level" lost to the levels below, but its override
	// put "level" back: every value it sets is in effect.
	waitPolicy(t, global, ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
	setValues(t, global, `{"level": "L1", "l1": "v2"}`, "")
	want["level"], want["l5"] = "L5", "v2"
	waitValues(t, ns, "web", jsonOf(t, want))
	waitPolicy(t, mine, ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")

	// Deleting from the most specific up: each time the next one's values take over again.
	for i := len(policies) - 1; i >= 0; i-- {
		if err := k8s.Delete(ctx, policies[i]); err != nil {
			t.Fatal(err)
		}
		delete(want, fmt.Sprintf("l%d", i+1))
		want["level"] = fmt.Sprintf("L%d", i)
		if i == 0 {
			want["level"] = "blueprint"
		}
		waitValues(t, ns, "web", jsonOf(t, want))
		if i > 0 {
			waitPolicy(t, policies[i-1], ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
		}
		if i == 3 {
			waitTargetCondition(t, gw, controllers.ConditionGatewayConfigAffected, false)
		}
	}
	waitTargetCondition(t, gw, controllers.ConditionGatewayClassConfigAffected, false)
	waitTargetCondition(t, &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: class}}, controllers.ConditionGatewayClassConfigAffected, false)
}

// TestPolicyConflicted: two overrides on the same Gateway fight; GEP-713 orders the older (or,
// created in the same second, the alphabetically first) higher, and the other is Conflicted.
func TestPolicyConflicted(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("conflict", `{"x": "blueprint"}`, map[string]string{"values": valuesTemplate}))
	create(t, gateway(ns, "web", class))
	first := gatewayConfig(ns, "a-first", "Gateway", "web", "", `{"x": "first"}`)
	create(t, first)
	waitValues(t, ns, "web", `{"x": "first"}`)
	second := gatewayConfig(ns, "b-second", "Gateway", "web", "", `{"x": "second"}`)
	create(t, second)

	waitPolicy(t, second, ns, "web", metav1.ConditionFalse, "Conflicted", metav1.ConditionFalse, "Overridden")
	waitPolicy(t, first, ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
	st, _, err := policyStatus(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := ancestor(st, ns, "web"); !strings.Contains(meta.FindStatusCondition(a.Conditions, "Accepted").Message, "a-first") {
		t.Errorf("Conflicted does not name the winner: %s", describeAncestors(st))
	}
	waitValues(t, ns, "web", `{"x": "first"}`)

	if err := k8s.Delete(ctx, first); err != nil {
		t.Fatal(err)
	}
	waitValues(t, ns, "web", `{"x": "second"}`)
	waitPolicy(t, second, ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
}

// TestPolicyTargetNotFound: a policy whose target does not exist says so; when the target
// appears it applies, and when it goes again the policy says so again, with nothing left of
// its enforcement.
func TestPolicyTargetNotFound(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("notfound", `{"x": "blueprint"}`, map[string]string{"values": valuesTemplate}))
	gc := gatewayConfig(ns, "for-later", "Gateway", "later", `{"x": "policy"}`, "")
	gcc := gatewayClassConfig(ns, "no-class", "GatewayClass", "nope-"+ns, `{"x": "class"}`, "")
	create(t, gc, gcc)
	waitPolicyTarget(t, gc, metav1.ConditionFalse, "TargetNotFound")
	waitPolicyTarget(t, gcc, metav1.ConditionFalse, "TargetNotFound")

	gw := gateway(ns, "later", class)
	create(t, gw)
	waitValues(t, ns, "later", `{"x": "policy"}`)
	waitPolicy(t, gc, ns, "later", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")

	if err := k8s.Delete(ctx, gw); err != nil {
		t.Fatal(err)
	}
	waitPolicyTarget(t, gc, metav1.ConditionFalse, "TargetNotFound")
	waitPolicyTarget(t, gcc, metav1.ConditionFalse, "TargetNotFound")
}

// TestPolicyInvalidNamespaceTarget: a policy may target only its own namespace; one naming
// another is Invalid and changes nothing.
func TestPolicyInvalidNamespaceTarget(t *testing.T) {
	ns := namespace(t, nil)
	other := namespace(t, nil)
	class := setup(t, ns, blueprint("invalid", `{"x": "blueprint"}`, map[string]string{"values": valuesTemplate}))
	create(t, gateway(other, "web", class))
	gc := gatewayConfig(ns, "elsewhere", "Namespace", other, `{"x": "gc"}`, "")
	gcc := gatewayClassConfig(ns, "elsewhere", "Namespace", other, `{"x": "gcc"}`, "")
	create(t, gc, gcc)
	waitPolicyTarget(t, gc, metav1.ConditionFalse, "Invalid")
	waitPolicyTarget(t, gcc, metav1.ConditionFalse, "Invalid")
	waitValues(t, other, "web", `{"x": "blueprint"}`)
	for _, p := range []client.Object{gc, gcc} {
		st, _, _ := policyStatus(t.Context(), p)
		if m := meta.FindStatusCondition(st.Ancestors[0].Conditions, "Accepted").Message; !strings.Contains(m, other) || !strings.Contains(m, ns) {
			t.Errorf("%T Invalid message %q does not name both namespaces", p, m)
		}
	}
}

// TestPolicyAncestorsFollowGateways: a policy's ancestors are exactly the Gateways it reaches
// now — a deleted Gateway and a Gateway the policy no longer targets drop out.
func TestPolicyAncestorsFollowGateways(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("ancestors", `{"x": "blueprint"}`, map[string]string{"values": valuesTemplate}))
	a, b := gateway(ns, "a", class), gateway(ns, "b", class)
	wide := gatewayConfig(ns, "wide", "Namespace", ns, `{"x": "wide"}`, "")
	narrow := gatewayConfig(ns, "narrow", "Gateway", "a", `{"y": "narrow"}`, "")
	create(t, a, b, wide, narrow)
	waitPolicy(t, wide, ns, "a", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
	waitPolicy(t, wide, ns, "b", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
	waitValues(t, ns, "a", `{"x": "wide", "y": "narrow"}`)

	// The narrow policy moves from a to b.
	update(t, narrow, func(p *v1alpha1.GatewayConfig) { p.Spec.TargetRef.Name = "b" })
	waitValues(t, ns, "a", `{"x": "wide"}`)
	waitValues(t, ns, "b", `{"x": "wide", "y": "narrow"}`)
	waitAncestors(t, narrow, ns, "b")

	// b goes: the wide policy reaches only a.
	if err := k8s.Delete(ctx, b); err != nil {
		t.Fatal(err)
	}
	waitAncestors(t, wide, ns, "a")
}

// waitAncestors waits until the policy's ancestors of ours are exactly the named Gateways.
func waitAncestors(t *testing.T, p client.Object, ns string, gws ...string) {
	t.Helper()
	eventually(t, fmt.Sprintf("%s ancestors %v", p.GetName(), gws), func() error {
		st, _, err := policyStatus(t.Context(), p)
		if err != nil {
			return err
		}
		if len(st.Ancestors) != len(gws) {
			return fmt.Errorf("ancestors = %s, want Gateways %v", describeAncestors(st), gws)
		}
		for _, gw := range gws {
			if _, err := ancestor(st, ns, gw); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestPolicyAncestorsAggregated: past 16 Gateways a policy lists 15 of them and one entry for
// its target that sums up the rest, within the API's limit.
func TestPolicyAncestorsAggregated(t *testing.T) {
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("many", `{"x": "blueprint"}`, map[string]string{"values": valuesTemplate}))
	p := gatewayClassConfig(ns, "for-class", "GatewayClass", class, `{"x": "policy"}`, "")
	create(t, p)
	for i := range 18 {
		create(t, gateway(ns, fmt.Sprintf("gw-%02d", i), class))
	}
	waitValues(t, ns, "gw-17", `{"x": "policy"}`)
	eventually(t, "aggregated ancestors", func() error {
		st, gen, err := policyStatus(t.Context(), p)
		if err != nil {
			return err
		}
		if len(st.Ancestors) != 16 {
			return fmt.Errorf("%d ancestors: %s", len(st.Ancestors), describeAncestors(st))
		}
		for i := range 15 {
			a := st.Ancestors[i]
			if want := fmt.Sprintf("gw-%02d", i); string(a.AncestorRef.Name) != want {
				return fmt.Errorf("ancestor %d = %s, want %s", i, a.AncestorRef.Name, want)
			}
			if err := policyConditions(&a, gen, metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced"); err != nil {
				return err
			}
		}
		last := st.Ancestors[15]
		if *last.AncestorRef.Kind != "GatewayClass" || string(last.AncestorRef.Name) != class {
			return fmt.Errorf("last ancestor = %s, want the GatewayClass", describeAncestors(st))
		}
		c := meta.FindStatusCondition(last.Conditions, "Accepted")
		if c == nil || c.Message != "and 3 more Gateways: 3 Enforced, 0 PartiallyEnforced, 0 Overridden" {
			return fmt.Errorf("aggregate = %s", describeAncestors(st))
		}
		return nil
	})
}

// TestPolicyTargetRefNamespace: a bifrost-style targetRef.namespace naming another namespace
// is Accepted=False/Invalid naming the field; the policy's own namespace is accepted.
func TestPolicyTargetRefNamespace(t *testing.T) {
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("target-ns", `{"x": "blueprint"}`, map[string]string{"values": valuesTemplate}))
	create(t, gateway(ns, "web", class))
	own := gatewayConfig(ns, "own", "Gateway", "web", `{"x": "own"}`, "")
	own.Spec.TargetRef.Namespace = ptr(gwv1.Namespace(ns))
	other := gatewayConfig(ns, "other", "Gateway", "web", "", `{"x": "other"}`)
	other.Spec.TargetRef.Namespace = ptr(gwv1.Namespace("team-z"))
	create(t, own, other)
	waitValues(t, ns, "web", `{"x": "own"}`)
	waitPolicyTarget(t, other, metav1.ConditionFalse, "Invalid")
}
