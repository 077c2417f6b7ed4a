package cli

import (
	"fmt"
	"io"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"gantry.dev/gantry/internal/playground"
)

func newPlaygroundCommand(stdout, stderr io.Writer) *cobra.Command {
	o := playground.Options{}
	cmd := &cobra.Command{
		Use:   "playground [FILE|FOLDER]...",
		Short: "Run Gantry on a local kube-apiserver and etcd with a sample applied",
		Long: `Playground starts a real kube-apiserver and etcd on this machine (built by hack/envtest-binaries.sh),
installs Gantry's and Gateway API's CRDs, runs the controller in-process, applies the manifests
(default: samples/defaults-vs-overrides), waits for every Gateway to settle and prints, for each, the
objects the controller applied, its status, and its effective values with provenance.

It then keeps running with a kubeconfig at --kubeconfig until Ctrl-C, which stops and removes
everything. --once exits after printing.

--watch applies the files again whenever one changes below the paths given (server-side apply;
objects removed from the files are deleted) and prints the Gateways again: edit your own
blueprint or policies and see what they do.

--chart installs the Helm chart (charts/gantry, as Helm's engine renders it) and runs the
controller as the chart's ServiceAccount, with exactly the chart's permissions and its admission
webhooks: what works in this playground works with the chart. A blueprint that renders a kind
the chart does not grant then fails to apply here as it would in a cluster.`,
		Example: `  gantry playground
  gantry playground --watch --chart my-blueprints/ my-policies.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Once && o.Watch {
				return usagef("--once exits after printing and --watch keeps applying: give one")
			}
			if len(args) == 0 {
				args = []string{"samples/defaults-vs-overrides"}
			}
			o.Paths = args
			// The controller runs in this process: its errors go to stderr, its chatter nowhere
			// (and controller-runtime prints no stack dump at exit for want of a logger).
			ctrl.SetLogger(zap.New(zap.WriteTo(stderr), zap.Level(zapcore.ErrorLevel), zap.UseDevMode(true)))
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			if err := playground.Run(ctx, stdout, o); err != nil {
				return err
			}
			if !o.Once {
				fmt.Fprintln(stdout, "Stopped: the controller, kube-apiserver and etcd are down and the kubeconfig is removed.")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.Once, "once", false, "exit after printing")
	f.StringVar(&o.Kubeconfig, "kubeconfig", "bin/playground.kubeconfig", "where to write a kubeconfig for kubectl while the playground runs")
	f.DurationVar(&o.Timeout, "timeout", time.Minute, "how long to wait for the Gateways to settle")
	f.BoolVar(&o.Watch, "watch", false, "apply the files again when they change, and print the Gateways again")
	f.BoolVar(&o.Chart, "chart", false, "install the Helm chart and run the controller with its permissions and admission webhooks")
	return cmd
}
