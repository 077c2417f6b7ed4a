package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"
	"helm.sh/helm/v3/pkg/cli/values"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/internal/command"
	"gantry.dev/gantry/manifests"
	"gantry.dev/gantry/precedence"
	"gantry.dev/gantry/render"
)

// errChanges is diff's answer "something would change" (exit 1, the changes printed).
var errChanges = fmt.Errorf("changes: %w", command.ErrReported)

// ExitError ends a command with a code of its own (diff's errors exit 2, as kubectl diff's).
type ExitError = command.ExitError

type diffOptions struct {
	cluster             clusterOptions
	gateways            []string
	output              string
	controllerNamespace string
	limits              render.Limits
	color               string
	// values is a what-if layer above every policy (--set, -f), for the render after only.
	values  values.Options
	cmdline map[string]any
	// concurrency is how many Gateways are diffed at once: their dry-runs are round trips to
	// the API server, which a fleet's diff would otherwise wait for one after another.
	concurrency int
}

// defaultDiffConcurrency keeps a few requests in flight per API server core without
// crowding a small API server (docs/performance.md, issue 23).
const defaultDiffConcurrency = 8

func newDiffCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff [FILE|FOLDER|-]...",
		Short: "Show what the controller would change in the cluster, with local files laid over it",
		Long: `Diff reads Gantry's inputs from the cluster, as render --cluster does, lays the files given over
them (an object of the same kind, namespace and name replaces the cluster's) and shows, for each
Gateway, what the controller would then do: objects to create, objects to update (a unified diff
of the object before and after a server-side dry-run apply with field manager gantry, so that
defaults and other managers' fields do not show), objects to prune, the status that would change
and the policies whose outcome would change. It writes nothing: every request but the dry-runs
is a read.

--values and --set lay a layer of values above every policy over the cluster's, as render's do:
what the Gateways would get if such a policy were applied.

Exit status: 0 when nothing would change (a repository identical to the cluster, say), 1 when
something would (an object created, updated or pruned, a status, a policy's or route's outcome),
2 on an error: a usage error, the cluster unreachable or forbidding what diff must read.`,
		Example: `  gantry diff -A my-policy-edit.yaml
  gantry diff -n team-a --gateway team-a/web --set replicas=5
  gantry diff -n team-a --gateway team-a/web -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			err := o.run(cmd.Context(), args, stdin, stdout, stderr)
			if err != nil && !errors.Is(err, errChanges) {
				var usage *UsageError
				if !errors.As(err, &usage) {
					return &ExitError{Code: 2, Err: err}
				}
			}
			return err
		},
	}
	f := cmd.Flags()
	o.cluster.addFlags(f)
	o.cluster.noClientRateLimit = true // --concurrency bounds the requests in flight
	f.StringArrayVar(&o.gateways, "gateway", nil, "look only at this Gateway, as namespace/name (repeatable)")
	f.StringVarP(&o.output, "output", "o", "text", "output format: text or json")
	f.StringVar(&o.controllerNamespace, "controller-namespace", desired.DefaultControllerNamespace, "namespace whose GatewayClassConfigs are global")
	addValueFlags(f, &o.values, "every policy, as if a policy above all others set them")
	command.AddLimitFlags(f, &o.limits)
	f.StringVar(&o.color, "color", "auto", "colour the text output: auto (on a terminal, unless NO_COLOR is set), always or never")
	f.IntVar(&o.concurrency, "concurrency", defaultDiffConcurrency, "how many Gateways to diff at once (their dry-runs are requests to the API server); the output is the same for any value")
	mustComplete(cmd, "gateway", o.cluster.completeNames(gatewayList))
	return cmd
}

// gatewayDiff is what a reconcile of one Gateway would change.
type gatewayDiff struct {
	Gateway string `json:"gateway"`
	// Error is why the Gateway's desired state cannot be computed; nothing is then applied or
	// pruned, and the status says so.
	Error    string         `json:"error,omitempty"`
	Create   []objectChange `json:"create,omitempty"`
	Update   []objectChange `json:"update,omitempty"`
	Prune    []objectChange `json:"prune,omitempty"`
	Conflict []objectChange `json:"conflict,omitempty"`
	// Status is a unified diff of the Gateway's status (conditions without timestamps).
	Status string `json:"status,omitempty"`
	// Partial says that some inputs were not readable with the user's rights: objects are then
	// compared between the render of the cluster's inputs and that with the local files (both
	// without what could not be read), not with the live objects, and the status is not shown.
	Partial  string         `json:"partial,omitempty"`
	Policies []policyChange `json:"policies,omitempty"`
	// Contributions are the routes and ListenerSets whose outcome on this Gateway would
	// change (accepted, rendered, set apart), as their status would say it.
	Contributions []contributionChange `json:"contributions,omitempty"`
}

type contributionChange struct {
	Object string `json:"object"`
	From   string `json:"from"`
	To     string `json:"to"`
}

type objectChange struct {
	Object string `json:"object"`
	Diff   string `json:"diff,omitempty"`
}

type policyChange struct {
	Policy string `json:"policy"`
	// Route is set for an outcome in a route's chain: the route's kind and namespace/name.
	Route string `json:"route,omitempty"`
	From  string `json:"from"`
	To    string `json:"to"`
}

func (d *gatewayDiff) empty() bool {
	return d.Error == "" && len(d.Create)+len(d.Update)+len(d.Prune)+len(d.Conflict)+len(d.Policies)+len(d.Contributions) == 0 && d.Status == ""
}

func (o *diffOptions) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.output != "text" && o.output != "json" {
		return usagef("--output must be text or json, not %q", o.output)
	}
	if o.concurrency < 1 {
		return usagef("--concurrency must be at least 1, not %d", o.concurrency)
	}
	color, err := useColor(o.color, stdout)
	if err != nil {
		return err
	}
	for _, g := range o.gateways {
		if ns, name, ok := strings.Cut(g, "/"); !ok || ns == "" || name == "" {
			return usagef("--gateway must be namespace/name, not %q", g)
		}
	}
	if o.cmdline, err = commandLineValues(&o.values); err != nil {
		return err
	}
	local, err := manifests.Load(args, stdin)
	if err != nil {
		return err
	}
	live, err := o.cluster.read(ctx, len(o.gateways) > 0)
	if err != nil {
		return err
	}
	warnUnseen(stderr, live.set)
	set := live.set.With(local)
	gateways, err := selectGateways(set, o.gateways, live)
	if err != nil {
		return err
	}
	diffs, err := o.diffGateways(ctx, live, set, gateways)
	if err != nil {
		return err
	}
	sum := summarize(len(gateways), diffs)
	if o.output == "json" {
		b, err := json.MarshalIndent(map[string]any{"summary": sum, "gateways": append([]*gatewayDiff{}, diffs...)}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		var b strings.Builder
		if len(diffs) > 0 && len(gateways) > 1 {
			printSummary(&b, sum)
		}
		for _, d := range diffs {
			printDiff(&b, d)
		}
		text := b.String()
		if color {
			text = colorize(text)
		}
		io.WriteString(stdout, text)
	}
	if len(diffs) > 0 {
		return errChanges
	}
	return nil
}

// diffGateways diffs the Gateways, o.concurrency at a time, and returns those that would
// change in the Gateways' order: the same output whatever the concurrency. On errors it
// returns the error of the first Gateway in that order that failed, as a serial run would;
// no Gateway after it is started once it has failed.
func (o *diffOptions) diffGateways(ctx context.Context, live *liveCluster, set *manifests.Set, gateways []*gwv1.Gateway) ([]*gatewayDiff, error) {
	liveGateways := make(map[types.NamespacedName]*gwv1.Gateway, len(live.set.Gateways))
	for _, g := range live.set.Gateways {
		liveGateways[types.NamespacedName{Namespace: g.Namespace, Name: g.Name}] = g
	}
	results := make([]*gatewayDiff, len(gateways))
	errs := make([]error, len(gateways))
	var firstFailed atomic.Int64 // the lowest index that failed so far
	firstFailed.Store(int64(len(gateways)))
	var g errgroup.Group
	g.SetLimit(o.concurrency)
	for i, gw := range gateways {
		if int64(i) > firstFailed.Load() {
			break
		}
		g.Go(func() error {
			if int64(i) > firstFailed.Load() {
				return nil
			}
			d, err := o.diffGateway(ctx, live, liveGateways, set, gw)
			if err != nil {
				errs[i] = fmt.Errorf("Gateway %s/%s: %w", gw.Namespace, gw.Name, err)
				for {
					f := firstFailed.Load()
					if int64(i) >= f || firstFailed.CompareAndSwap(f, int64(i)) {
						break
					}
				}
				return nil
			}
			results[i] = d
			return nil
		})
	}
	g.Wait()
	if err := cmp.Or(errs...); err != nil {
		return nil, err
	}
	var diffs []*gatewayDiff
	for _, d := range results {
		if !d.empty() {
			diffs = append(diffs, d)
		}
	}
	return diffs, nil
}

// diffGateway computes what a reconcile of gw would change: the render and status with the
// merged inputs, compared with the cluster; policy outcomes compared with the render of the
// cluster's inputs alone. liveGateways are the cluster's Gateways by namespace and name. It
// is called for several Gateways at once: it must only read what they share.
func (o *diffOptions) diffGateway(ctx context.Context, live *liveCluster, liveGateways map[types.NamespacedName]*gwv1.Gateway, set *manifests.Set, gw *gwv1.Gateway) (*gatewayDiff, error) {
	d := &gatewayDiff{Gateway: gw.Namespace + "/" + gw.Name}
	in := o.input(live, set, gw)
	in.CommandLine = o.cmdline // the what-if layer: after, not before
	res, renderErr := desired.Gateway(in)

	// Policies: the outcomes with the cluster's inputs, against those with the local files.
	var before *desired.Result
	var liveStatus gwv1.GatewayStatus // a Gateway only in the local files has none yet
	if lg, ok := liveGateways[types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}]; ok {
		before, _ = desired.Gateway(o.input(live, live.set, lg))
		liveStatus = lg.Status
	}
	d.Policies = policyChanges(before, res)
	d.Contributions = contributionChanges(before, res, renderErr)
	if len(live.set.Unseen) > 0 {
		// Routes of both renders, to name each route's objects' owner.
		routes := slices.Concat(desired.AllRoutes(in.Routes, in.OtherRoutes), desired.AllRoutes(live.set.Routes, live.set.OtherRoutes))
		return o.partialDiff(d, gw, routes, before, res, renderErr)
	}

	// Status: what the controller would write, against what is live. Not the local file's:
	// a file has none, or the CRD's defaults ("Waiting for controller"), which would make a
	// repository identical to the cluster differ.
	base := gw.DeepCopy()
	base.Status = *liveStatus.DeepCopy() // the controller starts from the live status too
	next := controllers.GatewayStatus(base, res, renderErr)
	d.Status = unified("status", statusView(liveStatus), statusView(next))

	if renderErr != nil {
		d.Error = renderErr.Error()
		return d, nil
	}
	objs, err := controllers.ToApply(gw, desired.AllRoutes(in.Routes, in.OtherRoutes), res.Objects)
	if err != nil {
		return nil, err
	}
	owned := set.Owned(gw)
	byKey := map[string]*unstructured.Unstructured{}
	for _, u := range owned {
		byKey[describe(u)] = u
	}
	for _, want := range objs {
		name := describe(want)
		if have, ok := byKey[name]; ok {
			if controllers.Unchanged(have, want) {
				continue
			}
			after, err := dryRun(ctx, live.client, want)
			if err != nil {
				return nil, err
			}
			if diff := unified(name, comparable(have), comparable(after)); diff != "" {
				d.Update = append(d.Update, objectChange{Object: name, Diff: diff})
			}
			continue
		}
		// Not among the Gateway's objects: it may exist without being Gantry's.
		existing := &unstructured.Unstructured{}
		existing.SetGroupVersionKind(want.GroupVersionKind())
		err := live.client.Get(ctx, client.ObjectKeyFromObject(want), existing)
		switch {
		case apierrors.IsNotFound(err):
			created := want
			if gw.UID != "" { // a Gateway not in the cluster has no UID for the owner reference
				if created, err = dryRun(ctx, live.client, want); err != nil {
					return nil, err
				}
			}
			d.Create = append(d.Create, objectChange{Object: name, Diff: added(comparable(created))})
		case err != nil:
			return nil, fmt.Errorf("get %s: %w", name, err)
		default:
			d.Conflict = append(d.Conflict, objectChange{Object: name, Diff: fmt.Sprintf("%s exists and is not Gateway %s's (owner annotation %q); the controller would not take it over",
				name, d.Gateway, existing.GetAnnotations()[v1alpha1.AnnotationOwner])})
		}
	}
	for _, u := range controllers.ToPrune(in, res, objs, owned) {
		d.Prune = append(d.Prune, objectChange{Object: describe(u)})
	}
	return d, nil
}

// partialDiff compares, for a user who may not read all of the Gateway's inputs, the render of
// the cluster's inputs as they can read them with the render with the local files laid over:
// what the local files change. Against the live objects, whatever the unread inputs set would
// show as a change. No dry-run either: it needs the right to write each object.
func (o *diffOptions) partialDiff(d *gatewayDiff, gw *gwv1.Gateway, routes []client.Object, before, after *desired.Result, afterErr error) (*gatewayDiff, error) {
	d.Partial = "some inputs are not readable with your rights; objects are compared between the render without and with the local files, not with the live objects, and the status is not shown"
	if afterErr != nil {
		d.Error = afterErr.Error()
		return d, nil
	}
	objects := func(res *desired.Result) (map[string]*unstructured.Unstructured, []string, error) {
		out := map[string]*unstructured.Unstructured{}
		if res == nil {
			return out, nil, nil
		}
		objs, err := controllers.ToApply(gw, routes, res.Objects)
		if err != nil {
			return nil, nil, err
		}
		var order []string
		for _, u := range objs {
			name := describe(u)
			out[name] = u
			order = append(order, name)
		}
		return out, order, nil
	}
	was, _, err := objects(before)
	if err != nil {
		return nil, err
	}
	now, order, err := objects(after)
	if err != nil {
		return nil, err
	}
	for _, name := range order {
		if old, ok := was[name]; !ok {
			d.Create = append(d.Create, objectChange{Object: name, Diff: added(comparable(now[name]))})
		} else if diff := unifiedAs(name, "cluster's inputs", "with the local files", comparable(old), comparable(now[name])); diff != "" {
			d.Update = append(d.Update, objectChange{Object: name, Diff: diff})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(was)) {
		if _, ok := now[name]; !ok {
			d.Prune = append(d.Prune, objectChange{Object: name})
		}
	}
	return d, nil
}

func (o *diffOptions) input(live *liveCluster, set *manifests.Set, gw *gwv1.Gateway) *desired.Input {
	in := set.Input(gw, o.controllerNamespace)
	in.Limits = o.limits
	in.IsNamespaced = live.isNamespaced
	return in
}

// dryRun applies obj as the controller does (field manager gantry, forcing ownership), as a
// server-side dry-run, and returns the object the API server would store.
func dryRun(ctx context.Context, c client.Client, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	u := obj.DeepCopy()
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(controllers.FieldManager), client.ForceOwnership, client.DryRunAll); err != nil {
		return nil, fmt.Errorf("dry-run apply %s: %w", describe(obj), err)
	}
	return u, nil
}

func describe(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetKind() + " " + u.GetName()
	}
	return u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
}

// comparable is an object's YAML without what the API server sets (managed fields,
// resourceVersion, generation, uid, creationTimestamp) and without status, which the
// controller does not write.
func comparable(u *unstructured.Unstructured) string {
	c := u.DeepCopy()
	c.SetManagedFields(nil)
	c.SetResourceVersion("")
	c.SetGeneration(0)
	// Set once by the API server, never by an apply: context lines that would vary by cluster.
	c.SetUID("")
	c.SetCreationTimestamp(metav1.Time{})
	delete(c.Object, "status")
	b, err := yaml.Marshal(c.Object)
	if err != nil {
		return fmt.Sprintf("# %v\n", err)
	}
	return string(b)
}

// statusView is the part of a Gateway's status a reconcile decides: conditions without their
// timestamps, addresses and listeners. Conditions are a map by type (listType=map): their
// order says nothing, so they are sorted.
func statusView(st gwv1.GatewayStatus) string {
	st = *st.DeepCopy()
	byType := func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) }
	slices.SortFunc(st.Conditions, byType)
	for i := range st.Listeners {
		slices.SortFunc(st.Listeners[i].Conditions, byType)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
	if err != nil {
		return fmt.Sprintf("# %v\n", err)
	}
	dropTimestamps(m)
	b, err := yaml.Marshal(m)
	if err != nil {
		return fmt.Sprintf("# %v\n", err)
	}
	return string(b)
}

// dropTimestamps removes every condition's lastTransitionTime: when a condition last changed
// is not something a reconcile decides.
func dropTimestamps(v any) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "lastTransitionTime")
		for _, e := range v {
			dropTimestamps(e)
		}
	case []any:
		for _, e := range v {
			dropTimestamps(e)
		}
	}
}

// unified is a unified diff of two texts, "" when they are equal.
func unified(name, a, b string) string { return unifiedAs(name, "live", "after apply", a, b) }

// unifiedAs is unified with the two sides named.
func unifiedAs(name, from, to, a, b string) string {
	if a == b {
		return ""
	}
	s, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(a), B: difflib.SplitLines(b),
		FromFile: name + " (" + from + ")", ToFile: name + " (" + to + ")", Context: 3,
	})
	if err != nil {
		return err.Error()
	}
	return s
}

// added shows a new object's text as the added lines of a diff.
func added(text string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		if l != "" {
			b.WriteString("+" + l)
		}
	}
	return b.String()
}

// policyChanges compares the outcome of each policy, for the Gateway and each of its routes.
func policyChanges(before, after *desired.Result) []policyChange {
	type key struct {
		route string
		ref   precedence.Ref
	}
	outcomes := func(res *desired.Result) map[key]precedence.State {
		m := map[key]precedence.State{}
		if res == nil {
			return m
		}
		if res.Values != nil {
			for _, o := range res.Values.Outcomes {
				m[key{"", o.Ref}] = o.State
			}
		}
		for _, r := range res.Routes {
			if r.Values != nil {
				for _, o := range r.Values.Outcomes {
					m[key{r.Kind + " " + r.NamespacedName.String(), o.Ref}] = o.State
				}
			}
		}
		return m
	}
	was, now := outcomes(before), outcomes(after)
	var out []policyChange
	// A policy that does not apply, before or after, is no news: every policy of the inputs
	// has an outcome for every Gateway, most of them NotApplicable.
	quiet := func(a, b precedence.State) bool {
		return a == b || (a == "" || a == precedence.StateNotApplicable) && (b == "" || b == precedence.StateNotApplicable)
	}
	for k, s := range now {
		if !quiet(was[k], s) {
			out = append(out, policyChange{Policy: k.ref.String(), Route: k.route, From: string(orNone(was[k])), To: string(s)})
		}
	}
	for k, s := range was {
		if _, ok := now[k]; !ok && !quiet(s, "") {
			out = append(out, policyChange{Policy: k.ref.String(), Route: k.route, From: string(s), To: "(gone)"})
		}
	}
	slices.SortFunc(out, func(a, b policyChange) int { return strings.Compare(a.Route+" "+a.Policy, b.Route+" "+b.Policy) })
	return out
}

// contributionChanges are the routes and ListenerSets of the Gateway whose outcome differs
// between before (the cluster's inputs) and after (with the local files): what their status
// would say, without timestamps. A Gateway that fails to render fails its routes too
// (GatewayNotRendered).
func contributionChanges(before, after *desired.Result, afterErr error) []contributionChange {
	outcomes := func(res *desired.Result, failed bool) map[string]string {
		m := map[string]string{}
		if res == nil {
			return m
		}
		for _, r := range res.Routes {
			key := r.Kind + " " + r.NamespacedName.String()
			switch {
			case !r.Accepted:
				m[key] = fmt.Sprintf("Accepted=False %s: %s", r.Reason, r.Message)
			case failed:
				m[key] = "Rendered=False GatewayNotRendered"
			case r.Err != nil:
				m[key] = "Rendered=False: " + r.Err.Error()
			default:
				m[key] = "Accepted, Rendered"
			}
		}
		for _, ls := range res.ListenerSets {
			key := "ListenerSet " + ls.NamespacedName.String()
			if ls.Accepted() {
				m[key] = "Accepted"
			} else {
				m[key] = fmt.Sprintf("Accepted=False %s: %s", ls.Reason, ls.Message)
			}
		}
		return m
	}
	was := outcomes(before, false)
	now := outcomes(after, afterErr != nil)
	if afterErr != nil {
		// A failed render may stop before attachment: every route that was there and is not
		// known now is not rendered.
		for k := range was {
			if _, known := now[k]; !known && !strings.HasPrefix(k, "ListenerSet ") {
				now[k] = "Rendered=False GatewayNotRendered"
			}
		}
	}
	var out []contributionChange
	for k, s := range now {
		if was[k] != s {
			out = append(out, contributionChange{Object: k, From: cmp.Or(was[k], "(none)"), To: s})
		}
	}
	for k, s := range was {
		if _, ok := now[k]; !ok {
			out = append(out, contributionChange{Object: k, From: s, To: "(gone)"})
		}
	}
	slices.SortFunc(out, func(a, b contributionChange) int { return strings.Compare(a.Object, b.Object) })
	return out
}

func orNone(s precedence.State) precedence.State {
	if s == "" {
		return "(none)"
	}
	return s
}

// diffSummary is what a change does to the whole fleet of Gateways diff looked at: how many
// change, the objects by kind, and what would fail — first, so that a blueprint change that
// breaks some Gateways of hundreds is seen before their diffs.
type diffSummary struct {
	Gateways int `json:"gateways"`
	Changed  int `json:"changed"`
	// Create, Update and Prune count objects by kind.
	Create map[string]int `json:"create,omitempty"`
	Update map[string]int `json:"update,omitempty"`
	Prune  map[string]int `json:"prune,omitempty"`
	// Status counts the Gateways whose status would change.
	Status int `json:"status,omitempty"`
	// Failing are the Gateways that would not render, with why; FailingRoutes the routes and
	// ListenerSets that would fail or be refused on a Gateway that does.
	Failing       []string `json:"failing,omitempty"`
	FailingRoutes []string `json:"failingRoutes,omitempty"`
}

func summarize(total int, diffs []*gatewayDiff) diffSummary {
	s := diffSummary{Gateways: total, Changed: len(diffs)}
	count := func(m *map[string]int, cs []objectChange) {
		for _, c := range cs {
			kind, _, _ := strings.Cut(c.Object, " ")
			if *m == nil {
				*m = map[string]int{}
			}
			(*m)[kind]++
		}
	}
	for _, d := range diffs {
		count(&s.Create, d.Create)
		count(&s.Update, d.Update)
		count(&s.Prune, d.Prune)
		if d.Status != "" {
			s.Status++
		}
		if d.Error != "" {
			first, _, _ := strings.Cut(d.Error, "\n")
			s.Failing = append(s.Failing, fmt.Sprintf("Gateway %s: %s", d.Gateway, first))
		}
		for _, c := range d.Contributions {
			if strings.Contains(c.To, "=False") && !strings.Contains(c.To, "GatewayNotRendered") {
				s.FailingRoutes = append(s.FailingRoutes, fmt.Sprintf("%s on Gateway %s: %s", c.Object, d.Gateway, c.To))
			}
		}
	}
	return s
}

func printSummary(w io.Writer, s diffSummary) {
	var parts []string
	for _, c := range []struct {
		verb string
		m    map[string]int
	}{{"create", s.Create}, {"update", s.Update}, {"prune", s.Prune}} {
		n, kinds := 0, []string{}
		for _, k := range slices.Sorted(maps.Keys(c.m)) {
			n += c.m[k]
			kinds = append(kinds, fmt.Sprintf("%s %d", k, c.m[k]))
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d (%s)", c.verb, n, strings.Join(kinds, ", ")))
		}
	}
	if s.Status > 0 {
		parts = append(parts, "status of "+plural(s.Status, "Gateway"))
	}
	if n := len(s.Failing) + len(s.FailingRoutes); n > 0 {
		parts = append(parts, plural(n, "failure"))
	}
	fmt.Fprintf(w, "# Summary: %d of %d Gateways would change: %s\n", s.Changed, s.Gateways, strings.Join(parts, "; "))
	for _, f := range s.Failing {
		fmt.Fprintf(w, "# would fail to render: %s\n", f)
	}
	for _, f := range s.FailingRoutes {
		fmt.Fprintf(w, "# would fail: %s\n", f)
	}
	fmt.Fprintln(w)
}

// plural is "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func printDiff(w io.Writer, d *gatewayDiff) {
	fmt.Fprintf(w, "# Gateway %s\n", d.Gateway)
	if d.Partial != "" {
		fmt.Fprintf(w, "# partial: %s\n", d.Partial)
	}
	if d.Error != "" {
		for _, l := range strings.Split(d.Error, "\n") {
			fmt.Fprintf(w, "! cannot render, nothing would be applied or pruned: %s\n", l)
		}
	}
	for _, c := range d.Create {
		fmt.Fprintf(w, "+ create %s\n%s", c.Object, c.Diff)
	}
	for _, c := range d.Update {
		fmt.Fprintf(w, "~ update %s\n%s", c.Object, c.Diff)
	}
	for _, c := range d.Prune {
		fmt.Fprintf(w, "- prune %s\n", c.Object)
	}
	for _, c := range d.Conflict {
		fmt.Fprintf(w, "! conflict: %s\n", c.Diff)
	}
	if d.Status != "" {
		fmt.Fprintf(w, "~ status of Gateway %s\n%s", d.Gateway, d.Status)
	}
	for _, c := range d.Contributions {
		fmt.Fprintf(w, "~ %s: %s -> %s\n", c.Object, c.From, c.To)
	}
	for _, p := range d.Policies {
		where := ""
		if p.Route != "" {
			where = " for " + p.Route
		}
		fmt.Fprintf(w, "~ policy %s%s: %s -> %s\n", p.Policy, where, p.From, p.To)
	}
}
