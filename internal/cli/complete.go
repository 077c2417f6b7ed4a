package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// completeNames completes namespace/name of the objects of lists (Gateways, policies, routes)
// in the cluster the command's flags name: of -n's namespace when given, else of all. A cluster
// that cannot be reached completes nothing.
func (o *clusterOptions) completeNames(lists ...func() client.ObjectList) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		c, err := o.connect()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var opts []client.ListOption
		if ns := *o.config.Namespace; ns != "" {
			opts = append(opts, client.InNamespace(ns))
		}
		seen := map[string]bool{}
		var out []cobra.Completion
		for _, newList := range lists {
			l := newList()
			if err := c.List(ctx, l, opts...); err != nil {
				continue
			}
			for _, name := range names(l) {
				if strings.HasPrefix(name, toComplete) && !seen[name] {
					seen[name] = true
					out = append(out, name)
				}
			}
		}
		slices.Sort(out)
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// mustComplete registers a flag's completion; the flag must exist.
func mustComplete(cmd *cobra.Command, flag string, f cobra.CompletionFunc) {
	if err := cmd.RegisterFlagCompletionFunc(flag, f); err != nil {
		panic(fmt.Sprintf("complete --%s of %s: %v", flag, cmd.Name(), err))
	}
}

func names(l client.ObjectList) []string {
	var out []string
	add := func(o client.Object) { out = append(out, o.GetNamespace()+"/"+o.GetName()) }
	switch l := l.(type) {
	case *gwv1.GatewayList:
		for i := range l.Items {
			add(&l.Items[i])
		}
	case *gwv1.HTTPRouteList:
		for i := range l.Items {
			add(&l.Items[i])
		}
	case *v1alpha1.GatewayConfigList:
		for i := range l.Items {
			add(&l.Items[i])
		}
	case *v1alpha1.GatewayClassConfigList:
		for i := range l.Items {
			add(&l.Items[i])
		}
	}
	return out
}

func gatewayList() client.ObjectList            { return &gwv1.GatewayList{} }
func routeList() client.ObjectList              { return &gwv1.HTTPRouteList{} }
func gatewayConfigList() client.ObjectList      { return &v1alpha1.GatewayConfigList{} }
func gatewayClassConfigList() client.ObjectList { return &v1alpha1.GatewayClassConfigList{} }
