package controllers_test

import (
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestRestartConverges stops the controller while a Gateway is being rendered, changes the
// world while it is down — values, the blueprint, a hand deletion, a Gateway created and one
// deleted — and starts a new controller: it converges to exactly the desired objects, none
// twice and none lost, and cleans up after the Gateway deleted meanwhile, cluster-scoped
// objects included.
func TestRestartConverges(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	names := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint(i)
		}
		return out
	}
	def, _ := json.Marshal(map[string]any{"names": names(20)})
	bp := blueprint("restart", string(def), map[string]string{
		"names":  namesTemplate,
		"secret": secretTemplate,
		"clusterrole": `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: gantry-{{ .Gateway.metadata.namespace }}-{{ .Gateway.metadata.name }}
`,
	})
	bp.Spec.ClusterScopedKinds = []v1alpha1.GroupKind{{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}}
	class := setup(t, ns, bp)
	expected := func(gw string, n int) []string {
		var out []string
		for _, i := range names(n) {
			out = append(out, gw+"-n-"+i)
		}
		return out
	}
	clusterRole := func(gw string) *rbacv1.ClusterRole {
		return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "gantry-" + ns + "-" + gw}}
	}
	secret := func(gw string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: gw + "-secret"}}
	}

	// Two Gateways converge: steady stays, doomed will be deleted while the controller is down.
	create(t, gateway(ns, "steady", class), gateway(ns, "doomed", class))
	for _, gw := range []string{"steady", "doomed"} {
		waitConfigMaps(t, ns, gw, expected(gw, 20)...)
		waitGateway(t, ns, gw, "Programmed", metav1.ConditionTrue, "Programmed")
	}

	// A third starts rendering; the controller stops as soon as its first object is there.
	create(t, gateway(ns, "web", class))
	eventually(t, "web's rendering started", func() error {
		cms, err := renderedConfigMaps(ctx, ns, "web")
		if err == nil && len(cms) == 0 {
			err = fmt.Errorf("nothing yet")
		}
		return err
	})
	stopMgr()
	running := false
	t.Cleanup(func() {
		if !running {
			startOrFail(t)
		}
	})

	// While it is down: web wants fewer objects, one of steady's is deleted by hand, the
	// blueprint stops rendering Secrets, doomed is deleted, late is created.
	create(t, gatewayConfig(ns, "fewer", "Gateway", "web", `{"names": ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14"]}`, ""))
	if err := k8s.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "steady-n-3"}}); err != nil {
		t.Fatal(err)
	}
	update(t, bp, func(bp *v1alpha1.GatewayClassBlueprint) { delete(bp.Spec.GatewayTemplate.ResourceTemplates, "secret") })
	doomed := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "doomed"}}
	if err := k8s.Delete(ctx, doomed); err != nil {
		t.Fatal(err)
	}
	create(t, gateway(ns, "late", class))

	startOrFail(t)
	running = true

	cms := waitConfigMaps(t, ns, "web", expected("web", 15)...)
	waitConfigMaps(t, ns, "steady", expected("steady", 20)...)
	waitConfigMaps(t, ns, "late", expected("late", 20)...)
	waitGone(t, doomed, clusterRole("doomed"), secret("steady"), secret("web"), secret("doomed"))
	waitConfigMaps(t, ns, "doomed")
	for _, gw := range []string{"steady", "web", "late"} {
		waitGateway(t, ns, gw, "Programmed", metav1.ConditionTrue, "Programmed")
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(clusterRole(gw)), clusterRole(gw)); err != nil {
			t.Errorf("ClusterRole of %s: %v", gw, err)
		}
		if err := gone(ctx, secret(gw)); err != nil {
			t.Error(err)
		}
	}
	// None twice: one owner each, and that owner is the Gateway that exists now.
	web := &gwv1.Gateway{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, web); err != nil {
		t.Fatal(err)
	}
	for name, cm := range cms {
		if len(cm.OwnerReferences) != 1 || cm.OwnerReferences[0].UID != web.UID {
			t.Errorf("%s owner references = %+v", name, cm.OwnerReferences)
		}
	}
}

// TestRestartWithRemovedKind: a kind a blueprint rendered once whose CRD is gone (uninstalled
// since) does not keep a new controller from starting and rendering.
func TestRestartWithRemovedKind(t *testing.T) {
	ns := namespace(t, nil)
	bp := blueprint("removed-kind", `{"x": "y"}`, map[string]string{"values": valuesTemplate})
	class := setup(t, ns, bp)
	create(t, gateway(ns, "web", class))
	waitValues(t, ns, "web", `{"x": "y"}`)
	eventually(t, "renderedKinds with a kind that is not served", func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(bp), bp); err != nil {
			return err
		}
		bp.Status.RenderedKinds = append(bp.Status.RenderedKinds, v1alpha1.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Uninstalled"})
		return k8s.Status().Update(t.Context(), bp)
	})

	restartController(t)
	create(t, gateway(ns, "after", class))
	waitValues(t, ns, "after", `{"x": "y"}`)
	waitGateway(t, ns, "after", "Programmed", metav1.ConditionTrue, "Programmed")
}
