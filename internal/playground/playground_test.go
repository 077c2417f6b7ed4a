package playground_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

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
