package command

import (
	"os"
	"path/filepath"
	"testing"
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
