package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestPolicyThatBreaksTheSchemaSaysSo: issue 21. A GatewayConfig with replicas: 50 against a
// schema maximum of 20 made the Gateway InvalidValues, while the GatewayConfig itself stayed
// Accepted=True, PartiallyEnforced. The policy whose value broke the Gateway says so in its own
// ancestor status for it, and is accepted again once fixed.
func TestPolicyThatBreaksTheSchemaSaysSo(t *testing.T) {
	ns := namespace(t, nil)
	bp := blueprint("schema", `{"replicas": 1}`, map[string]string{"values": valuesTemplate})
	bp.Spec.ValuesSchema = &apiextensionsv1.JSON{Raw: []byte(`{"type": "object", "properties": {"replicas": {"type": "integer", "maximum": 20}}}`)}
	class := setup(t, ns, bp)
	create(t, gateway(ns, "edge", class))
	waitGateway(t, ns, "edge", "Programmed", metav1.ConditionTrue, "Programmed")
	p := gatewayConfig(ns, "edge", "Gateway", "edge", `{"replicas": 50}`, "")
	create(t, p)
	waitGateway(t, ns, "edge", "Programmed", metav1.ConditionFalse, "InvalidValues")
	eventually(t, "the GatewayConfig says it broke the Gateway", func() error {
		st, gen, err := policyStatus(t.Context(), p)
		if err != nil {
			return err
		}
		a, err := ancestor(st, ns, "edge")
		if err != nil {
			return err
		}
		if err := policyConditions(a, gen, metav1.ConditionFalse, "Invalid", metav1.ConditionFalse, "InvalidValues"); err != nil {
			return err
		}
		if msg := meta.FindStatusCondition(a.Conditions, "Accepted").Message; !strings.Contains(msg, "values.replicas") || !strings.Contains(msg, "InvalidValues") {
			return fmt.Errorf("message %q names neither the path nor the Gateway's state", msg)
		}
		return nil
	})
	update(t, p, func(p *v1alpha1.GatewayConfig) { p.Spec.Default = raw(`{"replicas": 5}`) })
	waitGateway(t, ns, "edge", "Programmed", metav1.ConditionTrue, "Programmed")
	eventually(t, "the fixed GatewayConfig is accepted", func() error {
		st, gen, err := policyStatus(t.Context(), p)
		if err != nil {
			return err
		}
		a, err := ancestor(st, ns, "edge")
		if err != nil {
			return err
		}
		return policyConditions(a, gen, metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
	})
}
