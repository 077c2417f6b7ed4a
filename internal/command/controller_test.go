package command

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`

// TestClientRateLimit: the controller's client had client-go's 5 requests per second with
// --kubeconfig and no client-side limit with $KUBECONFIG or in a cluster. The flags give one
// limit whichever way the config is found.
func TestClientRateLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		flag, env string
		args      []string
		qps       float32
		burst     int
	}{
		{name: "--kubeconfig, defaults", flag: path, qps: -1},
		{name: "$KUBECONFIG, defaults", env: path, qps: -1},
		{name: "--kubeconfig, a limit", flag: path, args: []string{"--kube-api-qps=50"}, qps: 50, burst: 100},
		{name: "$KUBECONFIG, a limit and a burst", env: path, args: []string{"--kube-api-qps=50", "--kube-api-burst=70"}, qps: 50, burst: 70},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tt.env)
			cmd := NewController(os.Stderr)
			args := append([]string{}, tt.args...)
			if tt.flag != "" {
				args = append(args, "--kubeconfig="+tt.flag)
			}
			if err := cmd.ParseFlags(args); err != nil {
				t.Fatal(err)
			}
			o := &controllerOptions{}
			o.kubeconfig, _ = cmd.Flags().GetString("kubeconfig")
			o.qps, _ = cmd.Flags().GetFloat32("kube-api-qps")
			o.burst, _ = cmd.Flags().GetInt("kube-api-burst")
			cfg, err := o.clientConfig()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.QPS != tt.qps || cfg.Burst != tt.burst {
				t.Errorf("QPS, burst = %v, %d; want %v, %d", cfg.QPS, cfg.Burst, tt.qps, tt.burst)
			}
		})
	}
}

// TestClientRateLimitIsOneForAllKinds: --kube-api-qps limited each kind's requests on its own,
// since controller-runtime builds a REST client per kind and client-go gave each its own bucket.
// Here a burst of 3 is spent on two kinds; the fourth request, to either, must wait (and so
// fails at once against a short deadline, without timing anything).
func TestClientRateLimitIsOneForAllKinds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(r.URL.Path, "/apis/apps/") {
			fmt.Fprint(w, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"n"}}`)
			return
		}
		fmt.Fprint(w, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n"}}`)
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(strings.Replace(kubeconfig, "https://127.0.0.1:1", srv.URL, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	o := &controllerOptions{kubeconfig: path, qps: 0.001, burst: 3}
	cfg, err := o.clientConfig()
	if err != nil {
		t.Fatal(err)
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	mapper.Add(appsv1.SchemeGroupVersion.WithKind("Deployment"), meta.RESTScopeNamespace)
	c, err := client.New(cfg, client.Options{Mapper: mapper})
	if err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKey{Namespace: "n", Name: "x"}
	for i, obj := range []client.Object{&corev1.ConfigMap{}, &corev1.ConfigMap{}, &appsv1.Deployment{}} {
		if err := c.Get(t.Context(), key, obj); err != nil {
			t.Fatalf("request %d, within the burst: %v", i+1, err)
		}
	}
	for _, obj := range []client.Object{&appsv1.Deployment{}, &corev1.ConfigMap{}} {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		err := c.Get(ctx, key, obj)
		cancel()
		if err == nil {
			t.Errorf("a %T past the burst of 3 across kinds was let through; want it held by the limit", obj)
		}
	}
}
