package playground_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/playground"
	"gantry.dev/gantry/internal/testenv"
)

// TestOnce runs the README's playground on the flagship sample, as `make demo` does with
// --once, and checks that it shows what a newcomer is promised: the objects applied, a
// programmed Gateway, and values with the policy that set them.
func TestOnce(t *testing.T) {
	var out bytes.Buffer
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	var listed []string
	err := playground.Run(t.Context(), &out, playground.Options{
		Paths:      []string{filepath.Join(testenv.Root(), "samples", "defaults-vs-overrides")},
		Once:       true,
		Kubeconfig: kubeconfig,
		Timeout:    2 * time.Minute,
		// What a user's kubectl would do while the playground runs: load the kubeconfig, list.
		Ready: func() {
			cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
			if err != nil {
				t.Errorf("kubeconfig: %v", err)
				return
			}
			c, err := client.New(cfg, client.Options{Scheme: controllers.NewScheme()})
			if err != nil {
				t.Errorf("client from the kubeconfig: %v", err)
				return
			}
			l := &gwv1.GatewayList{}
			if err := c.List(t.Context(), l); err != nil {
				t.Errorf("list Gateways with the kubeconfig: %v", err)
				return
			}
			for _, gw := range l.Items {
				listed = append(listed, gw.Namespace+"/"+gw.Name)
			}
		},
	})
	if err != nil {
		t.Fatalf("playground: %v\n%s", err, out.String())
	}
	if strings.Join(listed, " ") != "team-a/web team-b/api" {
		t.Errorf("Gateways listed through the playground's kubeconfig: %v, want team-a/web team-b/api", listed)
	}
	if _, err := os.Stat(kubeconfig); !os.IsNotExist(err) {
		t.Errorf("the kubeconfig is left behind after the playground stopped (stat: %v)", err)
	}
	got := out.String()
	for _, want := range []string{
		"======== Gateway team-a/web (class internet) ========",
		"Deployment team-a/web (template deployment)",
		"Service team-a/web (template service)",
		"type: Programmed",
		"reason: Programmed",
		"GatewayClassConfig gantry-system/internet-global",
		"======== Gateway team-b/api (class internet) ========",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "status: \"True\"") < 2 {
		t.Errorf("expected True conditions in the output:\n%s", got)
	}
}

// TestChartAndWatch: issue 21. The playground takes a user's own folder while it runs (--watch)
// and runs the controller with the chart's permissions and admission (--chart): an edit of the
// folder reaches the Gateway, and a blueprint that does not compile is refused at apply, as the
// chart's webhook refuses it in a cluster.
func TestChartAndWatch(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(testenv.Root(), "samples", "defaults-vs-overrides")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	var c client.Client
	replicas := func() int32 {
		d := &appsv1.Deployment{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "web"}, d); err != nil {
			t.Errorf("Deployment team-a/web: %v", err)
			return -1
		}
		return *d.Spec.Replicas
	}
	var before, after int32
	var out bytes.Buffer
	err = playground.Run(ctx, &out, playground.Options{
		Paths: []string{dir}, Kubeconfig: kubeconfig, Timeout: 2 * time.Minute, Chart: true, Watch: true,
		Ready: func() {
			cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
			if err == nil {
				c, err = client.New(cfg, client.Options{Scheme: controllers.NewScheme()})
			}
			if err != nil {
				t.Error(err)
				cancel()
				return
			}
			before = replicas()
			// A watch that never fires must fail the test, not hang it.
			stop := time.AfterFunc(90*time.Second, func() { t.Error("the edit was not applied within 90 s"); cancel() })
			t.Cleanup(func() { stop.Stop() })
			broken := &v1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "broken"}, Spec: v1alpha1.GatewayClassBlueprintSpec{
				GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{"x": "{{ if }}"}}}}
			if err := c.Create(ctx, broken); err == nil || !strings.Contains(err.Error(), "denied the request") {
				t.Errorf("a blueprint that does not compile, under --chart: %v; want the chart's webhook to refuse it", err)
			}
			// The user's edit: team-a's namespace default of 5 replicas becomes 4.
			p := filepath.Join(dir, "team-a.yaml")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Error(err)
				cancel()
				return
			}
			edited := strings.Replace(string(b), "replicas: 5", "replicas: 4", 1)
			if edited == string(b) {
				t.Error("team-a.yaml has no 'replicas: 5' to edit")
				cancel()
				return
			}
			if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
				t.Error(err)
				cancel()
			}
		},
		Changed: func() {
			after = replicas()
			cancel()
		},
	})
	if err != nil {
		t.Fatalf("playground: %v\n%s", err, out.String())
	}
	if before != 5 || after != 4 {
		t.Errorf("Deployment team-a/web replicas %d before the edit and %d after, want 5 and 4:\n%s", before, after, out.String())
	}
	for _, want := range []string{"Installing the Helm chart", "Watching " + dir, "again ..."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
