package controllers

import (
	"math/rand/v2"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/precedence"
)

// TestReachesDirectlyIsWherePoliciesApply: a look trusts a wait on a Gateway for as long as
// reachesDirectly says the policy reaches it, so it must say so exactly where the precedence
// engine places the policy in the Gateway's chain (precedence.Applies, the oracle here), or where
// the Gateway names the GatewayConfig in spec.infrastructure.parametersRef; it must say nothing
// of a route's chain (those waits stay bounded). Random policies and Gateways over small pools of
// names, so that matches and near misses are both common.
func TestReachesDirectlyIsWherePoliciesApply(t *testing.T) {
	const controllerNS = "gantry-system"
	rng := rand.New(rand.NewPCG(7, 22))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	namespaces := []string{controllerNS, "a", "b"}
	var seen [2]int
	for range 20000 {
		ns := pick(namespaces...)
		// Mostly well-formed targets, so that policies reach Gateways often; the rest at random.
		ref := v1alpha1.PolicyTargetReference{Kind: gwv1.Kind(pick("GatewayClass", "Namespace", "Gateway", "HTTPRoute", "Service"))}
		ref.Group, ref.Name = gwv1.GroupName, gwv1.ObjectName(pick("x", "y"))
		switch ref.Kind {
		case "GatewayClass":
			ref.Name = gwv1.ObjectName(pick("c1", "c2"))
		case "Namespace":
			ref.Group, ref.Name = "", gwv1.ObjectName(pick(ns, ns, pick(namespaces...)))
		}
		if rng.IntN(5) == 0 {
			ref.Group = gwv1.Group(pick("", gwv1.GroupName, "example.com"))
			ref.Name = gwv1.ObjectName(pick(append([]string{"c1", "c2", "x", "y"}, namespaces...)...))
		}
		switch rng.IntN(3) {
		case 1:
			ref.Namespace = ptr(gwv1.Namespace(ns))
		case 2:
			ref.Namespace = ptr(gwv1.Namespace(pick(namespaces...)))
		}
		om := metav1.ObjectMeta{Namespace: ns, Name: pick("x", "y")}
		var p policyObject
		var pols []precedence.Policy
		var err error
		if rng.IntN(2) == 0 {
			o := &v1alpha1.GatewayClassConfig{ObjectMeta: om, Spec: v1alpha1.GatewayClassConfigSpec{TargetRef: ref}}
			p = o
			pols, err = desired.Policies([]*v1alpha1.GatewayClassConfig{o}, nil)
		} else {
			o := &v1alpha1.GatewayConfig{ObjectMeta: om, Spec: v1alpha1.GatewayConfigSpec{TargetRef: ref}}
			p = o
			pols, err = desired.Policies(nil, []*v1alpha1.GatewayConfig{o})
		}
		if err != nil || len(pols) != 1 {
			t.Fatalf("policy %+v: %v", ref, err)
		}
		gw := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: pick(ns, pick(namespaces...)), Name: pick("x", "y")},
			Spec: gwv1.GatewaySpec{GatewayClassName: gwv1.ObjectName(pick("c1", "c2"))}}
		named := false
		if rng.IntN(3) == 0 {
			pr := &gwv1.LocalParametersReference{Group: gwv1.Group(pick(v1alpha1.GroupName, gwv1.GroupName)), Kind: gwv1.Kind(pick("GatewayConfig", "ConfigMap")), Name: pick("x", "y")}
			gw.Spec.Infrastructure = &gwv1.GatewayInfrastructure{ParametersRef: pr}
			_, isGC := p.(*v1alpha1.GatewayConfig)
			named = isGC && gw.Namespace == ns && string(pr.Group) == v1alpha1.GroupName && pr.Kind == "GatewayConfig" && pr.Name == om.Name
		}
		level, why := precedence.Applies(&precedence.Input{ControllerNamespace: controllerNS, ClassName: string(gw.Spec.GatewayClassName),
			Gateway: precedence.ObjectKey{Namespace: gw.Namespace, Name: gw.Name}}, &pols[0])
		want := level != 0 || named
		if got := reachesDirectly(p, gw, controllerNS); got != want {
			refNS := "<none>"
			if ref.Namespace != nil {
				refNS = string(*ref.Namespace)
			}
			t.Fatalf("%T %s/%s targeting %s/%s %s (namespace %s), Gateway %s/%s of class %s, parametersRef %+v: reachesDirectly %v; the precedence engine says level %v (%s), named %v",
				p, om.Namespace, om.Name, ref.Group, ref.Kind, ref.Name, refNS, gw.Namespace, gw.Name, gw.Spec.GatewayClassName, desired.ParametersRef(gw), got, level, why, named)
		}
		if want {
			seen[1]++
		} else {
			seen[0]++
		}
	}
	if seen[0] < 1000 || seen[1] < 1000 {
		t.Errorf("too few cases of one answer: %d not reached, %d reached", seen[0], seen[1])
	}
}
