package install_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"go.uber.org/zap/zapcore"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/install"
	"gantry.dev/gantry/internal/testenv"
	"gantry.dev/gantry/manifests"
)

// TestInstallRunUninstall installs the chart on a real API server, runs the controller with
// exactly the chart's permissions (impersonating its ServiceAccount), provisions a Gateway, and
// then uninstalls as the chart's README says — leaving nothing behind.
func TestInstallRunUninstall(t *testing.T) {
	ctx := t.Context()
	cfg, _, admin := startAPIServer(t)

	const ns = "gantry-system"
	mustCreate(t, admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	objs, err := install.Render(filepath.Join(testenv.Root(), "charts", "gantry"), "gantry", ns, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		mustCreate(t, admin, o)
	}

	// The controller as the chart's ServiceAccount: any permission the chart lacks fails here.
	sa := rest.CopyConfig(cfg)
	sa.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":gantry"}
	stop := startController(t, sa, ns)

	set, err := manifests.Load([]string{filepath.Join(testenv.Root(), "blueprints", "proxy", "blueprint.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tenant := "team-a"
	mustCreate(t, admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenant}})
	mustCreate(t, admin, set.Blueprints["proxy"])
	class := &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "proxy"}, Spec: gwv1.GatewayClassSpec{
		ControllerName: "gantry.dev/gateway-controller",
		ParametersRef:  &gwv1.ParametersReference{Group: "gateway.gantry.dev", Kind: "GatewayClassBlueprint", Name: "proxy"},
	}}
	mustCreate(t, admin, class)
	gw := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "web"}, Spec: gwv1.GatewaySpec{
		GatewayClassName: "proxy", Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}},
		AllowedListeners: &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr(gwv1.NamespacesFromSame)}},
	}}
	mustCreate(t, admin, gw)
	// A tenant's ListenerSet: Gantry reads it and writes its status with the chart's permissions.
	ls := &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "shop"}, Spec: gwv1.ListenerSetSpec{
		ParentRef: gwv1.ParentGatewayReference{Name: "web"},
		Listeners: []gwv1.ListenerEntry{{Name: "shop", Port: 80, Protocol: gwv1.HTTPProtocolType, Hostname: ptr(gwv1.Hostname("shop.example.com"))}},
	}}
	mustCreate(t, admin, ls)
	eventually(t, "ListenerSet accepted with the chart's permissions", func() error {
		if err := admin.Get(ctx, client.ObjectKeyFromObject(ls), ls); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(ls.Status.Conditions, "Accepted"); c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Errorf("Accepted = %+v", c)
		}
		return nil
	})
	eventually(t, "Gateway Programmed with the chart's permissions", func() error {
		if err := admin.Get(ctx, client.ObjectKeyFromObject(gw), gw); err != nil {
			return err
		}
		c := meta.FindStatusCondition(gw.Status.Conditions, "Programmed")
		if c == nil || c.Status != metav1.ConditionTrue {
			return fmt.Errorf("Programmed = %+v", c)
		}
		return nil
	})
	if err := admin.Get(ctx, client.ObjectKey{Namespace: tenant, Name: "web"}, &appsv1.Deployment{}); err != nil {
		t.Fatalf("Deployment not rendered: %v", err)
	}
	// The chart lets Gantry hold the class while its Gateway exists.
	eventually(t, "GatewayClass held by "+gwv1.GatewayClassFinalizerGatewaysExist, func() error {
		if err := admin.Get(ctx, client.ObjectKeyFromObject(class), class); err != nil {
			return err
		}
		if !slices.Contains(class.Finalizers, gwv1.GatewayClassFinalizerGatewaysExist) {
			return fmt.Errorf("finalizers = %v", class.Finalizers)
		}
		return nil
	})

	// Uninstall, in the chart README's order: Gantry's Gateways first (Gantry removes what it
	// rendered), then Gantry's GatewayClasses (released once no Gateway names them), then the
	// release, then the CRDs.
	if err := admin.Delete(ctx, gw); err != nil {
		t.Fatal(err)
	}
	for _, o := range []client.Object{&appsv1.Deployment{}, &corev1.Service{}, &corev1.ServiceAccount{}} {
		eventually(t, fmt.Sprintf("rendered %T removed", o), func() error {
			return gone(admin.Get(ctx, client.ObjectKey{Namespace: tenant, Name: "web"}, o))
		})
	}
	eventually(t, "Gateway gone", func() error { return gone(admin.Get(ctx, client.ObjectKeyFromObject(gw), gw)) })
	if err := admin.Delete(ctx, class); err != nil {
		t.Fatal(err)
	}
	eventually(t, "GatewayClass deleted", func() error {
		return gone(admin.Get(ctx, client.ObjectKeyFromObject(class), &gwv1.GatewayClass{}))
	})
	stop()
	for _, o := range objs {
		if err := admin.Delete(ctx, o); err != nil {
			t.Fatalf("uninstall %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	crds := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := admin.List(ctx, crds); err != nil {
		t.Fatal(err)
	}
	for i := range crds.Items {
		if crds.Items[i].Spec.Group == "gateway.gantry.dev" {
			if err := admin.Delete(ctx, &crds.Items[i]); err != nil {
				t.Fatal(err)
			}
		}
	}

	// Nothing of Gantry's is left: no chart object, no CRD, no rendered object.
	for _, o := range objs {
		probe := &unstructured.Unstructured{}
		probe.SetGroupVersionKind(o.GroupVersionKind())
		eventually(t, fmt.Sprintf("%s %s uninstalled", o.GetKind(), o.GetName()), func() error {
			return gone(admin.Get(ctx, client.ObjectKeyFromObject(o), probe))
		})
	}
	eventually(t, "Gantry's CRDs removed", func() error {
		l := &apiextensionsv1.CustomResourceDefinitionList{}
		if err := admin.List(ctx, l); err != nil {
			return err
		}
		for _, c := range l.Items {
			if c.Spec.Group == "gateway.gantry.dev" {
				return fmt.Errorf("CRD %s still there", c.Name)
			}
		}
		return nil
	})
	for _, l := range []client.ObjectList{&appsv1.DeploymentList{}, &corev1.ServiceList{}, &corev1.ServiceAccountList{}} {
		if err := admin.List(ctx, l, client.InNamespace(tenant), client.HasLabels{"gateway.gantry.dev/template"}); err != nil {
			t.Fatal(err)
		}
		if n := meta.LenList(l); n != 0 {
			t.Errorf("%d rendered objects of %T left behind", n, l)
		}
	}
}

func startController(t *testing.T, cfg *rest.Config, ns string) func() {
	t.Helper()
	ctrl.SetLogger(zap.New(zap.UseDevMode(true), zap.Level(zapcore.ErrorLevel)))
	run, err := controllers.Start(cfg, controllers.ManagerOptions{MetricsAddress: "0"}, controllers.Options{ControllerNamespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			if err := run(); err != nil {
				t.Errorf("controller: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	return stop
}

func mustCreate(t *testing.T, c client.Client, o client.Object) {
	t.Helper()
	if err := c.Create(t.Context(), o); err != nil {
		t.Fatalf("create %T %s: %v", o, o.GetName(), err)
	}
}

func gone(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return errors.Join(err, errors.New("still there"))
}

func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	testenv.Eventually(t, what, check)
}

// startAPIServer starts a kube-apiserver and etcd for one test, stopped when it ends, and
// returns its config, a scheme with Gantry's, Gateway API's and the CRD kinds, and an admin
// client.
func startAPIServer(t *testing.T) (*rest.Config, *runtime.Scheme, client.Client) {
	t.Helper()
	env, cfg, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	scheme := controllers.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	admin, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, scheme, admin
}

func ptr[T any](v T) *T { return &v }
