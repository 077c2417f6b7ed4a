package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
)

// registerWebhooks points the API server at the controller's admission webhooks for ns's
// GatewayConfigs and for blueprints labelled with ns, as the chart's
// ValidatingWebhookConfiguration does for every object (other tests' objects stay out of it).
// failurePolicy is Fail here, not the chart's Ignore: a webhook that does not answer must fail
// the test, not pass it.
func registerWebhooks(t *testing.T, ns string) {
	t.Helper()
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	hook := func(name, path, resource string) admissionregistrationv1.ValidatingWebhook {
		url := fmt.Sprintf("https://127.0.0.1:%d%s", webhookPort, path)
		return admissionregistrationv1.ValidatingWebhook{
			Name:                    name,
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &none,
			FailurePolicy:           &fail,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: webhookCA},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{v1alpha1.GroupVersion.Group}, APIVersions: []string{"*"}, Resources: []string{resource}},
			}},
		}
	}
	bp := hook("gatewayclassblueprints.gateway.gantry.dev", controllers.BlueprintWebhookPath, "gatewayclassblueprints")
	bp.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"gantry-test-webhook": ns}}
	gc := hook("gatewayconfigs.gateway.gantry.dev", controllers.GatewayConfigWebhookPath, "gatewayconfigs")
	gc.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "gantry-" + ns},
		Webhooks:   []admissionregistrationv1.ValidatingWebhook{bp, gc},
	}
	create(t, vwc)
	t.Cleanup(func() { _ = k8s.Delete(t.Context(), vwc) })
}

// TestAdmissionWebhookRefusesAtApply: issue 21. A blueprint that does not compile and a
// GatewayConfig that breaks the values schema of every Gateway it reaches are refused when
// applied, with a message naming the template line or the Gateway and path; what some Gateway
// takes, what reaches no Gateway yet, and a fixed policy are stored.
func TestAdmissionWebhookRefusesAtApply(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	registerWebhooks(t, ns)
	labelled := func(bp *v1alpha1.GatewayClassBlueprint) *v1alpha1.GatewayClassBlueprint {
		bp.Labels = map[string]string{"gantry-test-webhook": ns}
		return bp
	}

	// A blueprint whose template does not parse: refused, naming the template and its line.
	// The API server reads the configuration through a watch: wait until the webhook is called.
	broken := labelled(blueprint("broken-"+ns, `{}`, map[string]string{"config": "kind: ConfigMap\nmetadata:\n  name: {{ .Gateway.metadata.name\n"}))
	eventually(t, "the broken blueprint refused", func() error {
		err := k8s.Create(ctx, broken.DeepCopy())
		if err == nil {
			_ = k8s.Delete(ctx, broken)
			return fmt.Errorf("admitted")
		}
		if msg := err.Error(); !strings.Contains(msg, "denied the request") || !strings.Contains(msg, "config") || !strings.Contains(msg, ":3") {
			return fmt.Errorf("refused without naming the template and line 3: %v", err)
		}
		return nil
	})

	// Two classes: one whose schema caps replicas at 20, one without a schema.
	capped := labelled(blueprint("capped", `{"replicas": 1}`, map[string]string{"values": valuesTemplate}))
	capped.Spec.ValuesSchema = &apiextensionsv1.JSON{Raw: []byte(`{"type": "object", "properties": {"replicas": {"type": "integer", "maximum": 20}}}`)}
	class := setup(t, ns, capped)
	free := labelled(blueprint("free-"+ns, `{"replicas": 1}`, map[string]string{"values": valuesTemplate}))
	create(t, free, gantryClass("free-"+ns, free.Name))
	create(t, gateway(ns, "edge", class))
	waitGateway(t, ns, "edge", "Programmed", metav1.ConditionTrue, "Programmed")

	mustRefuse := func(p *v1alpha1.GatewayConfig, wants ...string) {
		t.Helper()
		err := k8s.Create(ctx, p)
		if err == nil {
			t.Fatalf("GatewayConfig %s admitted; want it refused", p.Name)
		}
		for _, w := range append([]string{"denied the request"}, wants...) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("refusal of %s does not say %q: %v", p.Name, w, err)
			}
		}
	}
	mustAdmit := func(p *v1alpha1.GatewayConfig) {
		t.Helper()
		if err := k8s.Create(ctx, p); err != nil {
			t.Fatalf("GatewayConfig %s refused: %v", p.Name, err)
		}
	}

	// replicas: 50 on the only Gateway it reaches, whose schema says at most 20.
	mustRefuse(gatewayConfig(ns, "too-many", "Gateway", "edge", `{"replicas": 50}`, ""), "Gateway "+ns+"/edge", "replicas")
	// As an override too, and on the namespace while edge is its only Gateway.
	mustRefuse(gatewayConfig(ns, "too-many-ovr", "Gateway", "edge", "", `{"replicas": 50}`), "replicas")
	mustRefuse(gatewayConfig(ns, "ns-too-many", "Namespace", ns, `{"replicas": 50}`, ""), "Gateway "+ns+"/edge")
	// Values deeper than the bound (docs/security.md 8.3) are refused before any Gateway is read.
	mustRefuse(gatewayConfig(ns, "deep", "Gateway", "edge", strings.Repeat(`{"a":`, 70)+"1"+strings.Repeat("}", 70), ""), "deep")
	// Within the schema: stored. An update that breaks it: refused.
	ok := gatewayConfig(ns, "fine", "Gateway", "edge", `{"replicas": 5}`, "")
	mustAdmit(ok)
	eventually(t, "an update to replicas: 50 refused", func() error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(ok), ok); err != nil {
			return err
		}
		ok.Spec.Default = raw(`{"replicas": 50}`)
		err := k8s.Update(ctx, ok)
		if apierrors.IsConflict(err) {
			return err // the controller wrote its status meanwhile
		}
		if err == nil || !strings.Contains(err.Error(), "replicas") {
			t.Fatalf("an update to replicas: 50 was not refused naming replicas: %v", err)
		}
		return nil
	})
	// A Gateway that does not exist yet: nothing to check against, stored (its status says the rest).
	mustAdmit(gatewayConfig(ns, "early", "Gateway", "later", `{"replicas": 50}`, ""))

	// With a second Gateway of the schema-free class, the namespace policy is taken by one of
	// the Gateways it reaches: stored, and its status names the one it breaks.
	create(t, gateway(ns, "open", "free-"+ns))
	waitGateway(t, ns, "open", "Programmed", metav1.ConditionTrue, "Programmed")
	// (An override: the Gateway-level default of "fine" would win over a namespace default.)
	mustAdmit(gatewayConfig(ns, "ns-mixed", "Namespace", ns, "", `{"replicas": 50}`))
	waitGateway(t, ns, "edge", "Programmed", metav1.ConditionFalse, "InvalidValues")

	// Nothing refused was stored.
	for _, name := range []string{"too-many", "too-many-ovr", "ns-too-many", "deep"} {
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &v1alpha1.GatewayConfig{}); err == nil {
			t.Errorf("refused GatewayConfig %s was stored", name)
		}
	}
}
