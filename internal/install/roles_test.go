package install_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/internal/install"
	"gantry.dev/gantry/internal/testenv"
)

// The VAP's name, as the chart installs it; its denials name it.
const gccPolicy = "gantry-gatewayclassconfig-writers"

// TestTenantCannotWriteGatewayClassConfig installs the chart on a real API server and acts as
// each persona through impersonation: the tenant ClusterRole bound in one namespace writes
// GatewayConfigs, HTTPRoutes and Gateways there and nothing of the platform's; a namespace
// admin given GatewayClassConfig write in that namespace alone is refused by the chart's
// ValidatingAdmissionPolicy (GatewayClassConfigs are platform levels of the precedence); the
// platform ClusterRole bound cluster-wide writes them; so do Gantry's own ServiceAccount and
// the namespace controller (cluster-wide delete), so that namespaces can still be deleted.
func TestTenantCannotWriteGatewayClassConfig(t *testing.T) {
	ctx := t.Context()
	cfg, scheme, admin := startAPIServer(t)
	as := func(user string, groups ...string) client.Client {
		c := rest.CopyConfig(cfg)
		c.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(groups, "system:authenticated")}
		cl, err := client.New(c, client.Options{Scheme: scheme})
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}

	const ns, tenant, other = "gantry-system", "team-a", "team-b"
	for _, n := range []string{ns, tenant, other} {
		mustCreate(t, admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}})
	}
	objs, err := install.Render(filepath.Join(testenv.Root(), "charts", "gantry"), "gantry", ns, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		mustCreate(t, admin, o)
	}

	// alice: the tenant role in team-a. bob: team-a's admin (the built-in admin role), and
	// GatewayClassConfig write in team-a by a RoleBinding. carol: the platform role,
	// cluster-wide. Gantry: its ServiceAccount, here given GatewayClassConfig write in team-a.
	clusterRoleIn := func(name, role, user string) {
		mustCreate(t, admin, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}},
		})
	}
	clusterRoleIn("alice-tenant", "gantry-tenant", "alice")
	clusterRoleIn("bob-admin", "admin", "bob")
	mustCreate(t, admin, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "gcc-writer"},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{v1alpha1.GroupName}, Resources: []string{"gatewayclassconfigs"},
			Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"},
		}},
	})
	for _, user := range []string{"bob", "system:serviceaccount:" + ns + ":gantry"} {
		mustCreate(t, admin, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "gcc-writer-" + strings.ReplaceAll(user, ":", "-")},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "gcc-writer"},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}},
		})
	}
	mustCreate(t, admin, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "carol-platform"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "gantry-platform"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "carol"}},
	})
	alice, bob, carol := as("alice"), as("bob"), as("carol")
	gantry := as("system:serviceaccount:"+ns+":gantry", "system:serviceaccounts", "system:serviceaccounts:"+ns)
	// The bootstrap identity kube-controller-manager deletes a namespace's contents with.
	nsController := as("system:serviceaccount:kube-system:namespace-controller", "system:serviceaccounts", "system:serviceaccounts:kube-system")

	gcc := func(name string) *v1alpha1.GatewayClassConfig {
		return &v1alpha1.GatewayClassConfig{
			ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: name},
			Spec: v1alpha1.GatewayClassConfigSpec{
				TargetRef:    v1alpha1.PolicyTargetReference{Kind: "Namespace", Name: tenant},
				PolicyValues: v1alpha1.PolicyValues{Override: &apiextensionsv1.JSON{Raw: []byte(`{"replicas":1}`)}},
			},
		}
	}
	refusedByPolicy := func(what string, err error) {
		t.Helper()
		t.Logf("%s: %v", what, err) // the message users see, with -v
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), gccPolicy) {
			t.Errorf("%s: want a denial by %s, got %v", what, gccPolicy, err)
		} else if !strings.Contains(err.Error(), "GatewayClassConfig "+tenant+"/") || !strings.Contains(err.Error(), "user bob may not") {
			t.Errorf("%s: the denial does not name the object and the user: %v", what, err)
		}
	}
	refusedByRBAC := func(what string, err error) {
		t.Helper()
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "cannot ") {
			t.Errorf("%s: want an RBAC denial, got %v", what, err)
		}
	}
	// The tenant writes its own kinds in its namespace.
	gw := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "web"}, Spec: gwv1.GatewaySpec{
		GatewayClassName: "proxy", Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}},
	}}
	route := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "ra"}, Spec: gwv1.HTTPRouteSpec{
		CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Name: "web"}}},
	}}
	config := &v1alpha1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "web"}, Spec: v1alpha1.GatewayConfigSpec{
		TargetRef:    v1alpha1.PolicyTargetReference{Group: gwv1.GroupName, Kind: "Gateway", Name: "web"},
		PolicyValues: v1alpha1.PolicyValues{Default: &apiextensionsv1.JSON{Raw: []byte(`{"replicas":2}`)}},
	}}
	for _, o := range []client.Object{gw, route, config} {
		if err := alice.Create(ctx, o); err != nil {
			t.Errorf("tenant create %T %s/%s: %v", o, tenant, o.GetName(), err)
		}
	}
	config.Spec.Default = &apiextensionsv1.JSON{Raw: []byte(`{"replicas":3}`)}
	if err := alice.Update(ctx, config); err != nil {
		t.Errorf("tenant update GatewayConfig %s/web: %v", tenant, err)
	}
	if err := alice.Get(ctx, client.ObjectKey{Name: "any"}, &gwv1.GatewayClass{}); !apierrors.IsNotFound(err) {
		t.Errorf("tenant get GatewayClass: want NotFound (read allowed), got %v", err)
	}
	if err := alice.List(ctx, &gwv1.GatewayClassList{}); err != nil {
		t.Errorf("tenant list GatewayClasses: %v", err)
	}
	// ... and nothing else: not the platform's kinds, not status, not another namespace.
	refusedByRBAC("tenant create GatewayClassConfig in its namespace", alice.Create(ctx, gcc("mine")))
	refusedByRBAC("tenant list GatewayClassConfigs", alice.List(ctx, &v1alpha1.GatewayClassConfigList{}, client.InNamespace(tenant)))
	refusedByRBAC("tenant create GatewayClassBlueprint", alice.Create(ctx, &v1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "mine"}}))
	refusedByRBAC("tenant create GatewayClass", alice.Create(ctx, &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "mine"}, Spec: gwv1.GatewayClassSpec{ControllerName: v1alpha1.ControllerName}}))
	refusedByRBAC("tenant write GatewayConfig status", alice.Status().Update(ctx, config))
	refusedByRBAC("tenant write Gateway status", alice.Status().Update(ctx, gw))
	otherConfig := config.DeepCopy()
	otherConfig.Namespace, otherConfig.ResourceVersion = other, ""
	refusedByRBAC("tenant create GatewayConfig in another namespace", alice.Create(ctx, otherConfig))

	// The policy works once the API server's admission has seen it and its binding: probe
	// with a dry run, which passes admission and stores nothing.
	eventually(t, gccPolicy+" in force", func() error {
		err := bob.Create(ctx, gcc("probe"), client.DryRunAll)
		if apierrors.IsForbidden(err) && strings.Contains(err.Error(), gccPolicy) {
			return nil
		}
		return fmt.Errorf("bob's dry-run create of a GatewayClassConfig in %s: %v", tenant, err)
	})

	// A namespace admin with GatewayClassConfig write in that namespace alone: RBAC lets the
	// request through, the policy refuses create, update and delete.
	refusedByPolicy("namespace admin create GatewayClassConfig", bob.Create(ctx, gcc("bob")))
	if err := admin.Get(ctx, client.ObjectKey{Namespace: tenant, Name: "bob"}, &v1alpha1.GatewayClassConfig{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused GatewayClassConfig exists: %v", err)
	}
	existing := gcc("platform")
	mustCreate(t, admin, existing)
	byBob := &v1alpha1.GatewayClassConfig{}
	if err := bob.Get(ctx, client.ObjectKeyFromObject(existing), byBob); err != nil {
		t.Fatalf("namespace admin get GatewayClassConfig: %v", err)
	}
	byBob.Spec.Override = &apiextensionsv1.JSON{Raw: []byte(`{"replicas":0}`)}
	refusedByPolicy("namespace admin update GatewayClassConfig", bob.Update(ctx, byBob))
	patch := client.MergeFrom(existing.DeepCopy())
	withLabel := existing.DeepCopy()
	withLabel.Labels = map[string]string{"mine": "yes"}
	refusedByPolicy("namespace admin patch GatewayClassConfig", bob.Patch(ctx, withLabel, patch))
	refusedByPolicy("namespace admin delete GatewayClassConfig", bob.Delete(ctx, existing))
	after := &v1alpha1.GatewayClassConfig{}
	if err := admin.Get(ctx, client.ObjectKeyFromObject(existing), after); err != nil {
		t.Fatalf("the platform's GatewayClassConfig after the refusals: %v", err)
	}
	if got := string(after.Spec.Override.Raw); got != `{"replicas":1}` || after.Labels["mine"] != "" || after.ResourceVersion != existing.ResourceVersion {
		t.Errorf("the platform's GatewayClassConfig changed: override %s, labels %v, resourceVersion %s -> %s", got, after.Labels, existing.ResourceVersion, after.ResourceVersion)
	}

	// The platform role, bound cluster-wide, writes GatewayClassConfigs in any namespace.
	byCarol := gcc("carol")
	if err := carol.Create(ctx, byCarol); err != nil {
		t.Fatalf("platform create GatewayClassConfig: %v", err)
	}
	byCarol.Spec.Override = &apiextensionsv1.JSON{Raw: []byte(`{"replicas":4}`)}
	if err := carol.Update(ctx, byCarol); err != nil {
		t.Errorf("platform update GatewayClassConfig: %v", err)
	}
	if err := carol.Delete(ctx, byCarol); err != nil {
		t.Errorf("platform delete GatewayClassConfig: %v", err)
	}
	if err := carol.Create(ctx, &v1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "platform"}}); err != nil {
		t.Errorf("platform create GatewayClassBlueprint: %v", err)
	}
	if err := carol.List(ctx, &v1alpha1.GatewayConfigList{}); err != nil {
		t.Errorf("platform list GatewayConfigs: %v", err)
	}
	refusedByRBAC("platform create GatewayConfig (the tenant's kind)", carol.Create(ctx, otherConfig))

	// Gantry's ServiceAccount is let through by name; the namespace controller by its
	// cluster-wide delete.
	if err := gantry.Create(ctx, gcc("gantry")); err != nil {
		t.Errorf("Gantry's ServiceAccount create GatewayClassConfig: %v", err)
	}
	if err := nsController.Delete(ctx, existing); err != nil {
		t.Errorf("namespace controller delete GatewayClassConfig: %v", err)
	}
	if err := admin.Get(ctx, client.ObjectKeyFromObject(existing), &v1alpha1.GatewayClassConfig{}); !apierrors.IsNotFound(err) {
		t.Errorf("GatewayClassConfig after the namespace controller's delete: %v", errors.Join(err, errors.New("still there")))
	}
}

// The policy is a value: off, the chart installs no ValidatingAdmissionPolicy (for clusters
// before Kubernetes 1.30, which lack admissionregistration.k8s.io/v1's).
func TestChartGatewayClassConfigPolicyToggle(t *testing.T) {
	dir := filepath.Join(testenv.Root(), "charts", "gantry")
	kinds := func(values map[string]any) map[string]string {
		objs, err := install.Render(dir, "gantry", "gantry-system", values)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, o := range objs {
			out[o.GetKind()+"/"+o.GetName()] = o.GetAPIVersion()
		}
		return out
	}
	on := kinds(nil)
	for _, want := range []string{
		"ClusterRole/gantry-tenant", "ClusterRole/gantry-platform",
		"ValidatingAdmissionPolicy/" + gccPolicy, "ValidatingAdmissionPolicyBinding/" + gccPolicy,
	} {
		if _, ok := on[want]; !ok {
			t.Errorf("default chart lacks %s", want)
		}
	}
	off := kinds(map[string]any{"admission": map[string]any{"gatewayClassConfigWriters": false}})
	for k := range off {
		if strings.HasPrefix(k, "ValidatingAdmissionPolicy") {
			t.Errorf("with the policy off the chart still installs %s", k)
		}
	}
	if _, ok := off["ClusterRole/gantry-tenant"]; !ok {
		t.Error("with the policy off the chart lacks the tenant role")
	}
}
