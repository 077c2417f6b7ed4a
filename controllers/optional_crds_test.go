package controllers_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/testenv"
)

// TestWithoutListenerSetCRD: on a cluster whose Gateway API predates ListenerSets (no CRD),
// Gantry starts, renders and programs Gateways, and does not claim the feature. An upgrade of
// Gantry must not need an upgrade of Gateway API.
func TestWithoutListenerSetCRD(t *testing.T) {
	// Without TLSRoute, TCPRoute and UDPRoute either (experimental before v1.5, and often not
	// installed): Gantry runs without them too.
	env, cfg, err := testenv.StartWithout("gateway.networking.k8s.io_listenersets.yaml", "gateway.networking.k8s.io_tlsroutes.yaml",
		"gateway.networking.k8s.io_tcproutes.yaml", "gateway.networking.k8s.io_udproutes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	c, err := client.New(cfg, client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: controllerNS}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}},
		blueprint("old-api", `{}`, map[string]string{"values": valuesTemplate}),
		gantryClass("old-api", "old-api"),
		gateway("team-a", "web", "old-api"),
	} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	stop, err := controllers.Start(cfg, controllers.ManagerOptions{MetricsAddress: "0", Restartable: true},
		controllers.Options{ControllerNamespace: controllerNS, PolicyStatusInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("the controller does not start without the ListenerSet CRD: %v", err)
	}
	t.Cleanup(func() { _ = stop() })
	eventually(t, "Gateway team-a/web Programmed", func() error {
		gw := &gwv1.Gateway{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "web"}, gw); err != nil {
			return err
		}
		if cond := meta.FindStatusCondition(gw.Status.Conditions, "Programmed"); cond == nil || cond.Status != metav1.ConditionTrue {
			return fmt.Errorf("Programmed = %+v", cond)
		}
		return nil
	})
	eventually(t, "GatewayClass old-api's supported features", func() error {
		gc := &gwv1.GatewayClass{}
		if err := c.Get(ctx, client.ObjectKey{Name: "old-api"}, gc); err != nil {
			return err
		}
		var names []gwv1.FeatureName
		for _, f := range gc.Status.SupportedFeatures {
			names = append(names, f.Name)
		}
		if !slices.Contains(names, "Gateway") || !slices.Contains(names, "GRPCRoute") || slices.ContainsFunc(names, func(n gwv1.FeatureName) bool {
			return n == "ListenerSet" || n == "TLSRoute" || n == "TCPRoute" || n == "UDPRoute"
		}) {
			return fmt.Errorf("supportedFeatures = %v, want Gateway's and GRPCRoute, not ListenerSet nor the kinds not served", names)
		}
		return nil
	})
}
