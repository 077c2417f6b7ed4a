package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// waitClass waits until the class's Accepted condition has the status and reason at the
// class's generation and its message contains every one of msg.
func waitClass(t *testing.T, name string, status metav1.ConditionStatus, reason string, msg ...string) *gwv1.GatewayClass {
	t.Helper()
	class := &gwv1.GatewayClass{}
	eventually(t, fmt.Sprintf("GatewayClass %s Accepted=%s/%s", name, status, reason), func() error {
		if err := k8s.Get(t.Context(), client.ObjectKey{Name: name}, class); err != nil {
			return err
		}
		if err := conditionIs(class.Status.Conditions, "Accepted", status, reason, class.Generation); err != nil {
			return err
		}
		c := meta.FindStatusCondition(class.Status.Conditions, "Accepted")
		for _, m := range msg {
			if !strings.Contains(c.Message, m) {
				return fmt.Errorf("Accepted message %q does not name %q", c.Message, m)
			}
		}
		return nil
	})
	return class
}

// TestClassAccepted: a class whose blueprint exists and parses is Accepted, says which Gateway
// API version it supports, and its blueprint is Accepted too.
func TestClassAccepted(t *testing.T) {
	ns := namespace(t, nil)
	bp := blueprint("values", `{"a": 1}`, map[string]string{"values": valuesTemplate})
	class := setup(t, ns, bp)

	got := waitClass(t, class, metav1.ConditionTrue, "Accepted", bp.Name)
	if err := conditionIs(got.Status.Conditions, "SupportedVersion", metav1.ConditionTrue, "SupportedVersion", got.Generation); err != nil {
		t.Error(err)
	}
	eventually(t, "blueprint Accepted", func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(bp), bp); err != nil {
			return err
		}
		return conditionIs(bp.Status.Conditions, "Accepted", metav1.ConditionTrue, "Accepted", bp.Generation)
	})
}

// TestClassRejectedMissingBlueprint: a class naming a blueprint that does not exist is
// rejected with InvalidParameters naming it, and so is its Gateway, which renders nothing.
// When the blueprint appears, both are accepted and the Gateway is rendered.
func TestClassRejectedMissingBlueprint(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	bpName := "later-" + ns
	class := "class-" + ns
	create(t, gantryClass(class, bpName), gateway(ns, "web", class))

	waitClass(t, class, metav1.ConditionFalse, "InvalidParameters", "GatewayClassBlueprint "+bpName+" does not exist")
	gw := waitGateway(t, ns, "web", "Accepted", metav1.ConditionFalse, "InvalidParameters")
	if c := meta.FindStatusCondition(gw.Status.Conditions, "Accepted"); !strings.Contains(c.Message, bpName) {
		t.Errorf("Gateway Accepted message %q does not name the blueprint", c.Message)
	}
	if err := conditionIs(gw.Status.Conditions, "Programmed", metav1.ConditionFalse, "InvalidParameters", gw.Generation); err != nil {
		t.Error(err)
	}
	if cms, err := renderedConfigMaps(ctx, ns, "web"); err != nil || len(cms) != 0 {
		t.Errorf("rendered ConfigMaps = %v, %v; want none", cms, err)
	}

	bp := blueprint(bpName, `{"a": 1}`, map[string]string{"values": valuesTemplate})
	create(t, bp)
	waitClass(t, class, metav1.ConditionTrue, "Accepted")
	waitValues(t, ns, "web", `{"a": 1}`)
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
}

// TestClassRejectedTemplateDoesNotParse: a template that does not parse rejects the class with
// a message naming the blueprint, the template and the line; the blueprint says the same.
// Fixing the template accepts both.
func TestClassRejectedTemplateDoesNotParse(t *testing.T) {
	ns := namespace(t, nil)
	bp := blueprint("broken", "", map[string]string{
		"values": valuesTemplate,
		"broken": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ end }}\n",
	})
	class := setup(t, ns, bp)
	where := "gatewayTemplate.resourceTemplates.broken:4"
	waitClass(t, class, metav1.ConditionFalse, "InvalidParameters", "blueprint "+bp.Name, where)
	eventually(t, "blueprint rejected", func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(bp), bp); err != nil {
			return err
		}
		if err := conditionIs(bp.Status.Conditions, "Accepted", metav1.ConditionFalse, "Invalid", bp.Generation); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(bp.Status.Conditions, "Accepted"); !strings.Contains(c.Message, where) {
			return fmt.Errorf("blueprint message %q does not name %s", c.Message, where)
		}
		return nil
	})

	update(t, bp, func(bp *v1alpha1.GatewayClassBlueprint) {
		bp.Spec.GatewayTemplate.ResourceTemplates["broken"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Gateway.metadata.name }}-fixed\n"
	})
	waitClass(t, class, metav1.ConditionTrue, "Accepted")
	eventually(t, "blueprint accepted", func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(bp), bp); err != nil {
			return err
		}
		return conditionIs(bp.Status.Conditions, "Accepted", metav1.ConditionTrue, "Accepted", bp.Generation)
	})
}

// TestClassOfAnotherController: Gantry leaves classes of other controllers, and their
// Gateways, alone.
func TestClassOfAnotherController(t *testing.T) {
	ns := namespace(t, nil)
	class := gantryClass("other-"+ns, "whatever")
	class.Spec.ControllerName = "example.com/other"
	create(t, class, gateway(ns, "web", class.Name))
	// Let a Gantry class be accepted afterwards, so the controller has certainly seen both.
	later := setup(t, ns, blueprint("values", "", map[string]string{"values": valuesTemplate}))
	create(t, gateway(ns, "mine", later))
	waitGateway(t, ns, "mine", "Programmed", metav1.ConditionTrue, "Programmed")

	if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(class), class); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(class.Status.Conditions, "Accepted"); c != nil && c.Reason != "Pending" {
		t.Errorf("another controller's class got Accepted %s/%s", c.Status, c.Reason)
	}
	gw := &gwv1.Gateway{}
	if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "web"}, gw); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(gw.Status.Conditions, "Programmed"); c != nil && c.Reason != "Pending" {
		t.Errorf("another controller's Gateway got Programmed %s/%s", c.Status, c.Reason)
	}
	if cms, err := renderedConfigMaps(t.Context(), ns, "web"); err != nil || len(cms) != 0 {
		t.Errorf("rendered for another controller's Gateway: %v, %v", cms, err)
	}
}

// TestClassBifrostGroup: a GatewayClass carried over from bifrost-gateway-controller names its
// blueprint in bifrost's group (parametersRef.group gateway.tv2.dk). Gantry reads it as its own
// GatewayClassBlueprint of that name, says so in the class's Accepted message, and programs the
// class's Gateways. The blueprint is created last, so the class and the Gateway must also be
// found from the blueprint (the blueprint-to-class index) for them to get there.
func TestClassBifrostGroup(t *testing.T) {
	ns := namespace(t, nil)
	bpName := "bifrost-" + ns
	class := gantryClass("class-"+ns, bpName)
	class.Spec.ParametersRef.Group = "gateway.tv2.dk"
	create(t, class, gateway(ns, "web", class.Name))
	waitClass(t, class.Name, metav1.ConditionFalse, "InvalidParameters", "GatewayClassBlueprint "+bpName+" does not exist")

	create(t, blueprint(bpName, `{"a": 1}`, map[string]string{"values": valuesTemplate}))
	waitClass(t, class.Name, metav1.ConditionTrue, "Accepted", "GatewayClassBlueprint "+bpName,
		"parametersRef group gateway.tv2.dk (bifrost-gateway-controller's) is read as gateway.gantry.dev")
	waitValues(t, ns, "web", `{"a": 1}`)
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	waitGateway(t, ns, "web", "Accepted", metav1.ConditionTrue, "Accepted")
}
