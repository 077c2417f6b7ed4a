package install_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/internal/cli"
	"gantry.dev/gantry/internal/install"
	"gantry.dev/gantry/internal/testenv"
)

// writeKubeconfig writes a kubeconfig for cfg's API server that acts as user (impersonated by
// cfg's admin credentials, as `kubectl --as` does), with groups and system:authenticated.
func writeKubeconfig(t *testing.T, cfg *rest.Config, user string, groups ...string) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken,
		Impersonate: user, ImpersonateGroups: append(groups, "system:authenticated")}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: user}
	kc.CurrentContext = "envtest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTenantToolsWithTenantRights: issue 21, item 3. With only the chart's gantry-tenant role
// bound in its namespace (and the chart's cluster-wide read grants for GatewayClasses and
// blueprints), a tenant runs explain class, explain gateway, render --cluster and diff: each
// works, and says what it could not read (the platform's GatewayClassConfigs). Without the
// blueprint read grant, explain class says the blueprint is not readable.
func TestTenantToolsWithTenantRights(t *testing.T) {
	ctx := t.Context()
	cfg, _, admin := startAPIServer(t)
	const system, tenant = "gantry-system", "team-a"
	for _, n := range []string{system, tenant} {
		mustCreate(t, admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}})
	}
	objs, err := install.Render(filepath.Join(testenv.Root(), "charts", "gantry"), "gantry", system, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		mustCreate(t, admin, o)
	}
	mustCreate(t, admin, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "alice-tenant"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "gantry-tenant"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "alice"}},
	})

	raw := func(s string) *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte(s)} }
	mustCreate(t, admin, &v1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "proxy"}, Spec: v1alpha1.GatewayClassBlueprintSpec{
		Values:       v1alpha1.ValuesStanzas{Default: raw(`{"replicas": 1, "tier": "bronze"}`)},
		ValuesSchema: raw(`{"type": "object", "properties": {"replicas": {"type": "integer", "maximum": 20}}}`),
		GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{"values": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-values
data:
  replicas: {{ .Values.replicas | quote }}
  tier: {{ .Values.tier | quote }}
`}},
	}})
	mustCreate(t, admin, &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "proxy"}, Spec: gwv1.GatewayClassSpec{
		ControllerName: v1alpha1.ControllerName,
		ParametersRef:  &gwv1.ParametersReference{Group: v1alpha1.GroupName, Kind: "GatewayClassBlueprint", Name: "proxy"},
	}})
	mustCreate(t, admin, &v1alpha1.GatewayClassConfig{ObjectMeta: metav1.ObjectMeta{Namespace: system, Name: "platform"}, Spec: v1alpha1.GatewayClassConfigSpec{
		TargetRef:    v1alpha1.PolicyTargetReference{Group: gwv1.GroupName, Kind: "GatewayClass", Name: "proxy"},
		PolicyValues: v1alpha1.PolicyValues{Default: raw(`{"tier": "gold"}`)},
	}})
	mustCreate(t, admin, &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "web"}, Spec: gwv1.GatewaySpec{
		GatewayClassName: "proxy", Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}},
	}})
	mustCreate(t, admin, &v1alpha1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "web"}, Spec: v1alpha1.GatewayConfigSpec{
		TargetRef:    v1alpha1.PolicyTargetReference{Group: gwv1.GroupName, Kind: "Gateway", Name: "web"},
		PolicyValues: v1alpha1.PolicyValues{Default: raw(`{"replicas": 2}`)},
	}})

	t.Setenv("KUBECONFIG", writeKubeconfig(t, cfg, "alice"))
	gantry := func(stdin string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := cli.Run(args, strings.NewReader(stdin), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	expect := func(what string, code, want int, out string, wants ...string) {
		t.Helper()
		if code != want {
			t.Errorf("%s: exit %d, want %d:\n%s", what, code, want, out)
			return
		}
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("%s: lacks %q:\n%s", what, w, out)
			}
		}
	}
	const unseen = "GatewayClassConfigs in gantry-system"

	code, out, errOut := gantry("", "explain", "class", "proxy")
	expect("explain class", code, 0, out+errOut, "Blueprint:", "proxy", "Values schema (valuesSchema):", "maximum: 20", "Default values", "tier: bronze", "Override values", "(none)")

	code, out, errOut = gantry("", "explain", "gateway", "team-a/web")
	expect("explain gateway", code, 0, out+errOut, "Gateway team-a/web", "GatewayConfig team-a/web", "Not seen: ", unseen)

	code, out, errOut = gantry("", "render", "--cluster", "-n", tenant)
	// Across namespaces the tenant reads its own namespace's objects only.
	const unseenWide = "GatewayClassConfigs outside namespace team-a"
	expect("render --cluster", code, 0, out+errOut, "name: web-values", `replicas: "2"`, "Note: not readable with your rights", unseenWide)

	edit := filepath.Join(t.TempDir(), "gatewayconfig.yaml")
	if err := os.WriteFile(edit, []byte(`apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web, namespace: team-a}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: web}
  default: {replicas: 3}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = gantry("", "diff", "-n", tenant, edit)
	expect("diff", code, 1, out+errOut, "# partial: some inputs are not readable", "(with the local files)", `-  replicas: "2"`, `+  replicas: "3"`, unseenWide)
	if strings.Contains(out, "~ status of Gateway") {
		t.Errorf("diff shows a status it cannot know:\n%s", out)
	}

	// Without the chart's blueprint read grant, explain class says what it could not read.
	if err := admin.Delete(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "gantry-blueprint-reader"}}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "explain class without the blueprint grant", func() error {
		code, out, errOut := gantry("", "explain", "class", "proxy")
		if code != 0 || !strings.Contains(out, "not readable with your rights") {
			return &cliError{code, out + errOut}
		}
		return nil
	})
}

type cliError struct {
	code int
	out  string
}

func (e *cliError) Error() string { return fmt.Sprintf("exit %d:\n%s", e.code, e.out) }
