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
everything. --once exits after printing.`,
		RunE: func(cmd *cobra.Command, args []string) error {
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
	return cmd
}
