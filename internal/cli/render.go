package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/getter"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/internal/command"
	"gantry.dev/gantry/internal/explain"
	"gantry.dev/gantry/manifests"
	"gantry.dev/gantry/precedence"
	"gantry.dev/gantry/render"
)

type renderOptions struct {
	limits              render.Limits
	gateways            []string
	output              string
	showValues          bool
	explain             bool
	showOnly            []string
	debug               bool
	asWritten           bool
	outputDir           string
	controllerNamespace string
	values              values.Options
	// cluster reads the inputs from a cluster, local files laid over them (--cluster).
	fromCluster bool
	cluster     clusterOptions
}

func newRenderCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	o := &renderOptions{}
	cmd := &cobra.Command{
		Use:   "render [FILE|FOLDER|-]...",
		Short: "Render Gateways offline, and show which policy decided each value",
		Long: `Render reads manifests (blueprints, GatewayClasses, Gateways, routes of every kind, GatewayClassConfigs,
GatewayConfigs, Namespaces) from files, folders or "-" for stdin, and prints what each Gateway of a
Gantry class would get — the same computation the controller runs.

--show-values prints the effective values instead of the objects; --explain prints, for each value,
the object that set it, the stanza, the level and what it shadowed, then what became of each policy.
--values and --set add a layer above every policy, labelled "command line".

--cluster reads the inputs from a cluster instead (only reading): its GatewayClasses, blueprints,
policies, Gateways, routes, namespaces and the objects Gantry rendered there. Files given
then replace the cluster's objects of the same kind, namespace and name, or add to them, so that
an edit can be previewed against every live Gateway before it is applied.`,
		Example: `  gantry render samples/defaults-vs-overrides
  gantry render samples/defaults-vs-overrides --gateway team-a/web --explain
  gantry render samples/defaults-vs-overrides --set replicas=5 -o json
  gantry render --cluster -A my-blueprint-edit.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.fromCluster {
				return nil
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			batchGC()
			return o.run(cmd.Context(), args, stdin, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.fromCluster, "cluster", false, "read the inputs from the cluster; files given replace or add objects")
	o.cluster.addFlags(f)
	f.StringArrayVar(&o.gateways, "gateway", nil, "render only this Gateway, as namespace/name (repeatable; default: every Gateway of a Gantry class)")
	f.StringVarP(&o.output, "output", "o", "yaml", "output format: yaml or json")
	f.BoolVar(&o.showValues, "show-values", false, "print each Gateway's effective values instead of its objects")
	f.BoolVar(&o.explain, "explain", false, "print, for each value, who set it and what it shadowed, then each policy's outcome")
	f.StringArrayVar(&o.showOnly, "show-only", nil, "print only objects of this template (a resourceTemplates key; repeatable)")
	f.BoolVar(&o.debug, "debug", false, "with an error about a template's output (not valid YAML), print that output with line numbers, as helm template --debug")
	f.BoolVar(&o.asWritten, "as-written", false, "print each object's text as its template wrote it (comments, key order), without the labels, annotations and namespace Gantry adds when it applies it")
	f.StringVar(&o.outputDir, "output-dir", "", "write objects to DIR/<namespace>/<gateway>/<template>.yaml instead of stdout")
	f.StringVar(&o.controllerNamespace, "controller-namespace", desired.DefaultControllerNamespace, "namespace whose GatewayClassConfigs are global")
	addValueFlags(f, &o.values, "every policy")
	command.AddLimitFlags(f, &o.limits)
	mustComplete(cmd, "gateway", o.cluster.completeNames(gatewayList))
	return cmd
}

// batchGC lets the heap of a one-shot render grow to three times what is live before the
// collector runs (GOGC=200) unless GOGC is set: with Go's default (100), collection was a fifth
// of `gantry render`'s CPU at 1,000 Gateways; 200 cut that CPU by about 15% for about 8 MiB more
// peak memory there. The controller keeps the default.
func batchGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(200)
	}
}

// rendered is one Gateway's outcome.
type rendered struct {
	gw  *gwv1.Gateway
	in  *desired.Input
	res *desired.Result
	err error
}

func (o *renderOptions) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.output != "yaml" && o.output != "json" {
		return usagef("--output must be yaml or json, not %q", o.output)
	}
	if o.asWritten && (o.output == "json" || o.showValues || o.explain) {
		return usagef("--as-written prints the templates' YAML text: not with -o json, --show-values or --explain")
	}
	if o.output == "json" && o.outputDir != "" {
		return usagef("--output-dir writes one YAML file per template; -o json prints to stdout: use one of them")
	}
	for _, g := range o.gateways {
		if ns, name, ok := strings.Cut(g, "/"); !ok || ns == "" || name == "" {
			return usagef("--gateway must be namespace/name, not %q", g)
		}
	}
	cmdline, err := o.commandLine()
	if err != nil {
		return err
	}
	set, err := manifests.Load(args, stdin)
	if err != nil {
		return err
	}
	var live *liveCluster
	if o.fromCluster {
		if live, err = o.cluster.read(ctx, len(o.gateways) > 0); err != nil {
			return err
		}
		warnUnseen(stderr, live.set)
		set = live.set.With(set)
	}
	gateways, err := selectGateways(set, o.gateways, live)
	if err != nil {
		return err
	}

	if err := o.checkShowOnly(set, gateways); err != nil {
		return err
	}

	var results []rendered
	failed := false
	for _, gw := range gateways {
		// --explain says why each policy of the set does not apply, so it needs them all;
		// otherwise the candidates are enough and keep a large set linear (CandidateInput).
		var in *desired.Input
		if o.explain {
			in = set.Input(gw, o.controllerNamespace)
		} else {
			in = set.CandidateInput(gw, o.controllerNamespace)
		}
		in.Limits = o.limits
		in.CommandLine = cmdline
		in.KeepText = o.asWritten
		if live != nil {
			in.IsNamespaced = live.isNamespaced
		}
		res, err := desired.Gateway(in)
		if err != nil {
			failed = true
			reportError(stderr, gw, err, o.debug)
		} else {
			for _, r := range res.Routes {
				if r.Err != nil {
					failed = true
					reportError(stderr, gw, r.Err, o.debug)
				}
			}
		}
		results = append(results, rendered{gw: gw, in: in, res: res, err: err})
	}

	switch {
	case (o.explain || o.showValues) && o.output == "json":
		if err := o.printValuesJSON(stdout, set, results); err != nil {
			return err
		}
	case o.explain || o.showValues:
		// Values are shown for a Gateway whose render failed too: that is when they help most.
		for _, r := range results {
			if r.res != nil && r.res.Values != nil {
				o.printValues(stdout, set, r)
			}
		}
	case o.outputDir != "":
		for _, r := range results {
			if r.err == nil {
				if err := o.writeDir(stdout, r); err != nil {
					return err
				}
			}
		}
	default:
		if err := o.printObjects(stdout, results); err != nil {
			return err
		}
	}
	if failed {
		return errReported
	}
	return nil
}

// reportError prints an error with the Gateway on every line, so that errors of several
// templates or Gateways stay attributable.
func reportError(w io.Writer, gw *gwv1.Gateway, err error, debug bool) {
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(w, "Error: Gateway %s/%s: %s\n", gw.Namespace, gw.Name, line)
	}
	if !debug {
		return
	}
	// What the failing templates printed, numbered as the YAML parser counts lines.
	eachRenderError(err, func(e *render.Error) {
		if e.Output == "" {
			return
		}
		where := e.Template
		if e.Document > 0 {
			where = fmt.Sprintf("%s, document %d", e.Template, e.Document)
		}
		fmt.Fprintf(w, "# Output of %s (blueprint %s):\n", where, e.Blueprint)
		lines := strings.Split(strings.TrimSuffix(e.Output, "\n"), "\n")
		width := len(fmt.Sprint(len(lines)))
		for i, l := range lines {
			fmt.Fprintf(w, "%*d | %s\n", width, i+1, l)
		}
	})
}

// eachRenderError calls visit with every *render.Error in err's tree.
func eachRenderError(err error, visit func(*render.Error)) {
	switch e := err.(type) {
	case *render.Error:
		visit(e)
	case interface{ Unwrap() []error }:
		for _, x := range e.Unwrap() {
			eachRenderError(x, visit)
		}
	case interface{ Unwrap() error }:
		eachRenderError(e.Unwrap(), visit)
	}
}

// commandLine builds the --values/--set layer with Helm's own parsing.
func (o *renderOptions) commandLine() (map[string]any, error) { return commandLineValues(&o.values) }

// commandLineValues builds a --values/--set/--set-string layer with Helm's own parsing (nil when
// none is given).
func commandLineValues(v *values.Options) (map[string]any, error) {
	if len(v.ValueFiles)+len(v.Values)+len(v.StringValues) == 0 {
		return nil, nil
	}
	m, err := v.MergeValues(getter.Providers{})
	if err != nil {
		return nil, usagef("%v", err)
	}
	return precedence.Normalize(m).(map[string]any), nil
}

// addValueFlags adds -f/--values, --set and --set-string, each a layer "above" what above says.
func addValueFlags(f *pflag.FlagSet, v *values.Options, above string) {
	f.StringArrayVarP(&v.ValueFiles, "values", "f", nil, "a YAML file of values above "+above+" (repeatable)")
	f.StringArrayVar(&v.Values, "set", nil, "set a value above "+above+", Helm-style: a.b=c,d=e (repeatable)")
	f.StringArrayVar(&v.StringValues, "set-string", nil, "like --set, always as a string")
}

// selectGateways returns the Gateways named (as namespace/name), or every Gateway of a Gantry
// class: of the namespace read from the cluster when live is set.
func selectGateways(set *manifests.Set, names []string, live *liveCluster) ([]*gwv1.Gateway, error) {
	where := "in the manifests"
	if live != nil {
		where = "in the cluster or the manifests"
	}
	if len(names) == 0 {
		var out []*gwv1.Gateway
		for _, gw := range set.Gateways {
			if set.Serves(gw) && (live == nil || live.namespace == "" || gw.Namespace == live.namespace) {
				out = append(out, gw)
			}
		}
		if len(out) == 0 {
			if live != nil && live.namespace != "" {
				where = fmt.Sprintf("in namespace %s (-A looks in every namespace)", live.namespace)
			}
			return nil, fmt.Errorf("no Gateway of a Gantry class (controllerName %s) %s%s", v1alpha1.ControllerName, where, classHints(set))
		}
		return out, nil
	}
	var out []*gwv1.Gateway
	for _, g := range names {
		ns, name, _ := strings.Cut(g, "/")
		i := slices.IndexFunc(set.Gateways, func(gw *gwv1.Gateway) bool { return gw.Namespace == ns && gw.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("Gateway %s is not %s", g, where)
		}
		out = append(out, set.Gateways[i])
	}
	return out, nil
}

func (o *renderOptions) keep(obj desired.Object) bool {
	return len(o.showOnly) == 0 || slices.Contains(o.showOnly, obj.Template)
}

func (o *renderOptions) printObjects(w io.Writer, results []rendered) error {
	if o.output == "json" {
		list := map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{}}
		for _, r := range results {
			if r.err != nil {
				continue
			}
			for _, obj := range r.res.Objects {
				if o.keep(obj) {
					list["items"] = append(list["items"].([]any), obj.Object)
				}
			}
		}
		b, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	first := true
	for _, r := range results {
		if r.err != nil {
			continue
		}
		if !first {
			fmt.Fprintln(w, "---") // the next Gateway's header is not part of the last object
		}
		first = false
		fmt.Fprintf(w, "# Gateway %s/%s (class %s, blueprint %s)\n", r.gw.Namespace, r.gw.Name, r.gw.Spec.GatewayClassName, r.in.Blueprint.Name)
		if note := desired.BlueprintGroupNote(r.in.Class); note != "" {
			fmt.Fprintf(w, "# GatewayClass %s: %s\n", r.in.Class.Name, note)
		}
		for _, p := range r.res.Pending {
			fmt.Fprintf(w, "# Pending: %s\n", p)
		}
		for _, route := range r.res.Routes {
			for _, p := range route.Pending {
				fmt.Fprintf(w, "# Pending (%s %s): %s\n", route.Kind, route.NamespacedName, p)
			}
		}
		for _, a := range r.res.Addresses {
			fmt.Fprintf(w, "# Status address: %s\n", a.Value)
		}
		if o.asWritten {
			fmt.Fprintln(w, "# As written: Gantry adds its labels, owner annotations and the namespace when it applies these")
		}
		for _, obj := range r.res.Objects {
			if !o.keep(obj) {
				continue
			}
			b, err := o.objectText(obj)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "---\n# Source: %s\n%s", source(r, obj), b)
		}
	}
	return nil
}

// objectText is obj as YAML: as Gantry applies it, or (--as-written) as its template wrote it.
func (o *renderOptions) objectText(obj desired.Object) ([]byte, error) {
	if o.asWritten {
		t := strings.TrimLeft(obj.Text, "\n")
		if !strings.HasSuffix(t, "\n") {
			t += "\n"
		}
		return []byte(t), nil
	}
	return render.MarshalYAML(obj.Object)
}

func source(r rendered, obj desired.Object) string {
	if obj.Owner.Kind != "Gateway" {
		return fmt.Sprintf("%s/%s/%s (%s %s)", r.in.Blueprint.Name, v1alpha1.RouteTemplateFieldOf(obj.Owner.Kind), obj.Template, obj.Owner.Kind, obj.Owner.NamespacedName)
	}
	return fmt.Sprintf("%s/gatewayTemplate/%s", r.in.Blueprint.Name, obj.Template)
}

func (o *renderOptions) writeDir(stdout io.Writer, r rendered) error {
	files := map[string][]byte{}
	var order []string
	for _, obj := range r.res.Objects {
		if !o.keep(obj) {
			continue
		}
		dir := filepath.Join(o.outputDir, r.gw.Namespace, r.gw.Name)
		if obj.Owner.Kind != "Gateway" { // httproutes/, grpcroutes/, …
			dir = filepath.Join(dir, strings.ToLower(obj.Owner.Kind)+"s", obj.Owner.Namespace, obj.Owner.Name)
		}
		path := filepath.Join(dir, obj.Template+".yaml")
		b, err := o.objectText(obj)
		if err != nil {
			return err
		}
		if _, ok := files[path]; !ok {
			order = append(order, path)
		}
		files[path] = append(files[path], append([]byte("---\n"), b...)...)
	}
	for _, path := range order {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[path], 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
	}
	return nil
}

// printValues prints --show-values and --explain for one Gateway and its routes.
func (o *renderOptions) printValues(w io.Writer, set *manifests.Set, r rendered) {
	title := fmt.Sprintf("Gateway %s/%s (class %s, blueprint %s)", r.gw.Namespace, r.gw.Name, r.gw.Spec.GatewayClassName, r.in.Blueprint.Name)
	o.printValueSet(w, title, set.ExplainTargets(r.res.Values))
	for _, route := range r.res.Routes {
		if route.Values != nil {
			o.printValueSet(w, fmt.Sprintf("%s %s on %s", route.Kind, route.NamespacedName, types.NamespacedName{Namespace: r.gw.Namespace, Name: r.gw.Name}), set.ExplainTargets(route.Values))
		}
	}
}

// valuesJSON is one Gateway's (or route's) values in `--show-values/--explain -o json`.
type valuesJSON struct {
	Gateway   string `json:"gateway"`
	Route     string `json:"route,omitempty"` // "<kind> <namespace>/<name>", for a route's chain
	Class     string `json:"class"`
	Blueprint string `json:"blueprint"`
	// Values are the effective values (--show-values).
	Values map[string]any `json:"values,omitempty"`
	// Provenance and Policies are who set each value and each policy's outcome (--explain).
	Provenance []precedence.Leaf    `json:"provenance,omitempty"`
	Policies   []precedence.Outcome `json:"policies,omitempty"`
}

// printValuesJSON prints every selected Gateway's values (and routes') as one JSON document, a
// list, that a script can parse whole: `--show-values -o json` printed a comment line and a
// document per Gateway, and `--explain -o json` its tables.
func (o *renderOptions) printValuesJSON(w io.Writer, set *manifests.Set, results []rendered) error {
	out := []valuesJSON{}
	add := func(r rendered, route string, v *precedence.Result) {
		v = set.ExplainTargets(v)
		e := valuesJSON{Gateway: r.gw.Namespace + "/" + r.gw.Name, Route: route, Class: string(r.gw.Spec.GatewayClassName), Blueprint: r.in.Blueprint.Name}
		if o.showValues {
			e.Values = v.Values
		}
		if o.explain {
			e.Provenance, e.Policies = v.Leaves, v.Outcomes
		}
		out = append(out, e)
	}
	for _, r := range results {
		if r.res == nil || r.res.Values == nil {
			continue
		}
		add(r, "", r.res.Values)
		for _, route := range r.res.Routes {
			if route.Values != nil {
				add(r, route.Kind+" "+route.NamespacedName.String(), route.Values)
			}
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func (o *renderOptions) printValueSet(w io.Writer, title string, v *precedence.Result) {
	fmt.Fprintf(w, "# %s\n", title)
	if o.showValues {
		if o.output == "json" {
			b, _ := json.MarshalIndent(v.Values, "", "  ")
			fmt.Fprintf(w, "%s\n", b)
		} else {
			b, _ := render.MarshalYAML(v.Values)
			fmt.Fprintf(w, "%s", b)
		}
	}
	if o.explain {
		if o.showValues {
			fmt.Fprintln(w)
		}
		explain.Write(w, v)
	}
	fmt.Fprintln(w)
}

// checkShowOnly refuses a --show-only name that is no template of the selected Gateways'
// blueprints, as Helm refuses one that is no template of the chart: a typo must not print
// nothing and succeed.
func (o *renderOptions) checkShowOnly(set *manifests.Set, gateways []*gwv1.Gateway) error {
	if len(o.showOnly) == 0 {
		return nil
	}
	known := map[string]bool{}
	for _, gw := range gateways {
		in := set.Input(gw, o.controllerNamespace)
		if in.Blueprint == nil {
			continue
		}
		for k := range in.Blueprint.Spec.GatewayTemplate.ResourceTemplates {
			known[k] = true
		}
		for _, f := range v1alpha1.RouteTemplateFields {
			if rt := in.Blueprint.Spec.RouteTemplateFor(f.Kind); rt != nil {
				for k := range rt.ResourceTemplates {
					known[k] = true
				}
			}
		}
	}
	for _, name := range o.showOnly {
		if !known[name] {
			return usagef("--show-only %q names no template of the selected Gateways' blueprints (their templates: %s)",
				name, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
		}
	}
	return nil
}

// classHints says, for a set without a Gateway of a Gantry class, what the Gateways there name:
// a class missing from the inputs, or another controller's.
func classHints(set *manifests.Set) string {
	var hints []string
	for _, gw := range set.Gateways {
		name := string(gw.Spec.GatewayClassName)
		switch c := set.Classes[name]; {
		case c == nil:
			hints = append(hints, fmt.Sprintf("Gateway %s/%s names GatewayClass %s, which is not there", gw.Namespace, gw.Name, name))
		case c.Spec.ControllerName != v1alpha1.ControllerName:
			hints = append(hints, fmt.Sprintf("Gateway %s/%s names GatewayClass %s, of controller %s", gw.Namespace, gw.Name, name, c.Spec.ControllerName))
		}
		if len(hints) == 5 {
			break
		}
	}
	if len(hints) == 0 {
		return ""
	}
	return "; " + strings.Join(hints, "; ")
}
