package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/manifests"
	"gantry.dev/gantry/render"
)

// newLintCommand is gantry lint: a blueprint checked alone, as helm lint checks a chart.
func newLintCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	o := &renderOptions{}
	strict := false
	cmd := &cobra.Command{
		Use:   "lint [FILE|FOLDER|-]...",
		Short: "Check blueprints alone: templates parse, defaults meet the schema, a synthetic Gateway renders",
		Long: `Lint checks every GatewayClassBlueprint in the inputs without a Gateway of its own: every
template parses; the default values meet the blueprint's valuesSchema; and the templates render
for a synthetic Gateway with one listener of each protocol the blueprint serves (and, with an
route templates, a synthetic route of each kind attached to it), with the default values. A template
that waits for a live object (.Resources) is reported as waiting, not as failing.

Values a blueprint leaves to the platform (a required cloud account, a class name) are given as
to render: -f FILE and --set, as Helm's lint takes them.

Lint also warns of what cannot be right: a route template whose kind no listener protocol of the
blueprint accepts, and a clusterScopedKinds entry that names a namespaced kind or no kind the API
server serves. It prints the kinds the synthetic render emitted. With --strict, as Helm's, a
warning fails the lint.

The exit code is 0 when every blueprint passes, 1 when one does not, 2 on a usage error.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cmdline, err := o.commandLine()
			if err != nil {
				return err
			}
			set, err := manifests.Load(args, stdin)
			if err != nil {
				return err
			}
			if len(set.Blueprints) == 0 {
				return usagef("no GatewayClassBlueprint in the inputs")
			}
			failed := false
			for _, name := range slices.Sorted(maps.Keys(set.Blueprints)) {
				if !lintBlueprint(stdout, stderr, set.Blueprints[name], cmdline, strict) {
					failed = true
				}
			}
			if failed {
				return errReported
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&strict, "strict", false, "fail on warnings, as helm lint --strict")
	addValueFlags(f, &o.values, "the blueprint's defaults")
	return cmd
}

// lintBlueprint checks one blueprint and says what it found; false when it fails.
func lintBlueprint(stdout, stderr io.Writer, bp *v1alpha1.GatewayClassBlueprint, cmdline map[string]any, strict bool) bool {
	warnings := 0
	warn := func(format string, args ...any) {
		warnings++
		fmt.Fprintf(stderr, "Warning: blueprint %s: %s\n", bp.Name, fmt.Sprintf(format, args...))
	}
	for _, gk := range bp.Spec.ClusterScopedKinds {
		switch namespaced, served, known := render.KnownScope(schema.GroupKind{Group: gk.Group, Kind: gk.Kind}); {
		case known && !served:
			warn("clusterScopedKinds: %s is not a kind the API server serves", groupKind(gk))
		case known && namespaced:
			warn("clusterScopedKinds: %s is namespaced; the entry does nothing (its objects land in the Gateway's or route's namespace)", groupKind(gk))
		}
	}
	class := &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "lint"}, Spec: gwv1.GatewayClassSpec{
		ControllerName: v1alpha1.ControllerName,
		ParametersRef:  &gwv1.ParametersReference{Group: v1alpha1.GroupName, Kind: "GatewayClassBlueprint", Name: bp.Name},
	}}
	gw := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "lint", Name: "lint-gateway"}, Spec: gwv1.GatewaySpec{GatewayClassName: "lint"}}
	ports := map[gwv1.ProtocolType]gwv1.PortNumber{gwv1.HTTPProtocolType: 80, gwv1.HTTPSProtocolType: 443, gwv1.TLSProtocolType: 8443, gwv1.TCPProtocolType: 9000, gwv1.UDPProtocolType: 9001}
	for i, p := range desired.ListenerProtocols(bp) {
		l := gwv1.Listener{Name: gwv1.SectionName(strings.ToLower(string(p))), Protocol: p, Port: ports[p]}
		if l.Port == 0 {
			l.Port = gwv1.PortNumber(10000 + i)
		}
		switch p {
		case gwv1.HTTPSProtocolType:
			l.TLS = &gwv1.ListenerTLSConfig{CertificateRefs: []gwv1.SecretObjectReference{{Name: "lint-certificate"}}}
		case gwv1.TLSProtocolType:
			l.TLS = &gwv1.ListenerTLSConfig{Mode: new(gwv1.TLSModePassthrough)}
		}
		gw.Spec.Listeners = append(gw.Spec.Listeners, l)
	}
	in := &desired.Input{Gateway: gw, Class: class, Blueprint: bp, CommandLine: cmdline}
	// A synthetic route of each kind the blueprint has a template for, on the first listener
	// that accepts that kind.
	for _, f := range v1alpha1.RouteTemplateFields {
		if bp.Spec.RouteTemplateFor(f.Kind) == nil {
			continue
		}
		i := slices.IndexFunc(gw.Spec.Listeners, func(l gwv1.Listener) bool { return slices.Contains(desired.KindsFor(bp, l.Protocol), f.Kind) })
		if i < 0 {
			warn("%s never renders: no listener protocol of the blueprint (%s) accepts %ss", f.Field, protocols(gw), f.Kind)
			continue
		}
		route := syntheticRoute(f.Kind, gw.Spec.Listeners[i].Name)
		if r, ok := route.(*gwv1.HTTPRoute); ok {
			in.Routes = append(in.Routes, r)
		} else {
			in.OtherRoutes = append(in.OtherRoutes, route)
		}
	}
	res, err := desired.Gateway(in)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			if !strings.HasPrefix(line, "blueprint ") {
				line = "blueprint " + bp.Name + ": " + line
			}
			fmt.Fprintf(stderr, "Error: %s\n", line)
		}
		return false
	}
	ok := true
	for _, r := range res.Routes {
		if r.Err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", r.Err)
			ok = false
		}
	}
	for _, p := range res.Pending {
		fmt.Fprintf(stdout, "blueprint %s: %s waits for .Resources.%s (renders once that object exists)\n", bp.Name, p.Template, strings.Join(p.Waiting, ", .Resources."))
	}
	if strict && warnings > 0 {
		fmt.Fprintf(stderr, "Error: blueprint %s: %d warnings, and --strict\n", bp.Name, warnings)
		ok = false
	}
	if ok {
		fmt.Fprintf(stdout, "blueprint %s: ok (%d objects for a Gateway with listeners %s: %s)\n", bp.Name, len(res.Objects), protocols(gw), emittedKinds(res))
	}
	return ok
}

func protocols(gw *gwv1.Gateway) string {
	var out []string
	for _, l := range gw.Spec.Listeners {
		out = append(out, string(l.Protocol))
	}
	return strings.Join(out, ", ")
}

// syntheticRoute is a route of kind for lint: attached to the lint Gateway's listener, with one
// rule sending to one Service, as the route kinds that require a backendRef must have.
func syntheticRoute(kind string, listener gwv1.SectionName) client.Object {
	meta := metav1.ObjectMeta{Namespace: "lint", Name: "lint-" + strings.ToLower(kind)}
	common := gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Name: "lint-gateway", SectionName: &listener}}}
	ref := gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: "lint-backend", Port: new(gwv1.PortNumber(8080))}}
	switch kind {
	case desired.KindHTTPRoute:
		return &gwv1.HTTPRoute{ObjectMeta: meta, Spec: gwv1.HTTPRouteSpec{CommonRouteSpec: common, Rules: []gwv1.HTTPRouteRule{{BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: ref}}}}}}
	case desired.KindGRPCRoute:
		return &gwv1.GRPCRoute{ObjectMeta: meta, Spec: gwv1.GRPCRouteSpec{CommonRouteSpec: common, Rules: []gwv1.GRPCRouteRule{{BackendRefs: []gwv1.GRPCBackendRef{{BackendRef: ref}}}}}}
	case desired.KindTLSRoute:
		return &gwv1.TLSRoute{ObjectMeta: meta, Spec: gwv1.TLSRouteSpec{CommonRouteSpec: common, Rules: []gwv1.TLSRouteRule{{BackendRefs: []gwv1.BackendRef{ref}}}}}
	case desired.KindTCPRoute:
		return &gwv1.TCPRoute{ObjectMeta: meta, Spec: gwv1.TCPRouteSpec{CommonRouteSpec: common, Rules: []gwv1.TCPRouteRule{{BackendRefs: []gwv1.BackendRef{ref}}}}}
	case desired.KindUDPRoute:
		return &gwv1.UDPRoute{ObjectMeta: meta, Spec: gwv1.UDPRouteSpec{CommonRouteSpec: common, Rules: []gwv1.UDPRouteRule{{BackendRefs: []gwv1.BackendRef{ref}}}}}
	}
	return nil
}

func groupKind(gk v1alpha1.GroupKind) string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + "." + gk.Group
}

// emittedKinds lists the kinds of the rendered objects, each once, with how many of each.
func emittedKinds(res *desired.Result) string {
	count := map[string]int{}
	for _, o := range res.Objects {
		kind, _ := o.Object["kind"].(string)
		apiVersion, _ := o.Object["apiVersion"].(string)
		count[apiVersion+" "+kind]++
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(count)) {
		out = append(out, fmt.Sprintf("%d %s", count[k], k))
	}
	if len(out) == 0 {
		return "no objects"
	}
	return strings.Join(out, ", ")
}
