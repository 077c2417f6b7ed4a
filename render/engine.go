package render

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"
	"text/template/parse"
	"unsafe"

	"github.com/Masterminds/sprig/v3"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/internal/tmplwalk"
	"gantry.dev/gantry/internal/yamltext"
)

// Template field paths: how errors and pending reports name a template.
const (
	gatewayPrefix  = "gatewayTemplate.resourceTemplates."
	statusTemplate = "gatewayTemplate.status.template"
)

// RoutePrefix is the field path of the templates rendered per route of kind, as errors and
// pending reports name them: "httpRouteTemplate.resourceTemplates." for HTTPRoute.
func RoutePrefix(kind string) string {
	for _, f := range v1alpha1.RouteTemplateFields {
		if f.Kind == kind {
			return f.Field + ".resourceTemplates."
		}
	}
	return strings.ToLower(kind[:1]) + kind[1:] + "Template.resourceTemplates."
}

// Blueprint is a compiled GatewayClassBlueprint: parsed templates and values schema, ready to
// render any number of Gateways, concurrently.
type Blueprint struct {
	Name string
	root *template.Template
	// strict is the template set parsed again for the strict render of templates that read
	// .Resources (see execution.strictPending); nil when none does.
	strict  *template.Template
	gateway []*compiled
	// routes are the per-route templates of each route kind that has any.
	routes        map[string][]*compiled
	status        *compiled
	schema        *jsonschema.Schema
	clusterScoped map[schema.GroupKind]bool
	// words are the names the templates spell out; see boundary.TemplateWords.
	words map[string]bool
	// executions pools clones of root bound to their own include/tpl; one render uses one.
	executions sync.Pool
	// id tells this compile from every other in the structure check's memory.
	id uint64
	// resourceEntries are the .Resources entries the templates can read, when resourcesExact
	// (see resourcesRead); the memory of outputs keys a render by those alone.
	resourceEntries []string
	resourcesExact  bool
	// mutates is set when a template can change a map in place (see mayMutate): only then
	// does a render copy what it is given.
	mutates bool
	// callsTpl is set when a template names tpl: a render with tenant values then learns first
	// which texts the templates run through tpl with inert stand-ins (boundary.LearnTpl).
	callsTpl bool
	// readsRoutes is set when a template may read .Routes (see ReadsRoutes).
	readsRoutes bool
	// unstepped are the templates whose own step (instrument) Go counts where it runs them,
	// in execution.run and execution.include: see unstep.
	unstepped map[string]bool
}

// compiled is one resource template.
type compiled struct {
	key   string // the resourceTemplates key, as .Resources knows it
	field string // the template's name in the set: its field path
	// reads lists the .Resources entries the template refers to.
	reads []string
	// size is the length of the template's last output: its next output buffer starts that
	// large (up to maxSizeHint) instead of doubling its way there.
	size atomic.Int64
}

// maxSizeHint caps the buffer a render starts with, so that one large output does not make
// every later render of the template allocate as much before it writes anything.
const maxSizeHint = 64 << 10

// Compile parses every template of a blueprint and its values schema. The error lists every
// template that does not parse, each with its line.
func Compile(name string, spec *v1alpha1.GatewayClassBlueprintSpec) (*Blueprint, error) {
	b := &Blueprint{Name: name, clusterScoped: map[schema.GroupKind]bool{}, id: blueprintIDs.Add(1)}
	// No missingkey option: an absent key is nil, as in Helm (see absent.go).
	b.root = template.New(name).Funcs(baseFuncs()).Funcs(boundary.DecisionFuncs())
	var errs []error
	parseSet := func(prefix string, set map[string]string) []*compiled {
		var out []*compiled
		for _, key := range slices.Sorted(maps.Keys(set)) {
			c := &compiled{key: key, field: prefix + key}
			t, err := b.root.New(c.field).Parse(set[key])
			if err != nil {
				e, _ := templateError(name, c.field, err)
				errs = append(errs, e)
				continue
			}
			if strings.HasPrefix(key, "_") {
				continue // Helm's convention: "_helpers" holds defines and renders nothing
			}
			c.reads = resourceReads(t.Tree)
			out = append(out, c)
		}
		return out
	}
	b.gateway = parseSet(gatewayPrefix, spec.GatewayTemplate.ResourceTemplates)
	for _, f := range v1alpha1.RouteTemplateFields {
		if rt := spec.RouteTemplateFor(f.Kind); rt != nil {
			if set := parseSet(RoutePrefix(f.Kind), rt.ResourceTemplates); len(set) > 0 {
				if b.routes == nil {
					b.routes = map[string][]*compiled{}
				}
				b.routes[f.Kind] = set
			}
		}
	}
	if st := spec.GatewayTemplate.Status; st != nil && strings.TrimSpace(st.Template) != "" {
		if s := parseSet("", map[string]string{statusTemplate: st.Template}); len(s) == 1 {
			b.status = s[0]
		}
	}
	if spec.ValuesSchema != nil && len(spec.ValuesSchema.Raw) > 0 {
		s, err := compileSchema(spec.ValuesSchema.Raw)
		if err != nil {
			errs = append(errs, &Error{Blueprint: name, Template: "valuesSchema", Msg: err.Error()})
		}
		b.schema = s
	}
	for _, gk := range spec.ClusterScopedKinds {
		b.clusterScoped[schema.GroupKind{Group: gk.Group, Kind: gk.Kind}] = true
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	b.resourceEntries, b.resourcesExact = resourcesRead(b.root, topLevel(b))
	for _, t := range b.root.Templates() {
		instrument(t.Tree) // count every loop iteration and template call against the budget
	}
	b.words = boundary.TemplateWords(b.root)
	b.mutates = mayMutate(b.root)
	b.callsTpl = names(b.root, "tpl")
	b.readsRoutes = b.callsTpl || spells(b.root, "Routes")
	boundary.RewriteDecisions(b.root)
	if !b.callsTpl {
		// A tpl text's template action could run a template that no action of the
		// blueprint names: such blueprints keep every template's own step (a review's
		// case: thousands of helper calls from one tpl call, none counted).
		b.unstepped = unstep(b.root)
	}
	if slices.ContainsFunc(b.all(), func(c *compiled) bool { return len(c.reads) > 0 }) {
		sources := map[string]string{}
		for k, v := range spec.GatewayTemplate.ResourceTemplates {
			sources[gatewayPrefix+k] = v
		}
		for _, f := range v1alpha1.RouteTemplateFields {
			if rt := spec.RouteTemplateFor(f.Kind); rt != nil {
				for k, v := range rt.ResourceTemplates {
					sources[RoutePrefix(f.Kind)+k] = v
				}
			}
		}
		if b.status != nil {
			sources[statusTemplate] = spec.GatewayTemplate.Status.Template
		}
		s, err := strictTemplates(name, sources)
		if err != nil {
			return nil, fmt.Errorf("blueprint %s: %w", name, err)
		}
		b.strict = s
	}
	return b, nil
}

// ReadsRoutes reports whether the blueprint's templates may read .Routes: one names it (a
// field, a variable's field, or the string "Routes", for index), or one runs tpl. A caller
// leaves .Routes out otherwise: building it, and checking every route's strings in every
// render of the Gateway, would cost a shared Gateway's renders for nothing.
func (b *Blueprint) ReadsRoutes() bool { return b.readsRoutes }

// HasRouteTemplates reports whether the blueprint renders anything per route, of any kind.
func (b *Blueprint) HasRouteTemplates() bool { return len(b.routes) > 0 }

// HasRouteTemplatesFor reports whether the blueprint renders anything per route of kind.
func (b *Blueprint) HasRouteTemplatesFor(kind string) bool { return len(b.routes[kind]) > 0 }

// all is every template a render executes itself: the Gateway's, every route kind's (in the
// order of v1alpha1.RouteTemplateFields) and the status template.
func (b *Blueprint) all() []*compiled {
	out := slices.Clip(b.gateway)
	for _, f := range v1alpha1.RouteTemplateFields {
		out = append(out, b.routes[f.Kind]...)
	}
	if b.status != nil {
		out = append(out, b.status)
	}
	return out
}

// GatewayTemplates lists the keys of the gateway resource templates, sorted.
func (b *Blueprint) GatewayTemplates() []string { return keys(b.gateway) }

// RouteTemplates lists the keys of the resource templates rendered per route of kind, sorted.
func (b *Blueprint) RouteTemplates(kind string) []string { return keys(b.routes[kind]) }

func keys(cs []*compiled) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.key
	}
	return out
}

// resourceReads finds the .Resources.<name> fields a template refers to.
func resourceReads(tree *parse.Tree) []string {
	seen := map[string]bool{}
	if tree != nil {
		tmplwalk.Inspect(tree.Root, func(n parse.Node) {
			switch n := n.(type) {
			case *parse.FieldNode:
				if len(n.Ident) >= 2 && n.Ident[0] == "Resources" {
					seen[n.Ident[1]] = true
				}
			case *parse.VariableNode:
				if len(n.Ident) >= 3 && n.Ident[0] == "$" && n.Ident[1] == "Resources" {
					seen[n.Ident[2]] = true
				}
			case *parse.CommandNode:
				if name, ok := indexedResource(n.Args); ok {
					seen[name] = true
				}
			}
		})
	}
	return slices.Sorted(maps.Keys(seen))
}

// indexedResource recognises `index .Resources "name" ...` (or `$.Resources`).
func indexedResource(args []parse.Node) (string, bool) {
	if len(args) < 3 {
		return "", false
	}
	if f, ok := args[0].(*parse.IdentifierNode); !ok || f.Ident != "index" {
		return "", false
	}
	switch r := args[1].(type) {
	case *parse.FieldNode:
		if !slices.Equal(r.Ident, []string{"Resources"}) {
			return "", false
		}
	case *parse.VariableNode:
		if !slices.Equal(r.Ident, []string{"$", "Resources"}) {
			return "", false
		}
	default:
		return "", false
	}
	name, ok := args[2].(*parse.StringNode)
	if !ok {
		return "", false
	}
	return name.Text, true
}

// Hostnames are the hostnames of a Gateway, see ComputeHostnames.
type Hostnames struct {
	Union        []string
	Intersection []string
	Attached     []string
}

// Input is the context of one render.
type Input struct {
	Values map[string]any
	// Gateway is the Gateway as a map.
	Gateway map[string]any
	// Route, route templates only, is the route as a map, of kind RouteKind (HTTPRoute when
	// empty): templates read it as .Route and by its kind (.HTTPRoute, .GRPCRoute, …).
	Route     map[string]any
	RouteKind string
	// Backends, route templates only, is .Backends: the route's backendRefs, each a map, with
	// whether it resolves. Its strings are the tenant's (pass them in Tainted).
	Backends []any
	// ListenerSets are the ListenerSets attached to the Gateway, as maps, in Gateway API's
	// listener precedence (oldest first, then namespace/name).
	ListenerSets []map[string]any
	// Resources maps a template key to the live objects it produced.
	Resources map[string][]map[string]any
	Hostnames Hostnames
	// Routes is .Routes for the Gateway's templates: the routes attached to it (see
	// docs/blueprints.md). Left out when the blueprint does not read it (ReadsRoutes).
	Routes []any
	// Namespace is where namespaced objects land: the Gateway's, or the route's.
	Namespace string
	// Tainted are the tenant's values (GatewayConfig values, Gateway, route and ListenerSet
	// fields, live objects in tenant namespaces) that must not shape the output: see package
	// boundary.
	Tainted []boundary.Tainted
	// TenantKeys, when set, says where in Values the tenant's keys are (see boundary.KeyTree): only
	// there are keys replaced by stand-ins, so that a platform key equal to a tenant string
	// stays as it is and a lookup by the tenant's string (`index .Values.secrets .Values.key`)
	// finds nothing with a stand-in. Nil replaces every key equal to a tenant string.
	TenantKeys *boundary.KeyTree
	// IsNamespaced reports a kind's scope; nil uses a table of the built-in cluster-scoped kinds.
	IsNamespaced func(schema.GroupVersionKind) (bool, error)
	// CustomKinds maps kinds of groups the API server does not serve by itself (CRDs found in
	// `gantry render` input) to whether they are namespaced; used only when IsNamespaced is nil.
	CustomKinds map[schema.GroupKind]bool
	// Limits bound the render; zero fields take the defaults.
	Limits Limits
	// KeepText keeps each object's document text as written in Object.Text (gantry render
	// --as-written). Such a render is not remembered by an OutputMemory.
	KeepText bool
}

// Object is one rendered object and the template that produced it.
type Object struct {
	Template string
	Object   map[string]any
	// Text is the document as the template wrote it (comments, key order, quoting), when the
	// input asked for it (Input.KeepText); the Object is what it parsed to.
	Text string
}

// Output is what a render produced.
type Output struct {
	Objects []Object
	// Status is the status template's output (Gateway renders only), nil when it has none.
	Status  map[string]any
	Pending []Pending
}

// RenderGateway renders the gateway templates and the status template. Any error fails the
// whole render: a caller must apply all or nothing.
func (b *Blueprint) RenderGateway(in *Input) (*Output, error) {
	return b.render(in, b.gateway, b.status)
}

// RenderRoute renders the templates of in.RouteKind for one route (in.Route) and parent
// Gateway.
func (b *Blueprint) RenderRoute(in *Input) (*Output, error) {
	return b.render(in, b.routes[in.routeKind()], nil)
}

// routeKind is in.RouteKind, HTTPRoute when empty.
func (in *Input) routeKind() string {
	if in.RouteKind == "" {
		return "HTTPRoute"
	}
	return in.RouteKind
}

func (b *Blueprint) render(in *Input, set []*compiled, status *compiled) (*Output, error) {
	x, err := b.newExecution(in, nil)
	if err != nil {
		return nil, err
	}
	defer x.done()
	// The structure check renders every template a second time, with stand-ins for the
	// tenant values; a render without tenant values needs none.
	var check *boundary.Check
	if len(in.Tainted) > 0 {
		check = b.newCheck(in, x.budget.deadline)
		defer b.checkDone(check)
		x.d.UseCheck(check.Substitution(), false) // A notes the parts its splits cut
		if b.callsTpl {
			ts := make([]boundary.Template, 0, len(set)+1)
			for _, c := range append(slices.Clip(set), status) {
				if c != nil {
					ts = append(ts, c)
				}
			}
			if x.tplGuard, err = boundary.LearnTpl(checkEngine{b, in}, check.Substitution(), in.Tainted, x.budget.deadline, ts); err != nil {
				return nil, err
			}
		}
	}
	out := &Output{}
	var errs []error
	// each runs one template and hands its text to use; failures and pending are collected.
	each := func(c *compiled, use func(text string) error) {
		if check != nil {
			x.d.Start(nil) // record the decisions for B to replay
		}
		text, pending, err := x.run(c)
		check.Ran(c, x.d.Log(), x.code)
		if e, ok := err.(*Error); ok && check != nil && e.Origin == "" {
			switch {
			case x.refused != nil:
				e.Origin, e.Holders = check.TplCulprit(c, x.tplGuard)
			case x.budget.err == nil:
				// The template's own failure: named after a tenant value when its content
				// is what fails it (a budget names no value: the caller decides on those).
				e.Origin, e.Holders = check.Culprit(c)
			}
		}
		switch {
		case err != nil:
			errs = append(errs, err)
		case pending != nil:
			out.Pending = append(out.Pending, *pending)
		default:
			if err := use(text); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, c := range set {
		each(c, func(text string) error {
			objs, err := b.objects(c, text, in, check)
			out.Objects = append(out.Objects, objs...)
			return err
		})
	}
	if status != nil {
		each(status, func(text string) error {
			st, err := b.statusObject(status, text, check)
			out.Status = st
			return err
		})
	}
	if err := errors.Join(sameCause(errs)...); err != nil {
		return nil, err
	}
	return out, nil
}

// execution is one render: a clone of the template set whose include and tpl are bound to it,
// so that their recursion depth is counted per render and renders can run concurrently.
type execution struct {
	b *Blueprint
	t *template.Template
	// strict is the clone of the blueprint's strict set, bound like t; see strictPending.
	strict *template.Template
	// strictRun is set while the strict render runs.
	strictRun bool
	// placeholders is set for the structure check's renders: their output is compared, and
	// whether a template waits for a live object is A's to decide, so they make no strict render.
	placeholders bool
	data         map[string]any
	depth        int
	// peak is the deepest include call of the running include's body (see include).
	peak int
	// memo holds include outputs for the root context and small dicts (see memoKey);
	// mutations counts calls of functions that change what the root reaches, which
	// invalidate it.
	memo      map[string]memoEntry
	mutations int
	// mutatingCalls counts every call of those functions, whatever map it changes.
	mutatingCalls int
	// roots are the maps the root context reaches, for the functions that change maps.
	roots rootMaps
	// budget is what the render has spent of its Limits.
	budget budget
	// d records or replays the decisions of if and with, for the structure check.
	d boundary.Decider
	// code is the shape of each text tpl ran in the current template (see boundary.CodeShape).
	code []string
	// tplGuard, in a render with tenant values, holds the texts tpl may run code in, or
	// learns them (boundary.TplGuard).
	tplGuard *boundary.TplGuard
	// refused is set when the guard refused a tpl text in the current template: the
	// template's error says so, naming the tenant value it found in the text.
	refused *boundary.Refusal
}

// newExecution takes a bound clone of the template set from the pool (cloning the set for
// every render was a tenth of a render's time) and sets its data. Release it with done. With a
// substitution, the data has placeholders for tenant strings (the structure check's render).
func (b *Blueprint) newExecution(in *Input, sub *boundary.Substitution) (*execution, error) {
	x, _ := b.executions.Get().(*execution)
	if x == nil {
		t, err := b.root.Clone()
		if err != nil {
			return nil, fmt.Errorf("blueprint %s: %w", b.Name, err)
		}
		x = &execution{b: b, t: t}
		t.Funcs(template.FuncMap{"include": x.include, "tpl": x.tpl})
		mutating := x.mutating()
		t.Funcs(mutating)
		t.Funcs(x.d.KeyFuncs(mutating))
		bounded := x.bounded()
		t.Funcs(bounded)
		t.Funcs(x.d.Funcs())
		t.Funcs(x.d.LoopFuncs(bounded))
		t.Funcs(x.d.CallFuncs(x.include, x.tpl))
		t.Funcs(x.d.SplitFuncs(bounded))
		base := baseFuncs()
		t.Funcs(x.d.CompareFuncs(func(name string) any {
			if fn, ok := mutating[name]; ok {
				return fn
			}
			if fn, ok := bounded[name]; ok {
				return fn
			}
			return base[name]
		}))
		if b.strict != nil {
			if x.strict, err = b.strict.Clone(); err != nil {
				return nil, fmt.Errorf("blueprint %s: %w", b.Name, err)
			}
			x.strict.Funcs(template.FuncMap{"include": x.include, "tpl": x.tpl})
			x.strict.Funcs(x.mutating())
			x.strict.Funcs(x.bounded())
		}
	}
	// Templates get copies when they can change maps: set, unset and the merges must not reach
	// the caller's objects, nor another render that shares them. Templates that cannot (most:
	// text/template itself only reads) get the caller's values as they are: copying them was a
	// twentieth of a render. B always gets its copy with placeholders.
	cp := copyValue
	switch {
	case sub != nil:
		cp = sub.CopyValue
	case !b.mutates:
		cp = sameValue
	}
	x.budget.reset(in.Limits)
	resources := make(map[string]any, len(b.gateway))
	for _, c := range b.all() {
		if c != b.status {
			resources[c.key] = []any{}
		}
	}
	// Templates get copies: set and unset must not reach the caller's objects, nor another
	// render that shares them.
	for k, objs := range in.Resources {
		list := make([]any, len(objs))
		for i, o := range objs {
			list[i] = cp(o)
		}
		resources[k] = list
	}
	x.depth, x.memo, x.d = 0, nil, boundary.Decider{}
	x.d.UseCheck(sub, sub != nil)
	x.placeholders = sub != nil
	x.roots.stale = true
	x.data = map[string]any{
		"Values":    valuesCopy(in, sub, cp),
		"Gateway":   deepCopyWith(in.Gateway, cp),
		"Resources": resources,
		"Hostnames": hostnamesData(in.Hostnames, cp),
	}
	sets := make([]any, len(in.ListenerSets))
	for i, ls := range in.ListenerSets {
		sets[i] = deepCopyWith(ls, cp)
	}
	x.data["ListenerSets"] = sets
	routes := []any{}
	if in.Routes != nil {
		routes = cp(in.Routes).([]any)
	}
	x.data["Routes"] = routes
	if in.Route != nil {
		route := deepCopyWith(in.Route, cp)
		x.data["Route"], x.data[in.routeKind()] = route, route
		backends := []any{}
		if in.Backends != nil {
			backends = cp(in.Backends).([]any)
		}
		x.data["Backends"] = backends
	}
	return x, nil
}

func sameValue(v any) any { return v }

// mutatingFuncs are the functions that change a map they are given (sprig's set, unset and
// merges; see execution.mutating), and tpl, which runs template code that comes with the data
// and may call them.
var mutatingFuncs = map[string]bool{
	"set": true, "unset": true, "merge": true, "mergeOverwrite": true, "mustMerge": true,
	"mustMergeOverwrite": true, "tpl": true,
}

// mayMutate reports whether any template of the set names one of mutatingFuncs. text/template
// cannot assign into a map, and the other functions return new values, so a set that names
// none of them leaves what it reads as it was.
func mayMutate(t *template.Template) bool {
	found := false
	tmplwalk.All(t, func(n parse.Node) {
		if id, ok := n.(*parse.IdentifierNode); ok && mutatingFuncs[id.Ident] {
			found = true
		}
	})
	return found
}

// done returns an execution to the pool.
func (x *execution) done() {
	x.data = nil
	x.tplGuard = nil
	clear(x.roots.maps) // nothing of this render stays reachable from the pool
	x.b.executions.Put(x)
}

// hostnamesData is .Hostnames as templates see it; the structure check's memory keys B's
// input by the same function (writeInput in outputs.go), so that a field added here is keyed too.
func hostnamesData(h Hostnames, cp func(any) any) map[string]any {
	return map[string]any{"Union": cp(strs(h.Union)), "Intersection": cp(strs(h.Intersection)), "Attached": cp(strs(h.Attached))}
}

func strs(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// depthError is an include or tpl nested too deep. Each level passes it up as it is, so that
// the error says so once instead of once per level.
type depthError struct{ msg string }

func (e *depthError) Error() string { return e.msg }

func nestedTooDeep(err error) error {
	if d := (*depthError)(nil); errors.As(err, &d) {
		return d
	}
	return err
}

func (x *execution) include(name string, data any) (string, error) {
	// Blueprints include the same helpers (names, labels) many times per render, with the
	// root context or a small dict of names and numbers: remember those outputs, with the
	// decisions their bodies made, until a function changes what the root reaches (see
	// memoKey).
	var (
		key            string
		root, remember bool
	)
	if !memoOff {
		key, root, remember = x.memoKey(name, data)
	}
	// The depth is checked first: a remembered output must not let an include through that
	// running it would refuse.
	if x.depth >= maxIncludeDepth {
		return "", &depthError{fmt.Sprintf("include %q: nested more than %d deep (does it include itself?)", name, maxIncludeDepth)}
	}
	x.peak = max(x.peak, x.depth)
	// A remembered output is taken only where running its body would pass the depth limit
	// too, and it spends the steps the body spent: the memo changes no verdict of a budget
	// (a review's cases: a helper remembered shallow, then called 62 deep).
	if e, ok := x.memo[key]; ok && remember && x.depth+e.deeper < maxIncludeDepth && x.d.Apply(e.decided) {
		if err := x.budget.stepsBy(e.steps); err != nil {
			return "", err
		}
		memoHits.Add(1)
		return e.out, nil
	}
	steps, peak := x.budget.steps, x.peak
	x.peak = x.depth
	if x.b.unstepped[name] && !x.strictRun {
		if err := x.budget.stepped(); err != nil {
			return "", err
		}
	}
	mutations, calls, mark, code := x.mutations, x.mutatingCalls, x.d.Mark(), len(x.code)
	x.depth++
	buf := budgetWriter{budget: &x.budget}
	err := x.t.ExecuteTemplate(&buf, name, data)
	x.depth--
	deeper := x.peak - x.depth // how much deeper than this call the body's includes were
	x.peak = max(peak, x.peak)
	if err != nil {
		return "", nestedTooDeep(err)
	}
	// With the root context, a change the root does not reach made inside is the include's
	// own business; a dict argument may be the caller's, and a change to it must happen again
	// at the next call: such an include is not remembered.
	// A body that ran tpl is not remembered: the check compares the code tpl ran in A and B.
	// Nor one of a replay that has departed from A's record: its decisions no longer say
	// what the body did (a with B could not take as A did runs the other branch), and a
	// later template would take its output as A's (a review's case: a template B renders
	// only to catch up, which no comparison looks at).
	if remember && x.mutations == mutations && (root || x.mutatingCalls == calls) && len(x.code) == code && !x.d.Strayed() {
		if x.memo == nil {
			x.memo = map[string]memoEntry{}
		}
		x.memo[key] = memoEntry{out: buf.buf.String(), decided: x.d.Since(mark), steps: x.budget.steps - steps, deeper: deeper}
	}
	return buf.buf.String(), nil
}

var (
	// memoOff, set by tests, turns the include memo off: the render every memo must give.
	memoOff bool
	// memoHits counts the include outputs taken from the memo, for tests.
	memoHits atomic.Int64
)

// memoEntry is a remembered include output, with what its body decided (boundary.Decider's
// Since): a render that uses it takes those decisions as if it ran the body (Apply).
type memoEntry struct {
	out     string
	decided []int64
	// steps are the budget's steps the body took; deeper is how much deeper than the call
	// its includes went (see include).
	steps, deeper int
}

// maxMemoKey bounds the key of a remembered include with a dict argument.
const maxMemoKey = 1024

// memoKey is what include remembers an output by: the template's name for the root context;
// the name and the value for a scalar; for a dict of scalars and maps the root reaches, the
// name and the dict's entries, each scalar with its type (63, "63" and 63.0 print differently) and each map by identity (the
// memo is forgotten when what the root reaches changes). Other arguments are not remembered.
//
// The structure check's render B replays A's decisions in A's order, and B sees stand-ins
// for the tenant's values: whether a key is found depends on them however it is made (a dict
// entry equal, in A, to a platform constant, or the root chosen by a tenant false where B's
// stand-in is true). So a remembered output is kept with the decisions its body made, and a
// render that takes it takes those decisions again (boundary.Decider.Apply): A records them,
// B takes the output only where A's record holds exactly those decisions. Without that, B's
// decisions fell out of step, and the check passed a tenant string that adds a field
// (TestMemoDoesNotHideAnInjection and the next two) or refused a template that only branches
// on a tenant value (TestMemoOfATenantValueEqualToAPlatformOne); TestIncludeMemoChangesNothing
// holds every verdict to the one without the memo.
func (x *execution) memoKey(name string, data any) (key string, root, ok bool) {
	// The name ends at the key's first NUL: a name holding one (a template may be named
	// so) would run into the scalar or dict part of another's key (a review's case), and
	// such an include is not remembered.
	if strings.IndexByte(name, 0) >= 0 {
		return "", false, false
	}
	if isRoot(data, x.data) {
		return name, true, true
	}
	var b strings.Builder
	b.WriteString(name)
	m, isMap := data.(map[string]any)
	if !isMap {
		// A scalar (`include "name" .name`): the body reaches nothing else, not even the
		// root ($ is the scalar there), so the scalar is all the output depends on.
		b.WriteString("\x00scalar\x00")
		if !writeScalar(&b, data) || b.Len() > maxMemoKey {
			return "", false, false
		}
		return b.String(), false, true
	}
	if m == nil || len(m) > 8 {
		return "", false, false
	}
	b.WriteString("\x00dict") // never the root's key, even for an empty dict
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b.WriteByte(0)
		b.WriteString(strconv.Quote(k))
		b.WriteByte('=')
		switch v := m[k].(type) {
		case map[string]any:
			if v == nil || !isRoot(v, x.data) && !x.isRootMap(v) {
				return "", false, false
			}
			fmt.Fprintf(&b, "p%p", v)
		default:
			if !writeScalar(&b, v) {
				return "", false, false
			}
		}
		if b.Len() > maxMemoKey {
			return "", false, false
		}
	}
	return b.String(), false, true
}

// writeScalar writes v with its type, for memoKey: 63, "63" and 63.0 print differently.
func writeScalar(b *strings.Builder, v any) bool {
	switch v := v.(type) {
	case string:
		b.WriteByte('s')
		b.WriteString(strconv.Quote(v))
	case int:
		b.WriteByte('i')
		b.WriteString(strconv.Itoa(v))
	case int64:
		b.WriteByte('I')
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		b.WriteByte('f')
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case bool:
		b.WriteByte('b')
		b.WriteString(strconv.FormatBool(v))
	case nil:
		b.WriteString("n")
	default:
		return false
	}
	return true
}

// isRoot reports whether data is the render's root context (the same map, not a copy).
func isRoot(data any, root map[string]any) bool {
	m, ok := data.(map[string]any)
	return ok && m != nil && reflect.ValueOf(m).UnsafePointer() == reflect.ValueOf(root).UnsafePointer()
}

// mutating wraps sprig's functions that change a map in place, so that a call that may change
// what the root context reaches forgets the remembered include outputs, which may depend on it.
// A call that changes only maps the template built itself and that the root context does not
// reach (`merge (dict ...) .Values.tags`, as helpers that build labels or tags do) keeps them:
// forgetting on every call made such helpers render afresh at every include.
func (x *execution) mutating() template.FuncMap {
	f := sprig.HermeticTxtFuncMap()
	set := f["set"].(func(map[string]any, string, any) map[string]any)
	unset := f["unset"].(func(map[string]any, string) map[string]any)
	merge := f["merge"].(func(map[string]any, ...map[string]any) any)
	mergeOverwrite := f["mergeOverwrite"].(func(map[string]any, ...map[string]any) any)
	mustMerge := f["mustMerge"].(func(map[string]any, ...map[string]any) (any, error))
	mustMergeOverwrite := f["mustMergeOverwrite"].(func(map[string]any, ...map[string]any) (any, error))
	// forget is called before the change: set and unset write d only; a merge writes d and,
	// deeply, the maps d holds, and with more than one source, the maps an earlier source put
	// into d (merged by reference), so the maps every source but the last reaches.
	// forgetIfRoot reports whether the change may be made: the strict render (see
	// strictPending) skips a change of what the root reaches, which the render that counts made.
	forgetIfRoot := func(d map[string]any) bool {
		x.mutatingCalls++
		if x.isRootMap(d) {
			if x.strictRun {
				return false
			}
			x.changedRoot()
		}
		return true
	}
	// mergo recurses without bound into a source map that holds itself (set can make one, and
	// merge through maps two values share): a stack overflow is fatal, not a panic to recover.
	// Its recursion follows the sources, so merges take only sources the output budget could
	// walk; the destination may be as large as it likes.
	forget := func(fn string, d map[string]any, s []map[string]any) (bool, error) {
		for _, m := range s {
			if err := x.budget.walkable(fn, m); err != nil {
				return false, err
			}
		}
		x.mutatingCalls++
		if x.reachedFromRoot(d, s[:max(len(s)-1, 0)]...) {
			if x.strictRun {
				return false, nil
			}
			x.changedRoot()
		}
		return true, nil
	}
	return template.FuncMap{
		"set": func(d map[string]any, k string, v any) map[string]any {
			if !forgetIfRoot(d) {
				return d
			}
			return set(d, k, v)
		},
		"unset": func(d map[string]any, k string) map[string]any {
			if !forgetIfRoot(d) {
				return d
			}
			return unset(d, k)
		},
		"merge": func(d map[string]any, s ...map[string]any) (any, error) {
			if ok, err := forget("merge", d, s); !ok {
				return d, err
			}
			return merge(d, s...), nil
		},
		"mergeOverwrite": func(d map[string]any, s ...map[string]any) (any, error) {
			if ok, err := forget("mergeOverwrite", d, s); !ok {
				return d, err
			}
			return mergeOverwrite(d, s...), nil
		},
		"mustMerge": func(d map[string]any, s ...map[string]any) (any, error) {
			if ok, err := forget("mustMerge", d, s); !ok {
				return d, err
			}
			return mustMerge(d, s...)
		},
		"mustMergeOverwrite": func(d map[string]any, s ...map[string]any) (any, error) {
			if ok, err := forget("mustMergeOverwrite", d, s); !ok {
				return d, err
			}
			return mustMergeOverwrite(d, s...)
		},
	}
}

// changedRoot notes a change of what the root context reaches: remembered include outputs and
// the set of maps the root reaches are out of date.
func (x *execution) changedRoot() {
	x.memo, x.mutations = nil, x.mutations+1
	x.roots.stale = true
}

// rootMaps is the set of maps the root context reaches, kept from one call of a function that
// changes maps in place to the next until one of them changes what the root reaches.
type rootMaps struct {
	maps  map[unsafe.Pointer]bool
	stale bool
	// unsure is set when the root holds a container other than JSON's maps and lists, whose
	// contents the walk does not follow, or is too large to walk: every map counts as reached.
	unsure bool
}

// maxRootSteps bounds the walk that finds the maps the root reaches; past it, every map counts
// as reached. A render's root holds a few thousand values; a template can make lists share
// (set .Values "a" .Values.list), which the walk visits again.
const maxRootSteps = 1 << 20

// isRootMap reports whether the root context reaches map m, or cannot tell.
func (x *execution) isRootMap(m map[string]any) bool {
	return x.isRootMapPointer(reflect.ValueOf(m).UnsafePointer())
}

func (x *execution) findRootMaps() {
	if x.roots.maps == nil {
		x.roots.maps = map[unsafe.Pointer]bool{}
	}
	clear(x.roots.maps)
	x.roots.stale, x.roots.unsure = false, false
	steps := 0
	var walk func(v any)
	walk = func(v any) {
		if x.roots.unsure {
			return
		}
		if steps++; steps > maxRootSteps {
			x.roots.unsure = true
			return
		}
		switch v := v.(type) {
		case map[string]any:
			p := reflect.ValueOf(v).UnsafePointer()
			if x.roots.maps[p] {
				return // seen: shared, or a map that holds itself
			}
			x.roots.maps[p] = true
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		default:
			x.roots.unsure = isContainer(v)
		}
	}
	walk(x.data)
}

// reachedFromRoot reports whether the root context reaches a map that d or one of more reaches
// (d and more included), as they are at the time of the call: a change written there may
// change an include's output. It answers true when unsure: a value of a container type other
// than JSON's maps and lists (whose contents it does not follow), or a root too large to walk.
// Written by hand: what matters is the identity of maps (which one a call writes into), which no
// deep-equality or copy library exposes.
func (x *execution) reachedFromRoot(d map[string]any, more ...map[string]any) bool {
	targets := map[unsafe.Pointer]bool{}
	steps := 0
	if !mapsReached(d, targets, &steps) {
		return true
	}
	for _, m := range more {
		if !mapsReached(m, targets, &steps) {
			return true
		}
	}
	for p := range targets {
		if x.isRootMapPointer(p) {
			return true
		}
	}
	return false
}

func (x *execution) isRootMapPointer(p unsafe.Pointer) bool {
	if x.roots.stale || x.roots.maps == nil {
		x.findRootMaps()
	}
	return x.roots.unsure || x.roots.maps[p]
}

// mapsReached adds to seen every map v reaches, v included; it returns false when v holds a
// container other than JSON's maps and lists, whose contents it does not follow, or when the
// walk takes more than maxRootSteps steps (lists that share lists, nested: `list $l $l`).
func mapsReached(v any, seen map[unsafe.Pointer]bool, steps *int) bool {
	if *steps++; *steps > maxRootSteps {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		p := reflect.ValueOf(v).UnsafePointer()
		if seen[p] {
			return true
		}
		seen[p] = true
		for _, e := range v {
			if !mapsReached(e, seen, steps) {
				return false
			}
		}
	case []any:
		for _, e := range v {
			if !mapsReached(e, seen, steps) {
				return false
			}
		}
	default:
		return !isContainer(v)
	}
	return true
}

// isContainer reports whether v may hold other values: anything but a scalar or nil.
func isContainer(v any) bool {
	if v == nil {
		return false
	}
	switch reflect.TypeOf(v).Kind() {
	case reflect.Map, reflect.Slice, reflect.Array, reflect.Pointer, reflect.Struct, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	}
	return false
}

func (x *execution) tpl(text string, data any) (string, error) {
	if x.depth >= maxIncludeDepth {
		return "", &depthError{fmt.Sprintf("tpl: nested more than %d deep", maxIncludeDepth)}
	}
	x.depth++
	defer func() { x.depth-- }()
	t, err := x.t.Clone()
	if err != nil {
		return "", err
	}
	t, err = t.New("tpl").Parse(text)
	if err != nil {
		return "", fmt.Errorf("tpl: %w", err)
	}
	plain := boundary.PlainText(t, x.t)
	// The text and the templates it defines are new trees: count their loops too.
	for _, tree := range x.newTrees(t) {
		instrument(tree)
	}
	shape := boundary.CodeShape(t, x.t)
	if r := x.tplGuard.Admit(text, shape, plain); r != nil {
		x.refused = r
		return "", boundary.ErrTenantCode
	}
	x.code = append(x.code, shape)
	if !plain {
		// The text's code decides as the blueprint's does: B takes A's decisions at its
		// conditionals and include calls.
		boundary.RewriteTplDecisions(x.newTrees(t), shape)
	}
	buf := budgetWriter{budget: &x.budget}
	if err := t.Execute(&buf, data); err != nil {
		if d := nestedTooDeep(err); d != err {
			return "", d
		}
		return "", fmt.Errorf("tpl: %w", err)
	}
	return buf.buf.String(), nil
}

// newTrees are the trees of t, a clone of the execution's set that a tpl text was parsed
// into, that are not the set's own: the text's, and those of the templates it defines.
func (x *execution) newTrees(t *template.Template) []*parse.Tree {
	var out []*parse.Tree
	for _, n := range t.Templates() {
		if old := x.t.Lookup(n.Name()); old == nil || old.Tree != n.Tree {
			out = append(out, n.Tree)
		}
	}
	// In the order of their names, not the set's map order: the decisions of a tpl text's
	// trees are numbered in this order, the same in every render of the text (a text that
	// defines a template was numbered one way in A and another in B, and refused at random).
	slices.SortFunc(out, func(a, b *parse.Tree) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// run executes one template, turning a panic into an error and a read of a .Resources entry
// that is not there yet into a Pending.
func (x *execution) run(c *compiled) (text string, pending *Pending, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Blueprint: x.b.Name, Template: c.field, Msg: fmt.Sprintf("template panicked: %v", r)}
		}
	}()
	if spent := x.budget.err; spent != nil {
		// An earlier template exceeded the budget (and says so); this one did not run.
		return "", nil, &Error{Blueprint: x.b.Name, Template: c.field, Msg: "not rendered: an earlier template exceeded the render's budget"}
	}
	buf := budgetWriter{budget: &x.budget}
	buf.buf.Grow(int(min(c.size.Load(), maxSizeHint)))
	x.depth, x.peak, x.code, x.refused = 0, 0, x.code[:0], nil
	if x.b.unstepped[c.field] {
		if err := x.budget.stepped(); err != nil {
			return "", nil, &Error{Blueprint: x.b.Name, Template: c.field, Msg: x.budget.err.msg}
		}
	}
	if execErr := x.t.ExecuteTemplate(&buf, c.field, x.data); execErr != nil {
		e, ctx := templateError(x.b.Name, c.field, execErr)
		if x.refused != nil {
			e.Origin, e.Holders, e.Msg = x.refused.Origin, x.refused.Holders, x.refused.Msg
			return "", nil, e
		}
		// A budget exceeded anywhere in the render (an include, a function, the writer) is
		// this template's failure, said once, whatever text/template wrapped around it.
		if x.budget.err != nil {
			e.Msg = x.budget.err.msg
			return "", nil, e
		}
		// The strict render says best what is missing; a list too short says it itself.
		if p := x.strictPending(c); p != nil {
			return "", p, nil
		}
		if p := x.pending(c, ctx, e); p != nil {
			return "", p, nil
		}
		if x.budget.err != nil {
			e.Msg = x.budget.err.msg
		}
		return "", nil, e
	}
	if p := x.strictPending(c); p != nil {
		return "", p, nil
	}
	if x.budget.err != nil {
		return "", nil, &Error{Blueprint: x.b.Name, Template: c.field, Msg: x.budget.err.msg}
	}
	text = buf.buf.String()
	c.size.Store(int64(len(text)))
	if err := x.budget.addObjects(yamltext.CountDocuments(text)); err != nil {
		return "", nil, &Error{Blueprint: x.b.Name, Template: c.field, Msg: err.Error()}
	}
	return text, nil, nil
}

// pending decides whether a failed template is waiting for a resource rather than broken: it
// reads .Resources, and failed looking up something missing — not in .Values, .Gateway,
// .Route (and the route by its kind), .Backends or .Hostnames, whose gaps are real errors.
func (x *execution) pending(c *compiled, ctx string, e *Error) *Pending {
	if len(c.reads) == 0 {
		return nil
	}
	// The innermost context is what failed, inside an include too.
	if all := contexts.FindAllStringSubmatch(e.Msg, -1); len(all) > 0 {
		ctx = all[len(all)-1][1]
	}
	if !strings.Contains(ctx, ".Resources") && otherRoots.MatchString(ctx) {
		return nil
	}
	missing := false
	for _, m := range []string{"no entry for key", "index out of range", "nil pointer evaluating", "error calling index"} {
		missing = missing || strings.Contains(e.Msg, m)
	}
	if !missing {
		return nil
	}
	resources := x.data["Resources"].(map[string]any)
	var waiting []string
	for _, r := range c.reads {
		if list, _ := resources[r].([]any); !hasStatus(list) {
			waiting = append(waiting, r)
		}
	}
	if len(waiting) == 0 {
		waiting = c.reads
	}
	return &Pending{Template: c.field, Waiting: waiting, Reason: e.Msg}
}

var (
	contexts   = regexp.MustCompile(`at <(.*?)>: `)
	otherRoots = regexp.MustCompile(`(?:^|[\s($])\.(?:Values|Gateway|Route|HTTPRoute|GRPCRoute|TLSRoute|TCPRoute|UDPRoute|Backends|Hostnames|Routes)\b`)
)

// hasStatus reports whether every object in a .Resources entry exists and has a status.
func hasStatus(list []any) bool {
	if len(list) == 0 {
		return false
	}
	for _, o := range list {
		m, _ := o.(map[string]any)
		if _, ok := m["status"]; !ok {
			return false
		}
	}
	return true
}

// valuesCopy is .Values as an execution sees it: with sub and in.TenantKeys, tenant keys are
// replaced only where the tenant wrote them.
func valuesCopy(in *Input, sub *boundary.Substitution, cp func(any) any) map[string]any {
	if sub == nil || in.TenantKeys == nil || in.Values == nil {
		return deepCopyWith(in.Values, cp)
	}
	return sub.CopyAt(in.Values, in.TenantKeys).(map[string]any)
}

// spells reports whether any template of t names word as a field (`.Routes`, `$.Routes`,
// `$x.Routes`) or a string constant (`index $ "Routes"`).
func spells(t *template.Template, word string) bool {
	found := false
	tmplwalk.All(t, func(n parse.Node) {
		switch n := n.(type) {
		case *parse.FieldNode:
			found = found || slices.Contains(n.Ident, word)
		case *parse.VariableNode:
			found = found || slices.Contains(n.Ident, word)
		case *parse.ChainNode:
			found = found || slices.Contains(n.Field, word)
		case *parse.StringNode:
			found = found || n.Text == word
		}
	})
	return found
}

// names reports whether any template of t names the function fn.
func names(t *template.Template, fn string) bool {
	found := false
	tmplwalk.All(t, func(n parse.Node) {
		if id, ok := n.(*parse.IdentifierNode); ok && id.Ident == fn {
			found = true
		}
	})
	return found
}
