package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/internal/cluster"
	"gantry.dev/gantry/internal/explain"
	"gantry.dev/gantry/manifests"
	"gantry.dev/gantry/precedence"
)

type explainOptions struct {
	cluster             clusterOptions
	controllerNamespace string
	// routeKind, for explain route: the route's kind; empty looks for an HTTPRoute, then each
	// other kind.
	routeKind string
}

func newExplainCommand(stdout io.Writer) *cobra.Command {
	o := &explainOptions{}
	cmd := &cobra.Command{
		Use:   "explain gateway|policy|route NAMESPACE/NAME (or NAME -n NAMESPACE) | class NAME",
		Short: "Explain, from the cluster, a Gateway, a policy, a route or a class",
		Long: `Explain reads one object and what it depends on from the cluster (only reading, and only what
that object needs: no list of every Gateway or policy) and prints:

  gateway   its class and blueprint, conditions, listeners and addresses, the effective values
            with the policy that set each one and what it shadowed, every policy that reaches
            it with its level and outcome, and its rendered objects with their readiness;
  policy    its target and, per Gateway it reaches, its outcome there (its GEP-713 status);
  route     its parents and conditions and, per Gantry Gateway, its effective values and objects;
  class     a GatewayClass: its blueprint, what its Gateways may use (listener protocols, route
            kinds, route templates), the values schema and the blueprint's defaults and
            overrides, as helm show values shows a chart's values.`,
	}
	pf := cmd.PersistentFlags()
	o.cluster.addConfigFlags(pf)
	pf.StringVar(&o.controllerNamespace, "controller-namespace", desired.DefaultControllerNamespace, "namespace whose GatewayClassConfigs are global")
	pf.StringVar(&o.routeKind, "kind", "", "explain route: the route's kind (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute); default: the first found, HTTPRoute first")
	for _, sub := range []struct {
		use, short string
		run        func(ctx context.Context, c client.Client, key types.NamespacedName, w io.Writer) error
		complete   cobra.CompletionFunc
	}{
		{"gateway NAMESPACE/NAME", "Explain a Gateway: class, status, values and their policies, objects", o.gateway, o.cluster.completeNames(gatewayList)},
		{"policy NAMESPACE/NAME", "Explain a GatewayConfig or GatewayClassConfig: the Gateways it reaches and its outcome there", o.policy, o.cluster.completeNames(gatewayConfigList, gatewayClassConfigList)},
		{"route NAMESPACE/NAME", "Explain a route of any kind: its parents, and its values and objects per Gantry Gateway", o.route, o.cluster.completeNames(routeList)},
	} {
		cmd.AddCommand(&cobra.Command{
			Use:   sub.use,
			Short: sub.short,
			Args:  cobra.ExactArgs(1),
			ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return sub.complete(cmd, args, toComplete)
			},
			RunE: func(cmd *cobra.Command, args []string) error {
				ns, name, ok := strings.Cut(args[0], "/")
				if !ok && o.cluster.config.Namespace != nil && *o.cluster.config.Namespace != "" {
					// As kubectl's: a bare name in the namespace -n names.
					ns, name, ok = *o.cluster.config.Namespace, args[0], true
				}
				if !ok || ns == "" || name == "" {
					return usagef("name the object as namespace/name (or give -n), not %q", args[0])
				}
				live, err := o.cluster.connect()
				if err != nil {
					return err
				}
				return sub.run(cmd.Context(), live, types.NamespacedName{Namespace: ns, Name: name}, stdout)
			},
		})
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "class NAME",
		Short: "Explain a GatewayClass: its blueprint, values schema, defaults and overrides",
		Args:  cobra.ExactArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			live, err := o.cluster.connect()
			if err != nil {
				return err
			}
			return o.class(cmd.Context(), live, args[0], stdout)
		},
	})
	return cmd
}

// class explains a GatewayClass from what a tenant needs to use it: the blueprint's values
// schema and its own values (defaults, then overrides, which no policy beats).
func (o *explainOptions) class(ctx context.Context, c client.Client, name string, w io.Writer) error {
	class := &gwv1.GatewayClass{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, class); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("GatewayClass %s not found", name)
		}
		return fmt.Errorf("get GatewayClass %s: %w", name, err)
	}
	fmt.Fprintf(w, "GatewayClass %s\n", name)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Controller:\t%s\n", class.Spec.ControllerName)
	if class.Spec.ControllerName != v1alpha1.ControllerName {
		tw.Flush()
		fmt.Fprintf(w, "(not Gantry's class)\n")
		return nil
	}
	bpName, err := desired.BlueprintName(class)
	if err != nil {
		fmt.Fprintf(tw, "Blueprint:\t(%v)\n", err)
		tw.Flush()
		return nil
	}
	bp := &v1alpha1.GatewayClassBlueprint{}
	switch err := c.Get(ctx, client.ObjectKey{Name: bpName}, bp); {
	case apierrors.IsNotFound(err):
		fmt.Fprintf(tw, "Blueprint:\t%s (does not exist)\n", bpName)
		tw.Flush()
		return nil
	case apierrors.IsForbidden(err):
		fmt.Fprintf(tw, "Blueprint:\t%s (not readable with your rights: the chart's gantry-blueprint-reader role reads blueprints)\n", bpName)
		tw.Flush()
		return nil
	case err != nil:
		return fmt.Errorf("get GatewayClassBlueprint %s: %w", bpName, err)
	}
	fmt.Fprintf(tw, "Blueprint:\t%s\n", bpName)
	if c := findCondition(class.Status.Conditions, string(gwv1.GatewayClassConditionStatusAccepted)); c != nil {
		fmt.Fprintf(tw, "Accepted:\t%s %s: %s\n", c.Status, c.Reason, c.Message)
	}
	var protocols, kinds []string
	for _, p := range desired.ListenerProtocols(bp) {
		protocols = append(protocols, string(p))
		kinds = append(kinds, fmt.Sprintf("%s: %s", p, strings.Join(desired.KindsFor(bp, p), ", ")))
	}
	fmt.Fprintf(tw, "Listener protocols:\t%s\n", strings.Join(protocols, ", "))
	fmt.Fprintf(tw, "Route kinds:\t%s\n", strings.Join(kinds, "; "))
	var templates []string
	for _, f := range v1alpha1.RouteTemplateFields {
		if rt := bp.Spec.RouteTemplateFor(f.Kind); rt != nil && len(rt.ResourceTemplates) > 0 {
			templates = append(templates, fmt.Sprintf("%s (%s)", f.Field, strings.Join(slices.Sorted(maps.Keys(rt.ResourceTemplates)), ", ")))
		}
	}
	fmt.Fprintf(tw, "Route templates:\t%s\n", orDash(strings.Join(templates, "; ")))
	if c := findCondition(class.Status.Conditions, controllers.ConditionRollout); c != nil {
		// Only with spec.rollout: where a staged rollout stands (gantry rollout status says more).
		fmt.Fprintf(tw, "Rollout:\t%s %s: %s\n", c.Status, c.Reason, c.Message)
	}
	tw.Flush()
	for _, part := range []struct {
		title string
		raw   *apiextensionsv1.JSON
	}{
		{"Values schema (valuesSchema)", bp.Spec.ValuesSchema},
		{"Default values (values.default: your GatewayConfigs' defaults and overrides beat them)", bp.Spec.Values.Default},
		{"Override values (values.override: nothing beats them)", bp.Spec.Values.Override},
	} {
		fmt.Fprintf(w, "\n%s:\n", part.title)
		if part.raw == nil || len(part.raw.Raw) == 0 {
			fmt.Fprintln(w, "  (none)")
			continue
		}
		b, err := yaml.JSONToYAML(part.raw.Raw)
		if err != nil {
			return fmt.Errorf("blueprint %s: %s: %w", bpName, part.title, err)
		}
		for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	return nil
}

func (o *explainOptions) gateway(ctx context.Context, c client.Client, key types.NamespacedName, w io.Writer) error {
	set, err := cluster.ReadGateway(ctx, c, key, o.controllerNamespace)
	if err != nil {
		return err
	}
	gw := set.Gateways[0]
	fmt.Fprintf(w, "Gateway %s\n", key)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Class:\t%s\n", gw.Spec.GatewayClassName)
	in := set.Input(gw, o.controllerNamespace)
	bp := "(none)"
	if in.Blueprint != nil {
		bp = in.Blueprint.Name
	} else if name, err := blueprintNameOf(in.Class); err == nil && slices.Contains(set.Unseen, "GatewayClassBlueprint "+name) {
		bp = name + " (not readable with your rights)"
	} else if in.Class != nil && in.Class.Spec.ControllerName != v1alpha1.ControllerName {
		bp = fmt.Sprintf("(the class is controller %s's, not Gantry's)", in.Class.Spec.ControllerName)
	}
	fmt.Fprintf(tw, "Blueprint:\t%s\n", bp)
	addrs := make([]string, 0, len(gw.Status.Addresses))
	for _, a := range gw.Status.Addresses {
		addrs = append(addrs, a.Value)
	}
	fmt.Fprintf(tw, "Addresses:\t%s\n", orDash(strings.Join(addrs, ", ")))
	tw.Flush()
	fmt.Fprintln(w, "Conditions:")
	writeConditions(w, gw.Status.Conditions)
	fmt.Fprintln(w, "Listeners:")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, l := range gw.Spec.Listeners {
		attached, programmed := "-", "-"
		if i := slices.IndexFunc(gw.Status.Listeners, func(s gwv1.ListenerStatus) bool { return s.Name == l.Name }); i >= 0 {
			attached = fmt.Sprint(gw.Status.Listeners[i].AttachedRoutes)
			if c := findCondition(gw.Status.Listeners[i].Conditions, string(gwv1.ListenerConditionProgrammed)); c != nil {
				programmed = string(c.Status)
			}
		}
		host := "*"
		if l.Hostname != nil {
			host = string(*l.Hostname)
		}
		fmt.Fprintf(tw, "  %s\t%d/%s\t%s routes\thostname %s\tprogrammed %s\n", l.Name, l.Port, l.Protocol, attached, host, programmed)
	}
	tw.Flush()

	if in.Class != nil && in.Class.Spec.ControllerName == v1alpha1.ControllerName {
		in.IsNamespaced = (&liveCluster{client: c}).isNamespaced
		res, err := desired.Gateway(in)
		if res != nil && res.Values != nil {
			fmt.Fprintln(w, "\nValues (as the controller computes them now):")
			explain.Write(w, couldApply(set.ExplainTargets(res.Values), set, gw))
		}
		if err != nil {
			fmt.Fprintf(w, "\nThe desired state cannot be computed: %v\n", err)
		}
	}
	fmt.Fprintln(w, "\nRendered objects:")
	writeObjects(w, set.Owned(gw))
	if n := unseenNote(set); n != "" {
		fmt.Fprintf(w, "\nNot seen: %s.\n", n)
	}
	return nil
}

func (o *explainOptions) policy(ctx context.Context, c client.Client, key types.NamespacedName, w io.Writer) error {
	found := false
	for _, p := range []v1alpha1.Policy{&v1alpha1.GatewayConfig{}, &v1alpha1.GatewayClassConfig{}} {
		obj := p.(client.Object)
		if err := c.Get(ctx, key, obj); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return fmt.Errorf("get %T %s: %w", p, key, err)
		}
		kind, status := "GatewayConfig", (*v1alpha1.PolicyStatus)(nil)
		switch p := p.(type) {
		case *v1alpha1.GatewayConfig:
			status = &p.Status
		case *v1alpha1.GatewayClassConfig:
			kind, status = "GatewayClassConfig", &p.Status
		}
		if found {
			fmt.Fprintln(w)
		}
		found = true
		ref := p.GetTargetRef()
		fmt.Fprintf(w, "%s %s\n", kind, key)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "Target:\t%s %s\n", ref.Kind, ref.Name)
		tw.Flush()
		fmt.Fprintln(w, "Reaches (its status, as the controller wrote it):")
		if len(status.Ancestors) == 0 {
			fmt.Fprintln(w, "  no Gateway")
		}
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, a := range status.Ancestors {
			ns := key.Namespace
			if a.AncestorRef.Namespace != nil {
				ns = string(*a.AncestorRef.Namespace)
			}
			kind := "Gateway"
			if a.AncestorRef.Kind != nil {
				kind = string(*a.AncestorRef.Kind)
			}
			for _, cond := range slices.SortedStableFunc(slices.Values(a.Conditions), func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) }) {
				fmt.Fprintf(tw, "%s %s/%s\t%s\t%s\t%s\t%s\n", kind, ns, a.AncestorRef.Name, cond.Type, cond.Status, cond.Reason, cond.Message)
			}
		}
		tw.Flush()
	}
	if !found {
		return fmt.Errorf("no GatewayConfig or GatewayClassConfig %s", key)
	}
	return nil
}

func (o *explainOptions) route(ctx context.Context, c client.Client, key types.NamespacedName, w io.Writer) error {
	kinds := desired.RouteKinds
	if o.routeKind != "" {
		if !slices.Contains(desired.RouteKinds, o.routeKind) {
			return usagef("--kind must be one of %s, not %q", strings.Join(desired.RouteKinds, ", "), o.routeKind)
		}
		kinds = []string{o.routeKind}
	}
	var route client.Object
	kind := ""
	for _, k := range kinds {
		obj := desired.NewRoute(k)
		err := c.Get(ctx, key, obj)
		if err == nil {
			route, kind = obj, k
			break
		}
		if !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) {
			return fmt.Errorf("get %s %s: %w", k, key, err)
		}
	}
	if route == nil {
		return fmt.Errorf("no route %s (looked for a %s)", key, strings.Join(kinds, ", "))
	}
	fmt.Fprintf(w, "%s %s\n", kind, key)
	for _, p := range desired.RouteStatus(route).Parents {
		ns := key.Namespace
		if p.ParentRef.Namespace != nil {
			ns = string(*p.ParentRef.Namespace)
		}
		fmt.Fprintf(w, "Parent %s/%s (controller %s):\n", ns, p.ParentRef.Name, p.ControllerName)
		writeConditions(w, p.Conditions)
	}
	for _, p := range desired.ParentRefs(route) {
		if p.Kind != nil && *p.Kind != "Gateway" {
			continue
		}
		gwKey := types.NamespacedName{Namespace: key.Namespace, Name: string(p.Name)}
		if p.Namespace != nil {
			gwKey.Namespace = string(*p.Namespace)
		}
		set, err := cluster.ReadGateway(ctx, c, gwKey, o.controllerNamespace)
		if err != nil {
			fmt.Fprintf(w, "\nGateway %s: %v\n", gwKey, err)
			continue
		}
		gw := set.Gateways[0]
		if !set.Serves(gw) {
			continue
		}
		in := set.Input(gw, o.controllerNamespace)
		in.IsNamespaced = (&liveCluster{client: c}).isNamespaced
		res, err := desired.Gateway(in)
		if err != nil {
			fmt.Fprintf(w, "\nGateway %s cannot be rendered: %v\n", gwKey, err)
			continue
		}
		for _, r := range res.Routes {
			if r.Kind != kind || r.NamespacedName != key {
				continue
			}
			if !r.Accepted {
				fmt.Fprintf(w, "\nOn Gateway %s: not accepted (%s): %s\n", gwKey, r.Reason, r.Message)
				continue
			}
			if r.Values != nil {
				fmt.Fprintf(w, "\nValues on Gateway %s:\n", gwKey)
				explain.Write(w, set.ExplainTargets(r.Values))
			}
			if r.Err != nil {
				fmt.Fprintf(w, "The route's objects cannot be rendered: %v\n", r.Err)
			}
		}
		if in.Blueprint == nil || in.Blueprint.Spec.RouteTemplateFor(kind) == nil {
			// Nothing is rendered per route of this kind; the Gateway's templates may read it
			// in .Routes.
			if in.Blueprint != nil {
				fmt.Fprintf(w, "\nRendered objects on Gateway %s: none (blueprint %s has no %s)\n", gwKey, in.Blueprint.Name, v1alpha1.RouteTemplateFieldOf(kind))
			}
			continue
		}
		var objs []*unstructured.Unstructured
		for _, u := range set.Owned(gw) {
			if u.GetLabels()[v1alpha1.RouteLabel(kind)] == desired.LabelValue(key.Name) && (u.GetNamespace() == key.Namespace || u.GetNamespace() == "") {
				objs = append(objs, u)
			}
		}
		fmt.Fprintf(w, "\nRendered objects on Gateway %s:\n", gwKey)
		writeObjects(w, objs)
	}
	return nil
}

func writeConditions(w io.Writer, conds []metav1.Condition) {
	if len(conds) == 0 {
		fmt.Fprintln(w, "  (none)")
		return
	}
	// By type: the order conditions are stored in says when each was first set, nothing more.
	conds = slices.SortedStableFunc(slices.Values(conds), func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range conds {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	tw.Flush()
}

func writeObjects(w io.Writer, objs []*unstructured.Unstructured) {
	if len(objs) == 0 {
		fmt.Fprintln(w, "  (none)")
		return
	}
	slices.SortFunc(objs, func(a, b *unstructured.Unstructured) int { return strings.Compare(describe(a), describe(b)) })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tTEMPLATE\tHEALTH")
	for _, u := range objs {
		name := u.GetName()
		if u.GetNamespace() != "" {
			name = u.GetNamespace() + "/" + name
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.GetKind(), name, u.GetLabels()[v1alpha1.LabelTemplate], health(u))
	}
	tw.Flush()
}

// health is an object's readiness as kstatus computes it (and the Gateway's
// gateway.gantry.dev/Healthy condition summarises): its status, and why when it is not Current.
func health(u *unstructured.Unstructured) string {
	h := controllers.Health([]*unstructured.Unstructured{u})[0]
	if h.Message == "" || h.Status == "Current" {
		return string(h.Status)
	}
	return fmt.Sprintf("%s (%s)", h.Status, h.Message)
}

func findCondition(conds []metav1.Condition, typ string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// couldApply leaves out the global GatewayClassConfigs that target another GatewayClass: read
// from the controller's namespace with the ones that apply, they could never reach this
// Gateway, and listing each as NotApplicable (its class not read) buries the ones that do.
func couldApply(v *precedence.Result, set *manifests.Set, gw *gwv1.Gateway) *precedence.Result {
	out := *v
	out.Outcomes = slices.DeleteFunc(slices.Clone(v.Outcomes), func(o precedence.Outcome) bool {
		if o.State != precedence.StateNotApplicable || o.Kind != precedence.KindGatewayClassConfig {
			return false
		}
		for _, p := range set.GatewayClassConfigs {
			if p.Namespace == o.Namespace && p.Name == o.Name {
				t := p.Spec.TargetRef
				return t.Kind == "GatewayClass" && string(t.Name) != string(gw.Spec.GatewayClassName)
			}
		}
		return false
	})
	return &out
}

// blueprintNameOf is desired.BlueprintName of a class that may be missing.
func blueprintNameOf(class *gwv1.GatewayClass) (string, error) {
	if class == nil {
		return "", fmt.Errorf("no GatewayClass")
	}
	return desired.BlueprintName(class)
}
