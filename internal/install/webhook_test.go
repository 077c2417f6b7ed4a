package install_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/install"
	"gantry.dev/gantry/internal/testenv"
)

// TestChartWebhookRefusesAtApply: the chart's ValidatingWebhookConfiguration reaches the
// controller's webhooks, at the paths and for the resources the chart names, and the controller
// answers with the chart's permissions: a blueprint that does not compile and a GatewayConfig
// past the values bounds are refused at apply (issue 21). envtest has no Service network, so
// the test serves the webhooks on 127.0.0.1 with a certificate of its own and points each of
// the chart's webhooks there, keeping the chart's path, rules and failure policy.
func TestChartWebhookRefusesAtApply(t *testing.T) {
	ctx := t.Context()
	cfg, _, admin := startAPIServer(t)
	const ns = "gantry-system"
	mustCreate(t, admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	objs, err := install.Render(filepath.Join(testenv.Root(), "charts", "gantry"), "gantry", ns, nil)
	if err != nil {
		t.Fatal(err)
	}
	var vwc *unstructured.Unstructured
	for _, o := range objs {
		mustCreate(t, admin, o)
		if o.GetKind() == "ValidatingWebhookConfiguration" {
			vwc = o
		}
		if o.GetKind() == "Deployment" {
			args, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
			if !strings.Contains(fmt.Sprint(args), "--webhook-port=9443") {
				t.Errorf("the chart's Deployment does not serve the webhooks: %v", args)
			}
		}
	}
	if vwc == nil {
		t.Fatal("the chart has no ValidatingWebhookConfiguration")
	}

	dir := t.TempDir()
	ca, err := testenv.ServingCert(dir)
	if err != nil {
		t.Fatal(err)
	}
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	sa := rest.CopyConfig(cfg)
	sa.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":gantry"}
	run, err := controllers.Start(sa, controllers.ManagerOptions{MetricsAddress: "0", Restartable: true, WebhookPort: port, WebhookHost: "127.0.0.1", WebhookCertDir: dir},
		controllers.Options{ControllerNamespace: ns, Webhooks: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := run(); err != nil {
			t.Errorf("controller: %v", err)
		}
	})

	for _, h := range vwc.Object["webhooks"].([]any) {
		if policy, _, _ := unstructured.NestedString(h.(map[string]any), "failurePolicy"); policy != "Ignore" {
			t.Errorf("webhook %v: failurePolicy %q; the chart's choice is Ignore (objects are stored while Gantry is down)", h.(map[string]any)["name"], policy)
		}
	}
	if err := install.LocalWebhooks(ctx, admin, vwc.GetName(), port, ca); err != nil {
		t.Fatal(err)
	}

	// failurePolicy Ignore admits whatever a webhook that does not answer is asked: only a
	// refusal shows it answered. Wait until the API server has the new configuration and the
	// controller serves.
	broken := &v1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "broken"}, Spec: v1alpha1.GatewayClassBlueprintSpec{
		GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{"config": "kind: ConfigMap\n{{ if }}\n"}},
	}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := admin.Create(ctx, broken.DeepCopy())
		if err != nil && strings.Contains(err.Error(), "denied the request") && strings.Contains(err.Error(), "config") {
			break
		}
		if err == nil {
			_ = admin.Delete(ctx, broken)
		}
		if time.Now().After(deadline) {
			t.Fatalf("a blueprint that does not compile is still admitted through the chart's webhook: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	mustCreate(t, admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}})
	deep := &v1alpha1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "deep"}, Spec: v1alpha1.GatewayConfigSpec{
		TargetRef:    v1alpha1.PolicyTargetReference{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "web"},
		PolicyValues: v1alpha1.PolicyValues{Default: raw(strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70))},
	}}
	if err := admin.Create(ctx, deep); err == nil || !strings.Contains(err.Error(), "denied the request") {
		t.Errorf("a GatewayConfig past the depth bound was not refused: %v", err)
	}
	fine := &v1alpha1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "fine"}, Spec: v1alpha1.GatewayConfigSpec{
		TargetRef:    v1alpha1.PolicyTargetReference{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "web"},
		PolicyValues: v1alpha1.PolicyValues{Default: raw(`{"replicas": 3}`)},
	}}
	mustCreate(t, admin, fine)
}

func raw(s string) *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte(s)} }
