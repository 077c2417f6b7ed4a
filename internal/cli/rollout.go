package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/desired"
)

// newRolloutCommand is `gantry rollout`: a blueprint's staged rollout, seen and steered.
func newRolloutCommand(stdout io.Writer) *cobra.Command {
	o := &clusterOptions{}
	var controllerNamespace string
	cmd := &cobra.Command{
		Use:   "rollout status|pause|resume|undo BLUEPRINT",
		Short: "See and steer a blueprint's staged rollout",
		Long: `A blueprint with spec.rollout moves its Gateways to a new revision in steps, each taken only
when the Gateways reached so far render from it and are healthy (docs/blueprints.md, "Changing a
blueprint safely").

  status   where the rollout stands: the revision, the step, how many Gateways are on which
           revision, and what it waits for or why it stopped;
  pause    take no further step (spec.rollout.paused); Gateways reached keep the new revision;
  resume   unpause; a stopped rollout waits for its step's Gateways again, with a new deadline
           (those that stopped it hold it until they are healthy);
  undo     put the revision the fleet was on before back (or the one --to-revision names):
           the blueprint's spec and the class-wide GatewayClassConfigs of its classes (set back,
           made again, or deleted if made since); the Gateways a stopped rollout reached go
           back at once.

pause, resume and undo write the blueprint: they need the rights to update
gatewayclassblueprints (and their status, for resume).`,
	}
	o.addConfigFlags(cmd.PersistentFlags())
	cmd.PersistentFlags().StringVar(&controllerNamespace, "controller-namespace", desired.DefaultControllerNamespace, "namespace whose GatewayClassConfigs are class-wide (undo sets them back too)")
	run := func(use, short string, do func(ctx context.Context, c client.Client, name string) error) *cobra.Command {
		return &cobra.Command{
			Use:   use + " BLUEPRINT",
			Short: short,
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				c, err := o.connectWriter()
				if err != nil {
					return err
				}
				return do(cmd.Context(), c, args[0])
			},
		}
	}
	var to string
	undo := run("undo", "Go back to the revision the fleet was on before the rollout", func(ctx context.Context, c client.Client, name string) error {
		rev, err := controllers.UndoRollout(ctx, c, controllerNamespace, name, to)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "GatewayClassBlueprint %s: spec and class-wide GatewayClassConfigs set back to revision %s\n", name, rev)
		return nil
	})
	undo.Flags().StringVar(&to, "to-revision", "", "the revision to go back to, by name or number (default: the one the rollout began from)")
	cmd.AddCommand(
		run("status", "Where the rollout stands", func(ctx context.Context, c client.Client, name string) error {
			bp := &v1alpha1.GatewayClassBlueprint{}
			if err := c.Get(ctx, client.ObjectKey{Name: name}, bp); err != nil {
				return fmt.Errorf("GatewayClassBlueprint %s: %w", name, err)
			}
			return writeRollout(stdout, bp)
		}),
		run("pause", "Take no further step", func(ctx context.Context, c client.Client, name string) error {
			if err := controllers.PauseRollout(ctx, c, name, true); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "GatewayClassBlueprint %s: rollout paused\n", name)
			return nil
		}),
		run("resume", "Go on with a paused or stopped rollout", func(ctx context.Context, c client.Client, name string) error {
			if err := controllers.ResumeRollout(ctx, c, name); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "GatewayClassBlueprint %s: rollout resumed\n", name)
			return nil
		}),
		undo,
	)
	return cmd
}

// connectWriter is connect without the read-only guard, for the commands that steer a rollout.
func (o *clusterOptions) connectWriter() (client.Client, error) {
	cfg, err := o.config.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	if wrapTransport != nil {
		cfg.Wrap(wrapTransport)
	}
	c, err := client.New(cfg, client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		return nil, fmt.Errorf("connect to the cluster %s: %w", cfg.Host, err)
	}
	return c, nil
}

// writeRollout prints where a blueprint's rollout stands.
func writeRollout(w io.Writer, bp *v1alpha1.GatewayClassBlueprint) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Blueprint:\t%s\n", bp.Name)
	fmt.Fprintf(tw, "Latest revision:\t%s (%d)\n", orDash(bp.Status.LatestRevision), bp.Status.Revision)
	st := bp.Status.Rollout
	switch {
	case bp.Spec.Rollout == nil:
		fmt.Fprintf(tw, "Rollout:\tnone: a new revision reaches every Gateway at once (spec.rollout is not set)\n")
		return tw.Flush()
	case st == nil:
		fmt.Fprintf(tw, "Rollout:\tnot begun yet\n")
		return tw.Flush()
	}
	paused := ""
	if bp.Spec.Rollout.Paused {
		paused = " (spec.rollout.paused)"
	}
	fmt.Fprintf(tw, "Rollout:\t%s%s, step %d of %d\n", st.Phase, paused, st.Step, st.Steps)
	fmt.Fprintf(tw, "Revision:\t%s, from %s\n", st.Revision, orDash(st.From))
	fmt.Fprintf(tw, "Gateways:\t%d of %d updated, %d healthy\n", st.Updated, st.Gateways, st.Healthy)
	for _, rc := range st.Revisions {
		fmt.Fprintf(tw, "  %s\t%d\n", rc.Revision, rc.Gateways)
	}
	if st.Message != "" {
		fmt.Fprintf(tw, "Message:\t%s\n", st.Message)
	}
	return tw.Flush()
}
