package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestInfrastructureMetadata: the labels and annotations of a Gateway's spec.infrastructure go
// on every object rendered for it (GEP-1867); the template's own keys and Gantry's win.
func TestInfrastructureMetadata(t *testing.T) {
	ns := namespace(t, nil)
	tmpl := `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-infra
  labels:
    tier: proxy
data: {}
`
	create(t, blueprint("infra-"+ns, `{}`, map[string]string{"cm": tmpl}), gantryClass("class-"+ns, "infra-"+ns))
	gw := gateway(ns, "web", "class-"+ns)
	gw.Spec.Infrastructure = &gwv1.GatewayInfrastructure{
		Labels:      map[gwv1.LabelKey]gwv1.LabelValue{"team": "a", "tier": "tenant", v1alpha1.LabelTemplate: "forged"},
		Annotations: map[gwv1.AnnotationKey]gwv1.AnnotationValue{"example.com/note": "hello"},
	}
	create(t, gw)
	eventually(t, "infrastructure metadata on the rendered ConfigMap", func() error {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "web-infra"}, cm); err != nil {
			return err
		}
		want := map[string]string{"team": "a", "tier": "proxy", v1alpha1.LabelTemplate: "cm", v1alpha1.LabelGatewayName: "web"}
		for k, v := range want {
			if cm.Labels[k] != v {
				return fmt.Errorf("label %s = %q, want %q (labels %v)", k, cm.Labels[k], v, cm.Labels)
			}
		}
		if cm.Annotations["example.com/note"] != "hello" {
			return fmt.Errorf("annotations = %v, want example.com/note from spec.infrastructure", cm.Annotations)
		}
		return nil
	})
}

// TestInfrastructureParametersRef: spec.infrastructure.parametersRef naming a GatewayConfig in
// the Gateway's namespace is that Gateway's level-5 policy, whatever the GatewayConfig targets;
// anything else leaves the Gateway not Accepted, with InvalidParameters saying why.
func TestInfrastructureParametersRef(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	create(t, blueprint("params-"+ns, `{"size":"small"}`, map[string]string{"values": valuesTemplate}), gantryClass("class-"+ns, "params-"+ns))
	// It targets the namespace's other Gateway: only the parametersRef makes it apply to web.
	create(t, gatewayConfig(ns, "big", "Gateway", "elsewhere", `{"size":"big"}`, ""))
	withRef := func(name string, ref gwv1.LocalParametersReference) *gwv1.Gateway {
		gw := gateway(ns, name, "class-"+ns)
		gw.Spec.Infrastructure = &gwv1.GatewayInfrastructure{ParametersRef: &ref}
		return gw
	}
	create(t,
		withRef("web", gwv1.LocalParametersReference{Group: v1alpha1.GroupName, Kind: "GatewayConfig", Name: "big"}),
		withRef("missing", gwv1.LocalParametersReference{Group: v1alpha1.GroupName, Kind: "GatewayConfig", Name: "nope"}),
		withRef("wrong", gwv1.LocalParametersReference{Group: "invalid.io", Kind: "InvalidParameters", Name: "invalid"}),
	)
	eventually(t, "the GatewayConfig named by parametersRef applies", func() error {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-values"}, cm); err != nil {
			return err
		}
		if !strings.Contains(cm.Data["values"], `"size":"big"`) {
			return fmt.Errorf("values = %s, want size big from GatewayConfig big", cm.Data["values"])
		}
		return nil
	})
	for name, msg := range map[string]string{"missing": "GatewayConfig nope", "wrong": "InvalidParameters.invalid.io"} {
		eventually(t, "Gateway "+name+" not accepted", func() error {
			gw := &gwv1.Gateway{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, gw); err != nil {
				return err
			}
			if err := conditionIs(gw.Status.Conditions, string(gwv1.GatewayConditionAccepted), metav1.ConditionFalse, string(gwv1.GatewayReasonInvalidParameters), gw.Generation); err != nil {
				return err
			}
			if c := meta.FindStatusCondition(gw.Status.Conditions, string(gwv1.GatewayConditionAccepted)); !strings.Contains(c.Message, msg) {
				return fmt.Errorf("Accepted message %q does not name %q", c.Message, msg)
			}
			return nil
		})
	}
}

// TestInfrastructureParametersRefPolicyStatus: a GatewayConfig named by a Gateway's
// spec.infrastructure.parametersRef gets GEP-713 status for that Gateway as a targetRef'd
// policy does (Accepted, Enforced, the Gateway as ancestor), also when its own targetRef names
// a Gateway that does not exist — that entry says TargetNotFound beside it. A parametersRef to a
// GatewayConfig that does not exist leaves the Gateway Accepted=False InvalidParameters until
// it is created; then the Gateway is accepted and the GatewayConfig names it.
func TestInfrastructureParametersRefPolicyStatus(t *testing.T) {
	ns := namespace(t, nil)
	create(t, blueprint("params-status-"+ns, `{"size":"small"}`, map[string]string{"values": valuesTemplate}), gantryClass("class-"+ns, "params-status-"+ns))
	withRef := func(name, params string) *gwv1.Gateway {
		gw := gateway(ns, name, "class-"+ns)
		gw.Spec.Infrastructure = &gwv1.GatewayInfrastructure{ParametersRef: &gwv1.LocalParametersReference{Group: v1alpha1.GroupName, Kind: "GatewayConfig", Name: params}}
		return gw
	}
	own := gatewayConfig(ns, "own", "Gateway", "web", `{"size":"medium"}`, "")
	stray := gatewayConfig(ns, "stray", "Gateway", "elsewhere", `{"size":"big"}`, "")
	create(t, own, stray, withRef("web", "own"), withRef("api", "stray"), withRef("later", "nope"))

	waitValues(t, ns, "web", `{"size":"medium"}`)
	waitValues(t, ns, "api", `{"size":"big"}`)
	waitPolicy(t, own, ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
	waitPolicy(t, stray, ns, "api", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
	eventually(t, "GatewayConfig stray: parametersRef named in its Accepted message, its own target not found", func() error {
		st, gen, err := policyStatus(t.Context(), stray)
		if err != nil {
			return err
		}
		a, err := ancestor(st, ns, "api")
		if err != nil {
			return err
		}
		if c := meta.FindStatusCondition(a.Conditions, "Accepted"); !strings.Contains(c.Message, "spec.infrastructure.parametersRef of Gateway "+ns+"/api") {
			return fmt.Errorf("Accepted message %q does not say the Gateway names it in spec.infrastructure.parametersRef", c.Message)
		}
		target, err := ancestor(st, ns, "elsewhere")
		if err != nil {
			return err
		}
		if err := policyConditions(target, gen, metav1.ConditionFalse, "TargetNotFound", "", ""); err != nil {
			return err
		}
		if len(st.Ancestors) != 2 {
			return fmt.Errorf("ancestors = %s, want Gateway api and the missing target", describeAncestors(st))
		}
		return nil
	})

	gw := waitGateway(t, ns, "later", "Accepted", metav1.ConditionFalse, "InvalidParameters")
	if c := meta.FindStatusCondition(gw.Status.Conditions, "Accepted"); !strings.Contains(c.Message, "spec.infrastructure.parametersRef names GatewayConfig nope") {
		t.Errorf("Accepted message %q does not name the field and the GatewayConfig", c.Message)
	}
	nope := gatewayConfig(ns, "nope", "Gateway", "later", `{"size":"late"}`, "")
	create(t, nope)
	waitGateway(t, ns, "later", "Accepted", metav1.ConditionTrue, "Accepted")
	waitValues(t, ns, "later", `{"size":"late"}`)
	waitPolicy(t, nope, ns, "later", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
}
