package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/cli"
	"gantry.dev/gantry/internal/golden"
	"gantry.dev/gantry/internal/playground"
	"gantry.dev/gantry/internal/testenv"
)

// startCluster runs the playground on the sample (a real kube-apiserver and etcd, the controller
// in-process, every Gateway settled) and points KUBECONFIG at it, as a user's shell would be.
func startCluster(t *testing.T) {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- playground.Run(ctx, io.Discard, playground.Options{Paths: []string{sample}, Kubeconfig: kubeconfig, Ready: func() { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("playground: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("playground: %v", err)
		}
	})
	t.Setenv("KUBECONFIG", kubeconfig)
}

// clusterClient reads the test's cluster, for checks; its requests are not counted.
func clusterClient(t *testing.T) client.Client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func gantry(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := cli.Run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// writeFile writes a local manifest for a test and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// editedBlueprint writes the sample's blueprint with edit applied to its spec.
func editedBlueprint(t *testing.T, edit func(spec map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sample, "blueprint.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var bp map[string]any
	if err := yaml.Unmarshal(b, &bp); err != nil {
		t.Fatal(err)
	}
	edit(bp["spec"].(map[string]any))
	out, err := yaml.Marshal(bp)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "blueprint.yaml", string(out))
}

// gatewayTemplates is a blueprint spec's gatewayTemplate.resourceTemplates.
func gatewayTemplates(spec map[string]any) map[string]any {
	return spec["gatewayTemplate"].(map[string]any)["resourceTemplates"].(map[string]any)
}

// withoutTemplate is the sample's blueprint with one gateway template removed.
func withoutTemplate(t *testing.T, key string) string {
	t.Helper()
	return editedBlueprint(t, func(spec map[string]any) { delete(gatewayTemplates(spec), key) })
}

// withRouteTemplate writes the sample's blueprint with an httpRouteTemplate of one template.
func withRouteTemplate(t *testing.T, tmpl string) string {
	t.Helper()
	return editedBlueprint(t, func(spec map[string]any) {
		spec["httpRouteTemplate"] = map[string]any{"resourceTemplates": map[string]any{"per-route": tmpl}}
	})
}

const replicasSix = `apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayConfig
metadata:
  name: team-a-defaults
  namespace: team-a
spec:
  targetRef: {group: "", kind: Namespace, name: team-a}
  default:
    replicas: 6
`

// TestLive runs the cluster commands against a converged controller. Every request they send
// is counted below the read-only guard: none may be a write other than a dry-run.
func TestLive(t *testing.T) {
	startCluster(t)
	requests := cli.CountRequests(t)

	t.Run("render --cluster is the offline render of the same manifests", func(t *testing.T) {
		code, offline, errOut := gantry("render", sample)
		if code != 0 {
			t.Fatalf("offline render: exit %d: %s", code, errOut)
		}
		code, live, errOut := gantry("render", "--cluster", "-A")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if live != offline {
			t.Errorf("render --cluster -A differs from the offline render:\n%s", golden.Diff(offline, live))
		}
	})

	t.Run("render --cluster prints what the controller applied", func(t *testing.T) {
		code, out, errOut := gantry("render", "--cluster", "-A", "-o", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		list := &unstructured.UnstructuredList{} // numbers as the API server's objects hold them
		if err := list.UnmarshalJSON([]byte(out)); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		if len(list.Items) != 8 {
			t.Errorf("rendered %d objects, want 8 (4 for each of the 2 Gateways)", len(list.Items))
		}
		c := clusterClient(t)
		for i := range list.Items {
			want := &list.Items[i]
			have := &unstructured.Unstructured{}
			have.SetGroupVersionKind(want.GroupVersionKind())
			if err := c.Get(t.Context(), client.ObjectKeyFromObject(want), have); err != nil {
				t.Errorf("%s %s: %v", want.GetKind(), client.ObjectKeyFromObject(want), err)
				continue
			}
			if !controllers.Unchanged(have, want) {
				t.Errorf("%s %s rendered is not what the controller applied:\n%v\nlive:\n%v", want.GetKind(), client.ObjectKeyFromObject(want), want.Object, have.Object)
			}
		}
	})

	t.Run("render --cluster takes local files over the cluster's", func(t *testing.T) {
		code, out, errOut := gantry("render", "--cluster", "-n", "team-a", "--show-values", "-o", "json", writeFile(t, "policy.yaml", replicasSix))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		// One JSON document (issue 21: it was a comment line and a document per Gateway).
		var got []struct {
			Gateway string         `json:"gateway"`
			Values  map[string]any `json:"values"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("not one JSON document: %v\n%s", err, out)
		}
		if len(got) != 1 || got[0].Gateway != "team-a/web" {
			t.Errorf("-n team-a renders team-a's Gateways only:\n%s", out)
		}
		if !strings.Contains(out, `"replicas": 6`) {
			t.Errorf("the local policy does not replace the cluster's:\n%s", out)
		}
	})

	t.Run("render --cluster names a missing Gateway", func(t *testing.T) {
		code, _, errOut := gantry("render", "--cluster", "--gateway", "team-a/nope")
		if code == 0 || !strings.Contains(errOut, "Gateway team-a/nope") {
			t.Errorf("exit %d, stderr %q; want an error naming the Gateway", code, errOut)
		}
	})

	t.Run("diff is empty after convergence", func(t *testing.T) {
		code, out, errOut := gantry("diff", "-A")
		if code != 0 {
			t.Fatalf("exit %d, want 0 (no change):\n%s%s", code, out, errOut)
		}
	})

	t.Run("diff of the files the cluster was made from is clean", func(t *testing.T) {
		// Issue 21: the files' Gateways have no status; what the controller would write is
		// compared with what is live, as kubectl diff compares what an apply would change.
		code, out, errOut := gantry("diff", "-A", sample)
		if code != 0 {
			t.Fatalf("exit %d, want 0 (the files are the cluster):\n%s%s", code, out, errOut)
		}
	})

	t.Run("diff does not prune what the controller cannot prove its own", func(t *testing.T) {
		// A tenant can write Gantry's labels and owner annotation on any object of their
		// namespace; without the Gateway's owner reference the controller neither reads it as
		// .Resources nor prunes it, and diff must not say it would.
		forged := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "forged", Namespace: "team-a",
			Labels:      map[string]string{"gateway.gantry.dev/template": "serviceaccount", "gateway.networking.k8s.io/gateway-name": "web"},
			Annotations: map[string]string{"gateway.gantry.dev/owner": "team-a/web"}}}
		if err := clusterClient(t).Create(t.Context(), forged); err != nil { // the test's write, not a command's
			t.Fatal(err)
		}
		code, out, errOut := gantry("diff", "-A")
		if code != 0 {
			t.Errorf("exit %d, want 0:\n%s%s", code, out, errOut)
		}
	})

	t.Run("diff shows exactly a local policy edit", func(t *testing.T) {
		code, out, errOut := gantry("diff", "-A", writeFile(t, "policy.yaml", replicasSix))
		if code != 1 {
			t.Fatalf("exit %d, want 1 (changes):\n%s%s", code, out, errOut)
		}
		for _, want := range []string{"Gateway team-a/web", "~ update Deployment team-a/web", "-  replicas: 5", "+  replicas: 6"} {
			if !strings.Contains(out, want) {
				t.Errorf("diff lacks %q:\n%s", want, out)
			}
		}
		for _, not := range []string{"team-b", "create", "prune", "Service team-a"} {
			if strings.Contains(out, not) {
				t.Errorf("diff shows %q, which the edit does not change:\n%s", not, out)
			}
		}
	})

	t.Run("diff --set is a what-if layer above every policy", func(t *testing.T) {
		// Issue 21: diff takes --set and -f as render does, for the render after only.
		code, out, errOut := gantry("diff", "-A", "--gateway", "team-a/web", "--set", "replicas=7")
		if code != 1 {
			t.Fatalf("exit %d, want 1 (changes):\n%s%s", code, out, errOut)
		}
		for _, want := range []string{"~ update Deployment team-a/web", "-  replicas: 5", "+  replicas: 7"} {
			if !strings.Contains(out, want) {
				t.Errorf("diff lacks %q:\n%s", want, out)
			}
		}
		// The same value from a file: the Deployment stays, but the policy that set it would be
		// overridden, and its status would say so.
		values := writeFile(t, "values.yaml", "replicas: 5\n")
		code, out, errOut = gantry("diff", "-A", "--gateway", "team-a/web", "-f", values)
		if code != 1 || strings.Contains(out, "Deployment") || !strings.Contains(out, "policy GatewayConfig team-a/team-a-defaults: Enforced -> Overridden") {
			t.Errorf("-f with the value the Gateway already has: exit %d, want 1 with the policy overridden and no Deployment change:\n%s%s", code, out, errOut)
		}
		if code, _, errOut := gantry("diff", "-A", "--set", "replicas"); code != 2 || !strings.Contains(errOut, "replicas") {
			t.Errorf("a --set without a value: exit %d, stderr %q; want 2 naming it", code, errOut)
		}
	})

	t.Run("diff of a blueprint change summarises the fleet first", func(t *testing.T) {
		// Issue 23, item 2: a blueprint change that breaks Gateways is seen first, with why, before
		// the Gateways' own diffs.
		path := editedBlueprint(t, func(spec map[string]any) {
			gatewayTemplates(spec)["guard"] = `{{ if eq .Gateway.metadata.namespace "team-b" }}{{ fail "team-b is not ready for this" }}{{ end }}`
		})
		code, text, errOut := gantry("diff", "-A", path)
		if code != 1 || !strings.HasPrefix(text, "# Summary: 1 of 2 Gateways would change: status of 1 Gateway; 1 failure\n# would fail to render: Gateway team-b/api: ") ||
			!strings.Contains(text, "team-b is not ready for this") {
			t.Errorf("exit %d, want 1 and a summary naming team-b/api first:\n%s%s", code, text, errOut)
		}
		code, js, _ := gantry("diff", "-A", "-o", "json", path)
		var got struct {
			Summary struct {
				Gateways, Changed int
				Failing           []string
			}
		}
		if err := json.Unmarshal([]byte(js), &got); code != 1 || err != nil || got.Summary.Gateways != 2 || got.Summary.Changed != 1 || len(got.Summary.Failing) != 1 {
			t.Errorf("-o json: exit %d, %v, summary %+v:\n%s", code, err, got.Summary, js)
		}
	})

	t.Run("diff shows the prune of a removed template", func(t *testing.T) {
		code, out, errOut := gantry("diff", "-A", withoutTemplate(t, "pdb"))
		if code != 1 {
			t.Fatalf("exit %d, want 1:\n%s%s", code, out, errOut)
		}
		for _, want := range []string{"- prune PodDisruptionBudget team-a/web", "- prune PodDisruptionBudget team-b/api"} {
			if !strings.Contains(out, want) {
				t.Errorf("diff lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "update") {
			t.Errorf("removing a template updates nothing:\n%s", out)
		}
	})

	t.Run("diff shows a policy whose outcome would change", func(t *testing.T) {
		// team-a's second default for every Gateway of the namespace: level 4, like
		// team-a-defaults, but newer, so higher, and a default loses to a lower one.
		more := writeFile(t, "policy.yaml", `apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayConfig
metadata: {name: team-a-more, namespace: team-a}
spec:
  targetRef: {group: "", kind: Namespace, name: team-a}
  default: {replicas: 7}
`)
		code, out, errOut := gantry("diff", "-A", more)
		if code != 1 {
			t.Fatalf("exit %d, want 1:\n%s%s", code, out, errOut)
		}
		for _, want := range []string{
			"~ policy GatewayConfig team-a/team-a-more: (none) -> Overridden",
			"+    (Enforced), GatewayConfig team-a/team-a-more (Overridden)", // the Gateway's GatewayConfigAffected condition
		} {
			if !strings.Contains(out, want) {
				t.Errorf("diff lacks %q:\n%s", want, out)
			}
		}
		for _, not := range []string{"team-b", "~ update", "team-a-defaults:"} {
			if strings.Contains(out, not) {
				t.Errorf("diff shows %q, which the policy does not change:\n%s", not, out)
			}
		}
	})

	t.Run("diff of a Gateway that would fail to render", func(t *testing.T) {
		bad := writeFile(t, "policy.yaml", strings.Replace(replicasSix, "replicas: 6", "replicas: many", 1))
		code, out, errOut := gantry("diff", "-A", bad)
		if code != 1 {
			t.Fatalf("exit %d, want 1:\n%s%s", code, out, errOut)
		}
		for _, want := range []string{
			"! cannot render, nothing would be applied or pruned: blueprint proxy valuesSchema",
			"GatewayConfig team-a/team-a-defaults",
			"+  reason: InvalidParameters",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("diff lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "~ update") || strings.Contains(out, "- prune") {
			t.Errorf("a Gateway that fails to render changes no object:\n%s", out)
		}
	})

	t.Run("diff of a Gateway only in the local files", func(t *testing.T) {
		shop := writeFile(t, "gateway.yaml", `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: shop, namespace: team-b}
spec:
  gatewayClassName: internet
  listeners: [{name: http, port: 80, protocol: HTTP}]
`)
		code, out, errOut := gantry("diff", "-n", "team-b", shop)
		if code != 1 {
			t.Fatalf("exit %d, want 1:\n%s%s", code, out, errOut)
		}
		for _, want := range []string{"# Gateway team-b/shop\n", "+ create Deployment team-b/shop\n+apiVersion: apps/v1\n", "+ create ServiceAccount team-b/shop", "+  replicas: 3\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("diff lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "team-a") || strings.Contains(out, "# Gateway team-b/api") {
			t.Errorf("-n team-b shows team-b's new Gateway only:\n%s", out)
		}
	})

	t.Run("diff -o json", func(t *testing.T) {
		code, out, errOut := gantry("diff", "-A", "-o", "json", writeFile(t, "policy.yaml", replicasSix))
		if code != 1 {
			t.Fatalf("exit %d:\n%s%s", code, out, errOut)
		}
		var got struct {
			Gateways []struct {
				Gateway string
				Update  []struct{ Object, Diff string }
			}
		}
		if err := yaml.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		if len(got.Gateways) != 1 || got.Gateways[0].Gateway != "team-a/web" || len(got.Gateways[0].Update) != 1 || got.Gateways[0].Update[0].Object != "Deployment team-a/web" {
			t.Errorf("json = %+v", got)
		}
	})

	t.Run("diff --concurrency does not change the output", func(t *testing.T) {
		// Issue 23: Gateways are diffed several at once. A new default memory request updates
		// both live Gateways' Deployments (dry-runs); six Gateways only in the local files make
		// more Gateways than workers, in both namespaces, so that order can go wrong.
		edit := editedBlueprint(t, func(spec map[string]any) {
			spec["values"].(map[string]any)["default"].(map[string]any)["resources"] = map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "192Mi"}}
		})
		var gateways strings.Builder
		for _, ns := range []string{"team-b", "team-a"} {
			for _, name := range []string{"z", "m", "b"} {
				fmt.Fprintf(&gateways, "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: %s, namespace: %s}\nspec:\n  gatewayClassName: internet\n  listeners: [{name: http, port: 80, protocol: HTTP}]\n", name, ns)
			}
		}
		local := writeFile(t, "gateways.yaml", gateways.String())
		for _, output := range []string{"text", "json"} {
			code, serial, errOut := gantry("diff", "-A", "-o", output, "--concurrency", "1", edit, local)
			if code != 1 {
				t.Fatalf("-o %s --concurrency 1: exit %d, want 1:\n%s%s", output, code, serial, errOut)
			}
			order := []string{"team-a/b", "team-a/m", "team-a/web", "team-a/z", "team-b/api", "team-b/b", "team-b/m", "team-b/z"}
			at := -1
			for _, gw := range order {
				i := strings.Index(serial, `"gateway": "`+gw+`"`)
				if output == "text" {
					i = strings.Index(serial, "# Gateway "+gw+"\n")
				}
				if i <= at {
					t.Errorf("-o %s --concurrency 1: Gateway %s missing or out of order (want %v):\n%s", output, gw, order, serial)
				}
				at = i
			}
			if !strings.Contains(serial, "Deployment team-b/api") || !strings.Contains(serial, "192Mi") {
				t.Errorf("-o %s: the live Gateways' Deployment updates are missing:\n%s", output, serial)
			}
			for _, n := range []string{"3", "8", "64"} {
				code, out, errOut := gantry("diff", "-A", "-o", output, "--concurrency", n, edit, local)
				if code != 1 || out != serial {
					t.Errorf("-o %s --concurrency %s: exit %d, output differs from --concurrency 1:\n%s%s", output, n, code, golden.Diff(serial, out), errOut)
				}
			}
		}
		if code, _, errOut := gantry("diff", "-A", "--concurrency", "0"); code != 2 || !strings.Contains(errOut, "--concurrency") {
			t.Errorf("--concurrency 0: exit %d, stderr %q; want 2", code, errOut)
		}
	})

	t.Run("diff on error exits 2", func(t *testing.T) {
		code, _, errOut := gantry("diff", "--context", "nope")
		if code != 2 || !strings.Contains(errOut, "nope") {
			t.Errorf("exit %d, stderr %q; want 2 and the context named", code, errOut)
		}
	})

	t.Run("explain gateway lists only policies that could apply", func(t *testing.T) {
		// Issue 21: every other class's global policy was listed as NotApplicable, "does not
		// exist in the manifests".
		other := &v1alpha1.GatewayClassConfig{ObjectMeta: metav1.ObjectMeta{Name: "other-class", Namespace: "gantry-system"},
			Spec: v1alpha1.GatewayClassConfigSpec{TargetRef: v1alpha1.PolicyTargetReference{Group: gwv1.GroupName, Kind: "GatewayClass", Name: "internal"}}}
		c := clusterClient(t)
		if err := c.Create(t.Context(), other); err != nil { // the test's write
			t.Fatal(err)
		}
		defer c.Delete(t.Context(), other)
		code, out, errOut := gantry("explain", "gateway", "team-a/web")
		if code != 0 || strings.Contains(out, "other-class") || !strings.Contains(out, "internet-global") {
			t.Errorf("exit %d; want internet-global and not other-class:\n%s%s", code, out, errOut)
		}
	})

	t.Run("explain gateway", func(t *testing.T) {
		before, _, _ := requests()
		code, out, errOut := gantry("explain", "gateway", "team-a/web")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, want := range []*regexp.Regexp{
			regexp.MustCompile(`(?m)^Gateway team-a/web$`),
			regexp.MustCompile(`(?m)^Class:\s+internet$`),
			regexp.MustCompile(`(?m)^Blueprint:\s+proxy$`),
			regexp.MustCompile(`(?m)^\s+Programmed\s+True\s+Programmed\s+4 rendered objects applied$`),
			regexp.MustCompile(`(?m)^\s+https\s+443/HTTPS\s+0 routes`),
			regexp.MustCompile(`(?m)^replicas\s+5\s+GatewayConfig team-a/team-a-defaults\s+default`),
			regexp.MustCompile(`(?m)^GatewayConfig team-a/web\s+5 \(GatewayConfig for Gateway\)\s+PartiallyEnforced`),
			regexp.MustCompile(`(?m)^Deployment\s+team-a/web\s+deployment\s+`),
			// Health, as kstatus computes it: envtest runs no controller-manager, so the
			// Deployment never becomes available.
			regexp.MustCompile(`(?m)^\s+gateway.gantry.dev/Healthy\s+False\s+InProgress\s+\S+ team-a/web is not ready$`),
			regexp.MustCompile(`(?m)^Deployment\s+team-a/web\s+deployment\s+InProgress \(`),
			regexp.MustCompile(`(?m)^ServiceAccount\s+team-a/web\s+serviceaccount\s+Current$`),
		} {
			if !want.MatchString(out) {
				t.Errorf("explain lacks %s:\n%s", want, out)
			}
		}
		after, _, _ := requests()
		for _, r := range after[len(before):] {
			if everything(r) {
				t.Errorf("explain gateway lists everything: GET %s", r)
			}
		}
	})

	t.Run("explain policy", func(t *testing.T) {
		// The controller writes policy status a moment after the Gateways settle.
		testenv.Eventually(t, "explain policy shows the policy's outcome on its Gateway", func() error {
			code, out, errOut := gantry("explain", "policy", "team-a/web")
			if code != 0 {
				return fmt.Errorf("exit %d: %s", code, errOut)
			}
			for _, want := range []*regexp.Regexp{
				regexp.MustCompile(`(?m)^GatewayConfig team-a/web$`),
				regexp.MustCompile(`(?m)^Target:\s+Gateway web$`),
				regexp.MustCompile(`(?m)^Gateway team-a/web\s+Accepted\s+True\s+Accepted`),
				regexp.MustCompile(`(?m)^Gateway team-a/web\s+gateway.gantry.dev/Enforced\s+True\s+PartiallyEnforced`),
			} {
				if !want.MatchString(out) {
					return fmt.Errorf("lacks %s:\n%s", want, out)
				}
			}
			return nil
		})
	})

	t.Run("explain names what is missing", func(t *testing.T) {
		for args, want := range map[string]string{
			"explain gateway team-a/nope": "Gateway team-a/nope not found",
			"explain policy team-a/nope":  "no GatewayConfig or GatewayClassConfig team-a/nope",
			"explain route team-a/nope":   "no route team-a/nope (looked for a HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute)",
			"explain gateway web":         "namespace/name",
		} {
			code, _, errOut := gantry(strings.Fields(args)...)
			if code == 0 || !strings.Contains(errOut, want) {
				t.Errorf("%s: exit %d, stderr %q; want an error with %q", args, code, errOut, want)
			}
		}
	})

	t.Run("completion of names", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want []string
		}{
			{[]string{"explain", "gateway", "team-"}, []string{"team-a/web", "team-b/api"}},
			{[]string{"explain", "policy", "team-a/"}, []string{"team-a/cpu-tuning", "team-a/internet-sizing", "team-a/team-a-budget", "team-a/team-a-defaults", "team-a/web"}},
			{[]string{"diff", "-n", "team-b", "--gateway", ""}, []string{"team-b/api"}},
			{[]string{"render", "--cluster", "--gateway", "team-a/w"}, []string{"team-a/web"}},
			{[]string{"explain", "gateway", "--context", "nope", "team-a"}, nil},
		} {
			args, want := strings.Join(c.args, " "), c.want
			code, out, errOut := gantry(append([]string{"__complete"}, c.args...)...)
			if code != 0 {
				t.Errorf("%s: exit %d: %s", args, code, errOut)
				continue
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if !strings.HasPrefix(l, ":") {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: completions %q, want %q", args, got, want)
			}
		}
	})

	t.Run("colour only when asked or on a terminal", func(t *testing.T) {
		edit := writeFile(t, "policy.yaml", replicasSix)
		_, plain, _ := gantry("diff", "-A", edit)
		_, always, _ := gantry("diff", "-A", "--color", "always", edit)
		if strings.Contains(plain, "\x1b[") {
			t.Errorf("colour on a pipe:\n%q", plain)
		}
		if !strings.Contains(always, "\x1b[32m+  replicas: 6\x1b[0m") {
			t.Errorf("--color always shows no colour:\n%q", always)
		}
	})

	t.Run("README", func(t *testing.T) { checkReadme(t) })

	// Last: the route changes team-a/web's status, which the README shows.
	t.Run("explain gateway NAME -n NAMESPACE", func(t *testing.T) {
		// Issue 21: as kubectl's -n.
		code, out, errOut := gantry("explain", "gateway", "web", "-n", "team-a")
		if code != 0 || !strings.Contains(out, "Gateway team-a/web\n") {
			t.Errorf("exit %d:\n%s%s", code, out, errOut)
		}
	})

	t.Run("explain route", func(t *testing.T) {
		route := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-a"},
			Spec: gwv1.HTTPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Name: "web"}}}}}
		if err := clusterClient(t).Create(t.Context(), route); err != nil { // the test's write
			t.Fatal(err)
		}
		testenv.Eventually(t, "explain route shows the route accepted by its Gateway", func() error {
			code, out, errOut := gantry("explain", "route", "team-a/shop")
			if code != 0 {
				return fmt.Errorf("exit %d: %s", code, errOut)
			}
			for _, want := range []*regexp.Regexp{
				regexp.MustCompile(`(?m)^HTTPRoute team-a/shop$`),
				regexp.MustCompile(`(?m)^Parent team-a/web \(controller gantry.dev/gateway-controller\):$`),
				regexp.MustCompile(`(?m)^\s+Accepted\s+True\s+Accepted`),
				regexp.MustCompile(`(?m)^Rendered objects on Gateway team-a/web: none \(blueprint \S+ has no httpRouteTemplate\)$`),
			} {
				if !want.MatchString(out) {
					return fmt.Errorf("lacks %s:\n%s", want, out)
				}
			}
			return nil
		})
	})

	t.Run("explain route of another kind", func(t *testing.T) {
		// Issue 20: explain route takes every kind; a TCPRoute on a Gateway without a TCP
		// listener is explained as not accepted there.
		route := &gwv1.TCPRoute{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "team-a"},
			Spec: gwv1.TCPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Name: "web"}}},
				Rules: []gwv1.TCPRouteRule{{BackendRefs: []gwv1.BackendRef{{BackendObjectReference: gwv1.BackendObjectReference{Name: "db", Port: new(gwv1.PortNumber(5432))}}}}}}}
		if err := clusterClient(t).Create(t.Context(), route); err != nil { // the test's write
			t.Fatal(err)
		}
		code, out, errOut := gantry("explain", "route", "team-a/db")
		if code != 0 || !strings.Contains(out, "TCPRoute team-a/db\n") || !strings.Contains(out, "On Gateway team-a/web: not accepted (NotAllowedByListeners)") {
			t.Errorf("exit %d:\n%s%s", code, out, errOut)
		}
		if code, _, errOut := gantry("explain", "route", "--kind", "HTTPRoute", "team-a/db"); code == 0 || !strings.Contains(errOut, "no route team-a/db (looked for a HTTPRoute)") {
			t.Errorf("--kind HTTPRoute: exit %d, stderr %q", code, errOut)
		}
	})

	// After "explain route", which attached team-a/shop.
	t.Run("diff shows a route a blueprint change would fail", func(t *testing.T) {
		// Issue 21: a blueprint change that fails a tenant's route showed only the counts of
		// rendered objects; the route's outcome is in the diff.
		code, out, errOut := gantry("diff", "-n", "team-a", withRouteTemplate(t, `{{ fail "routes are not served here" }}`))
		if code != 1 || !strings.Contains(out, "~ HTTPRoute team-a/shop: Accepted, Rendered -> Rendered=False: ") || !strings.Contains(out, "routes are not served here") {
			t.Errorf("exit %d, want 1 and the route's new outcome:\n%s%s", code, out, errOut)
		}
	})

	reads, dryRuns, writes := requests()
	if len(reads) == 0 || dryRuns == 0 {
		t.Errorf("counted %d reads and %d dry-runs: the counter does not see the commands' requests", len(reads), dryRuns)
	}
	if len(writes) > 0 {
		t.Errorf("writes reached the API server: %v", writes)
	}
}

// varying are the parts of the cluster commands' output that differ from one cluster to
// another: UIDs, and the render hashes computed over objects that hold them.
var varying = regexp.MustCompile(`(render-hash: )[0-9a-f]{24}|(uid: )[0-9a-f-]{36}`)

// checkReadme runs the README's cluster commands (render --cluster, diff, explain) from the
// repository root against the test's cluster and compares their output with the README's.
func checkReadme(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testenv.Root(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(testenv.Root())
	n := 0
	for _, ex := range golden.Examples(string(b)) {
		args := strings.Fields(ex.Command)
		if args[0] != "diff" && args[0] != "explain" && !slices.Contains(args, "--cluster") {
			continue // an offline command: samples' tests check those
		}
		n++
		_, out, errOut := gantry(args...)
		got := varying.ReplaceAllString(errOut+out, "$1$2…")
		if want := varying.ReplaceAllString(ex.Output, "$1$2…"); got != want {
			t.Errorf("README.md shows output for `gantry %s` that the command no longer prints; paste this instead:\n%s", ex.Command, errOut+out)
		}
	}
	if n < 3 {
		t.Errorf("README.md shows %d cluster commands with their output, want render --cluster, diff and explain", n)
	}
}

// everything reports whether a read lists a kind across the cluster without a selector: what
// explain must not do, to stay quick with thousands of Gateways.
func everything(r string) bool {
	path, query, _ := strings.Cut(r, "?")
	if strings.Contains(query, "labelSelector") || strings.Contains(path, "/namespaces/") {
		return false
	}
	for _, kind := range []string{"gateways", "gatewayconfigs", "gatewayclassconfigs", "deployments", "services", "namespaces"} {
		if strings.HasSuffix(path, "/"+kind) {
			return true
		}
	}
	return false
}
