package command

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestReview16FractionalQPSDefaultBurst: --kube-api-qps below 0.5 with the default burst gives
// int(2*qps) = 0, a bucket that never lets a request through: every request fails with
// "exceeds limiter's burst 0" (before the shared bucket, client-go refused the config instead).
// The default burst must be at least 1.
func TestReview16FractionalQPSDefaultBurst(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n"}}`))
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(strings.Replace(kubeconfig, "https://127.0.0.1:1", srv.URL, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	o := &controllerOptions{kubeconfig: path, qps: 0.4}
	cfg, err := o.clientConfig()
	if err != nil {
		return // refused up front: fine
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	c, err := client.New(cfg, client.Options{Mapper: mapper})
	if err != nil {
		return
	}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "n", Name: "c"}, &corev1.ConfigMap{}); err != nil {
		t.Errorf("--kube-api-qps=0.4: burst %d, the first request fails: %v", cfg.Burst, err)
	}
}
