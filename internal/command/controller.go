package command

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/flowcontrol"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/render"
)

type controllerOptions struct {
	kubeconfig  string
	qps         float32
	burst       int
	manager     controllers.ManagerOptions
	controllers controllers.Options
	logLevel    string
	development bool
	checkMemory int
	memory      int
}

// NewController is `gantry controller`, which runs the controller until a signal stops it.
func NewController(stderr io.Writer) *cobra.Command {
	o := &controllerOptions{}
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "Run the Gantry controller against the cluster of --kubeconfig (or the one it runs in)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "path to a kubeconfig; default: in-cluster config, then $KUBECONFIG, then ~/.kube/config")
	f.Float32Var(&o.qps, "kube-api-qps", DefaultKubeAPIQPS, "requests per second to the API server; negative: no client-side limit, the API server's priority and fairness decides")
	f.IntVar(&o.burst, "kube-api-burst", 0, "requests above --kube-api-qps allowed in a burst (default: twice the QPS)")
	f.StringVar(&o.manager.MetricsAddress, "metrics-bind-address", ":8080", `address of the Prometheus metrics endpoint ("0" disables it)`)
	f.StringVar(&o.manager.HealthProbeAddress, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz endpoints")
	f.StringVar(&o.manager.PprofAddress, "pprof-bind-address", "0", `address of Go's /debug/pprof profiles, for profiling the controller ("0" disables it)`)
	f.BoolVar(&o.manager.LeaderElection, "leader-elect", false, "elect a leader, so that only one of several replicas acts")
	f.StringVar(&o.manager.LeaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader-election Lease (default: the controller's own)")
	f.DurationVar(&o.manager.SyncPeriod, "sync-period", 0, "reconcile every object again this often (default: controller-runtime's, about 10h)")
	f.StringVar(&o.controllers.ControllerNamespace, "controller-namespace", desired.DefaultControllerNamespace, "namespace whose GatewayClassConfigs are global")
	f.IntVar(&o.controllers.GatewayConcurrency, "gateway-concurrency", 4, "Gateways reconciled at once")
	f.DurationVar(&o.controllers.PolicyStatusInterval, "policy-status-interval", time.Second, "least time between two status writes of one policy; one more for each 1,000 Gateways the policy applies to")
	AddLimitFlags(f, &o.controllers.RenderLimits)
	f.IntVar(&o.checkMemory, "render-check-memory", boundary.DefaultMemory, "bytes of the structure check's memory of placeholder renders, reused when a render's input has the same shape (0: off)")
	f.IntVar(&o.memory, "render-memory", render.DefaultOutputMemory, "bytes of the memory of render outputs by their whole input: a reconcile whose input did not change does not render again (0: off)")
	f.IntVar(&o.manager.WebhookPort, "webhook-port", 0, "serve the admission webhooks on this port (the chart's ValidatingWebhookConfiguration calls them); 0: off")
	f.StringVar(&o.manager.WebhookCertDir, "webhook-cert-dir", "", "directory of the webhook server's tls.crt and tls.key")
	f.StringVar(&o.logLevel, "log-level", "info", "info or debug")
	f.BoolVar(&o.development, "log-development", false, "human-readable console logs instead of JSON")
	return cmd
}

func (o *controllerOptions) run(cmd *cobra.Command, stderr io.Writer) error {
	level := zapcore.InfoLevel
	switch o.logLevel {
	case "info":
	case "debug":
		level = zapcore.DebugLevel
	default:
		return Usagef("--log-level must be info or debug, not %q", o.logLevel)
	}
	ctrl.SetLogger(newLogger(stderr, level, o.development))
	if o.checkMemory < 0 {
		return Usagef("--render-check-memory must be 0 or more, not %d", o.checkMemory)
	}
	boundary.SetMemory(o.checkMemory)
	switch {
	case o.memory < 0:
		return Usagef("--render-memory must be 0 or more, not %d", o.memory)
	case o.memory == 0:
		o.controllers.RenderMemory = -1 // off
	default:
		o.controllers.RenderMemory = o.memory
	}
	cfg, err := o.clientConfig()
	if err != nil {
		return err
	}
	o.controllers.Webhooks = o.manager.WebhookPort > 0
	mgr, err := controllers.NewManager(cfg, o.manager)
	if err != nil {
		return fmt.Errorf("create manager: %w", err)
	}
	ctx := ctrl.SetupSignalHandler()
	if err := controllers.Setup(ctx, mgr, o.controllers); err != nil {
		return fmt.Errorf("set up controllers: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if o.controllers.Webhooks {
		// Ready only once the webhooks answer, so the webhook Service sends nothing to a pod
		// that cannot take it yet.
		if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
			return err
		}
	}
	return mgr.Start(ctx)
}

// clientConfig is the API server's config with the client's rate limit: one limit whichever way
// the config was found. client-go's default of 5 requests per second (what --kubeconfig gave)
// took 38.8 s to converge 100 Gateways where no client-side limit took 3.1 s (scale harness,
// N=100, docs/performance.md).
func (o *controllerOptions) clientConfig() (*rest.Config, error) {
	cfg, err := restConfig(o.kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = o.qps, o.burst
	if o.qps > 0 && o.burst <= 0 {
		cfg.Burst = max(1, int(2*o.qps)) // below 0.5 per second, a burst of 0 would let nothing through
	}
	if cfg.QPS > 0 {
		// One bucket for the whole process. Left to client-go, each REST client built from this
		// config gets its own bucket, and controller-runtime builds one per kind: with 5 rendered
		// kinds and the Gateway API's, --kube-api-qps=120 let a first convergence of 1,000
		// Gateways write at 500 per second (scale harness, 2026-11-27). The leader election's
		// client keeps a bucket of its own (controllers.NewManager), so that a busy controller
		// cannot delay renewing its Lease.
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	return cfg, nil
}

// DefaultKubeAPIQPS is --kube-api-qps's default: no client-side limit.
const DefaultKubeAPIQPS = -1

func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	return ctrl.GetConfig()
}
