package desired

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/precedence"
	"gantry.dev/gantry/render"
)

// gatewayTemplatePrefix is the field path of the Gateway's templates, as render.Error names
// them (render.RoutePrefix names a route kind's).
const gatewayTemplatePrefix = "gatewayTemplate.resourceTemplates."

// Reasons say, for a status condition, why the desired state could not be computed.
const (
	// ReasonInvalidParameters: the class's blueprint is missing or does not compile.
	ReasonInvalidParameters = "InvalidParameters"
	// ReasonInvalidValues: a policy's values are malformed or break the values schema.
	ReasonInvalidValues = "InvalidValues"
	// ReasonRenderFailed: a template failed or its output is not acceptable.
	ReasonRenderFailed = "RenderFailed"
)

// Error is a failure to compute the desired state, with the reason a condition reports.
type Error struct {
	Reason string
	Err    error
	// Broken lists, for InvalidValues, the policies whose values break the blueprint's values
	// schema, each with what it broke: their own status says so for this Gateway.
	Broken map[precedence.Ref]string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func fail(reason string, err error) *Error { return &Error{Reason: reason, Err: err} }

// Gateway computes the desired state of in.Gateway. On error nothing of the result is to be
// applied: a Gateway is rendered whole or not at all. When the values could be merged, the
// error comes with a Result holding only them, so that a user can see where a bad value came
// from (`gantry render --explain`).
func Gateway(in *Input) (*Result, error) {
	gw := in.Gateway
	bp, pin, err := valuesInput(in)
	if err != nil {
		return nil, err
	}
	values := precedence.Resolve(pin)
	if err := checkSchema(bp, values); err != nil {
		return &Result{Values: values}, err
	}

	// The render is the Gateway owner's, but others contribute to it: ListenerSets, and the
	// hostnames of routes attached to it. A contribution that fails the render is quarantined
	// (quarantine.go): the render goes on without it, and it is marked failed on its own
	// status, so that no tenant can stop a Gateway it does not own.
	q := newQuarantine(gw, in.SetApart)
	q.routesRead = bp.ReadsRoutes()
	var (
		sets     []ListenerSet
		att      attachment
		gwMap    map[string]any
		setMaps  []map[string]any
		out      *render.Output
		tainted  []boundary.Tainted
		hostSets render.Hostnames
	)
	resources := bp.ReadableResources(byTemplateKey(in.Live, bp.GatewayTemplates()))
	// try renders the Gateway with what q sets apart left out. fatal is an error that is no
	// render's (the Gateway cannot be read as a map).
	var fatal error
	var rendered claims
	try := func() error {
		sets = listenerSets(in, func(n types.NamespacedName) bool { return q.of("ListenerSet", n) != nil })
		q.mark(sets)
		att = attach(gw, in.Blueprint, routesOf(in), in.NamespaceLabels, in.ListenerSets, sets)
		acceptProtocols(gw, in.Blueprint, att.listeners)
		resolveListenerRefs(gw, in.Secrets, in.ReferenceGrants, att.listeners)
		var err error
		if gwMap, err = objectMap(gw); err != nil {
			fatal = err
			return err
		}
		gwOrigin := fmt.Sprintf("Gateway %s/%s field", gw.Namespace, gw.Name)
		tainted = boundary.TaintedStrings(gwMap, func(p string) string { return gwOrigin + " " + p })
		var setTainted []boundary.Tainted
		if setMaps, setTainted, err = listenerSetMaps(in, sets); err != nil {
			fatal = err
			return err
		}
		tainted = append(tainted, setTainted...)
		tainted = append(tainted, routeHostnamesTainted(att.accepted, q)...)
		// Gantry's verdicts on the certificateRefs, added after the tenant's strings are taken.
		flagCertificateRefs(gwMap, gw.Spec.Listeners, "Gateway", gw.Namespace, in.Secrets, in.ReferenceGrants)
		hostSets = att.hostnamesWithout(q.routeSet(att.accepted))
		var routes []any
		if bp.ReadsRoutes() {
			var routeTainted []boundary.Tainted
			if routes, routeTainted, err = routesData(att, q, in); err != nil {
				fatal = err
				return err
			}
			tainted = append(tainted, routeTainted...)
		}
		out, err = in.Outputs.RenderGateway(bp, &render.Input{
			Values:       values.Values,
			TenantKeys:   tenantKeys(values),
			Gateway:      gwMap,
			ListenerSets: setMaps,
			Resources:    resources,
			Hostnames:    hostSets,
			Routes:       routes,
			Namespace:    gw.Namespace,
			Tainted:      append(append(tenantValues(values), tainted...), liveTainted(resources)...),
			IsNamespaced: in.IsNamespaced,
			Limits:       in.Limits,
			CustomKinds:  in.CustomKinds,
			KeepText:     in.KeepText,
		})
		if err != nil {
			return err
		}
		// Two of the Gateway's objects with one name (a template naming an object after each
		// hostname, and a tenant's hostname that makes another's name) fail the render too.
		rendered = claims{}
		return rendered.claim(bp.Name, gatewayTemplatePrefix, "", out.Objects)
	}
	for {
		err := try()
		if err == nil {
			break
		}
		if fatal != nil {
			return nil, fatal
		}
		if !q.isolate(err, try, q.candidates(in, sets, att.accepted, tainted)) {
			return &Result{Values: values}, fail(ReasonRenderFailed, err)
		}
	}
	// What was set apart on the way may not all have been needed (a bystander holding the same
	// string as the culprit): each is tried back in, and stays in when the render passes.
	if q.minimize(try) != nil {
		return &Result{Values: values}, fail(ReasonRenderFailed, fmt.Errorf("Gateway %s/%s: a render that passed failed when made again", gw.Namespace, gw.Name))
	}
	gwTainted := tainted
	res := &Result{Values: values, Hostnames: hostSets, Listeners: att.listeners, Routes: att.routes, ListenerSets: sets, routesRead: bp.ReadsRoutes()}
	q.report(res, att.accepted)
	owner := Owner{Kind: "Gateway", NamespacedName: types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}}
	infra := newMetadataPolicy(gw, in.Blueprint)
	res.Objects = appendObjects(res.Objects, gw, infra, owner, out.Objects)
	res.Pending = out.Pending
	if res.Addresses, err = addresses(bp.Name, out.Status); err != nil {
		return &Result{Values: values}, fail(ReasonRenderFailed, err)
	}

	if !bp.HasRouteTemplates() {
		return res, nil
	}
	for _, r := range att.accepted {
		if !bp.HasRouteTemplatesFor(r.kind) || q.routeErr(r) != nil {
			continue // no template renders for it, or set apart: its status says why (report)
		}
		route := res.route(r.routeID)
		values, objs, pending, err := renderRoute(bp, pin, in, r, gwMap, setMaps, gwTainted, hostSets)
		route.Values, route.Pending = values, pending
		if err == nil {
			// An object of the Gateway's or of another route's is not this route's to render.
			err = rendered.claim(bp.Name, render.RoutePrefix(r.kind), r.routeID.String(), objs)
		}
		if err != nil {
			// One route's failure is that route's: the Gateway and its other routes go on, and
			// this route's earlier objects stay until it renders again. Its status is the
			// route's tenant's to read: it names no value of another namespace's.
			route.Err = fail(ReasonRenderFailed, fmt.Errorf("%s: %w", r.routeID, confineHolders(err, r.Namespace)))
			continue
		}
		res.Objects = appendObjects(res.Objects, gw, infra, Owner{Kind: r.kind, NamespacedName: r.NamespacedName}, objs)
	}
	return res, nil
}

// valuesInput compiles in's blueprint and gathers what the precedence resolves the Gateway's
// values from.
func valuesInput(in *Input) (*render.Blueprint, precedence.Input, error) {
	gw := in.Gateway
	bp, err := Compile(in)
	if err != nil {
		return nil, precedence.Input{}, err
	}
	if err := classServesNamespace(in); err != nil {
		return nil, precedence.Input{}, err
	}
	gcs, err := withParameters(gw, in.Parameters, in.GatewayConfigs)
	if err != nil {
		return nil, precedence.Input{}, err
	}
	policies, err := Policies(in.GatewayClassConfigs, gcs)
	if err != nil {
		return nil, precedence.Input{}, fail(ReasonInvalidValues, err)
	}
	bpValues, err := BlueprintValues(in.Blueprint)
	if err != nil {
		return nil, precedence.Input{}, fail(ReasonInvalidParameters, err)
	}
	return bp, precedence.Input{
		ControllerNamespace: cmp.Or(in.ControllerNamespace, DefaultControllerNamespace),
		ClassName:           string(gw.Spec.GatewayClassName),
		Gateway:             precedence.ObjectKey{Namespace: gw.Namespace, Name: gw.Name},
		Blueprint:           bpValues,
		Policies:            policies,
		CommandLine:         in.CommandLine,
	}, nil
}

// Values resolves the effective values of in's Gateway, or of one of its routes (route nil:
// the Gateway's), and checks them against the blueprint's values schema, without rendering:
// what admission asks of a policy before it is stored. The error is an *Error (InvalidValues
// with Broken naming the policies at fault, or why the values cannot be computed).
func Values(in *Input, route *RouteKey) (*precedence.Result, error) {
	bp, pin, err := valuesInput(in)
	if err != nil {
		return nil, err
	}
	if route != nil {
		pin.Route, pin.RouteKind = &precedence.ObjectKey{Namespace: route.Namespace, Name: route.Name}, route.Kind
	}
	values := precedence.Resolve(pin)
	return values, checkSchema(bp, values)
}

// renderRoute resolves a route's values (the Gateway's chain continued by the route's) and
// renders the templates of the route's kind for it.
func renderRoute(bp *render.Blueprint, pin precedence.Input, in *Input, r routeObj, gwMap map[string]any, setMaps []map[string]any, gwTainted []boundary.Tainted, hostnames render.Hostnames) (*precedence.Result, []render.Object, []render.Pending, error) {
	pin.Route, pin.RouteKind = &precedence.ObjectKey{Namespace: r.Namespace, Name: r.Name}, r.kind
	values := precedence.Resolve(pin)
	if err := checkSchema(bp, values); err != nil {
		return values, nil, nil, err
	}
	rMap, err := objectMap(r.obj)
	if err != nil {
		return values, nil, nil, err
	}
	origin := fmt.Sprintf("%s field", r.routeID)
	tainted := append(tenantValues(values), gwTainted...)
	tainted = append(tainted, boundary.TaintedStrings(rMap, func(p string) string { return origin + " " + p })...)
	live := in.LiveRoutes[RouteKey{Kind: r.kind, NamespacedName: types.NamespacedName{Namespace: r.Namespace, Name: LabelValue(r.Name)}}]
	resources := bp.ReadableResources(byTemplateKey(live, bp.RouteTemplates(r.kind)))
	tainted = append(tainted, liveTainted(resources)...)
	backends := backendsData(backendsOf(r, func(k types.NamespacedName) bool { return in.BackendServices[k] }, in.ReferenceGrants))
	// Names, namespaces and kinds are the route's strings, and the messages are made around
	// them: all of it is the tenant's.
	backendOrigin := fmt.Sprintf("%s .Backends", r.routeID)
	tainted = append(tainted, boundary.TaintedStrings(backends, func(p string) string { return backendOrigin + p })...)
	out, err := in.Outputs.RenderRoute(bp, &render.Input{
		Values:       values.Values,
		TenantKeys:   tenantKeys(values),
		Gateway:      gwMap,
		ListenerSets: setMaps,
		Route:        rMap,
		RouteKind:    r.kind,
		Backends:     backends,
		Resources:    resources,
		Hostnames:    hostnames,
		Namespace:    r.Namespace,
		Tainted:      tainted,
		IsNamespaced: in.IsNamespaced,
		Limits:       in.Limits,
		CustomKinds:  in.CustomKinds,
		KeepText:     in.KeepText,
	})
	if err != nil {
		return values, nil, nil, err
	}
	return values, out.Objects, out.Pending, nil
}

// route returns the result entry of an attached route.
func (res *Result) route(id routeID) *Route {
	for i := range res.Routes {
		if res.Routes[i].Kind == id.kind && res.Routes[i].NamespacedName == id.NamespacedName {
			return &res.Routes[i]
		}
	}
	panic("desired: an accepted route without a result entry") // attach records every route it accepts
}

// Compile returns the compiled blueprint of in, or an InvalidParameters error that says what
// is missing or which template does not parse.
func Compile(in *Input) (*render.Blueprint, error) {
	if in.Blueprint == nil {
		if in.Class != nil && in.Class.Spec.ParametersRef != nil {
			// A parametersRef of another group or kind names nothing Gantry reads; say so
			// rather than that the blueprint is missing.
			if _, err := BlueprintName(in.Class); err != nil {
				return nil, fail(ReasonInvalidParameters, err)
			}
		}
		if in.Class == nil {
			return nil, fail(ReasonInvalidParameters, fmt.Errorf("GatewayClass %s, which the Gateway names, does not exist", in.Gateway.Spec.GatewayClassName))
		}
		ref := "no parametersRef"
		if in.Class != nil && in.Class.Spec.ParametersRef != nil {
			ref = fmt.Sprintf("parametersRef %s %s, which does not exist", in.Class.Spec.ParametersRef.Kind, in.Class.Spec.ParametersRef.Name)
		}
		class := string(in.Gateway.Spec.GatewayClassName)
		return nil, fail(ReasonInvalidParameters, fmt.Errorf("GatewayClass %s has %s", class, ref))
	}
	if in.Compiled != nil {
		return in.Compiled, nil
	}
	bp, err := render.Compile(in.Blueprint.Name, &in.Blueprint.Spec)
	if err != nil {
		return nil, fail(ReasonInvalidParameters, err)
	}
	return bp, nil
}

// checkSchema validates merged values and names, for each violation, the object that supplied
// the offending value.
func checkSchema(bp *render.Blueprint, values *precedence.Result) error {
	violations := bp.ValidateValues(values.Values)
	if len(violations) == 0 {
		return nil
	}
	var errs []error
	broken := map[precedence.Ref]string{}
	blame := func(ref precedence.Ref, msg string) {
		switch prev := broken[ref]; {
		case ref.Kind != "GatewayClassConfig" && ref.Kind != "GatewayConfig", strings.Contains(prev, msg):
		case prev == "":
			broken[ref] = msg
		default:
			broken[ref] = prev + "; " + msg
		}
	}
	for _, v := range violations {
		path := precedence.Path(v.Path)
		where := "values"
		if len(path) > 0 {
			where = "values." + path.String()
		}
		what := fmt.Sprintf("%s: %s", where, v.Msg)
		by := "set by no object (the value is missing)"
		if leaf, ok := values.SourceOf(path); ok {
			by = "set by " + leaf.Source.String()
			blame(leaf.Source.Ref, what)
		} else if leaf, ok := removedBy(values, path, v.Missing); ok {
			by = "removed by " + leaf.Source.String()
			blame(leaf.Source.Ref, what)
		} else if srcs := setUnder(values, path); len(srcs) > 0 && len(v.Missing) == 0 {
			// A map or list too large is made of the keys or items each object set.
			by = "its entries set by " + strings.Join(srcs, ", ")
			for _, l := range values.Leaves {
				if !l.Removed && len(l.Path) > len(path) && slices.Equal(l.Path[:len(path)], path) {
					blame(l.Source.Ref, what)
				}
			}
		}
		errs = append(errs, fmt.Errorf("%s (%s)", what, by))
	}
	for ref, msg := range broken {
		broken[ref] = fmt.Sprintf("its values break blueprint %s's valuesSchema: %s", bp.Name, msg)
	}
	e := fail(ReasonInvalidValues, fmt.Errorf("blueprint %s valuesSchema: %w", bp.Name, errors.Join(errs...)))
	e.Broken = broken
	return e
}

// removedBy finds the explicit null that removed one of the missing properties of the object at
// path: a required value is missing because of whoever removed it.
func removedBy(values *precedence.Result, path precedence.Path, missing []string) (precedence.Leaf, bool) {
	for _, l := range values.Leaves {
		if l.Removed && len(l.Path) == len(path)+1 && slices.Equal(l.Path[:len(path)], path) && slices.Contains(missing, l.Path[len(path)]) {
			return l, true
		}
	}
	return precedence.Leaf{}, false
}

// setUnder lists, once each and in order, the objects that set a value under path.
func setUnder(values *precedence.Result, path precedence.Path) []string {
	var out []string
	for _, l := range values.Leaves {
		if !l.Removed && len(l.Path) > len(path) && slices.Equal(l.Path[:len(path)], path) {
			if s := l.Source.String(); !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// tenantKeys marks where in the effective values a tenant's keys are: the paths of the leaves
// a tenant's policy set, whole below each leaf. The structure check replaces keys by stand-ins
// there only, so that a platform map's key equal to a tenant string is not replaced with it.
func tenantKeys(values *precedence.Result) *boundary.KeyTree {
	t := &boundary.KeyTree{}
	for _, leaf := range values.Leaves {
		if !leaf.Removed && leaf.Source.Tenant() {
			t.Add(leaf.Path)
		}
	}
	return t
}

// tenantValues lists the tenant strings among the effective values, named by policy and path.
func tenantValues(values *precedence.Result) []boundary.Tainted {
	var out []boundary.Tainted
	for _, leaf := range values.Leaves {
		if leaf.Removed || !leaf.Source.Tenant() {
			continue
		}
		origin := leaf.Source.Ref.String() + " value "
		base := leaf.Path.String()
		// Every key on the path is a tenant string, named by the whole path (what
		// TaintedStrings says of a one-key map, without building one per key).
		keyOrigin := origin + base + " (a key)"
		for _, k := range leaf.Path {
			if k != "" {
				out = append(out, boundary.Tainted{Value: k, Origin: keyOrigin})
			}
		}
		out = append(out, boundary.TaintedStrings(leaf.Value, func(p string) string {
			if p == "" {
				return origin + base
			}
			if strings.HasPrefix(p, "[") {
				return origin + base + p
			}
			return origin + base + "." + p
		})...)
	}
	return out
}

// objectMap turns a typed object into the map templates see, without managedFields, status and
// resourceVersion: templates describe what the Gateway asks for, and reading its status or
// version would feed our own writes back into the render (a status write changes the
// version) and make every reconcile a render whose input changed.
func objectMap(obj runtime.Object) (map[string]any, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	delete(m, "status")
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "managedFields")
		delete(meta, "resourceVersion")
	}
	// Typed objects from a client often come without apiVersion and kind; templates (owner
	// references, say) read them, offline and in the cluster alike.
	if v, _ := m["apiVersion"].(string); v == "" {
		switch obj.(type) {
		case *gwv1.Gateway:
			m["apiVersion"], m["kind"] = gwv1.GroupVersion.String(), "Gateway"
		case *gwv1.HTTPRoute, *gwv1.GRPCRoute, *gwv1.TLSRoute, *gwv1.TCPRoute, *gwv1.UDPRoute:
			r, _ := wrapRoute(obj.(client.Object))
			m["apiVersion"], m["kind"] = gwv1.GroupVersion.String(), r.kind
		case *gwv1.ListenerSet:
			m["apiVersion"], m["kind"] = gwv1.GroupVersion.String(), "ListenerSet"
		}
	}
	return m, nil
}

// byTemplateKey re-keys live objects, gathered by their template label (a key shortened to fit a
// label value), by the template keys themselves, as .Resources knows them.
func byTemplateKey(live map[string][]map[string]any, keys []string) map[string][]map[string]any {
	if len(live) == 0 {
		return live
	}
	out := make(map[string][]map[string]any, len(live))
	for _, k := range keys {
		if objs, ok := live[LabelValue(k)]; ok {
			out[k] = make([]map[string]any, len(objs))
			for i, o := range objs {
				out[k][i] = withoutVersion(o)
			}
		}
	}
	return out
}

// withoutVersion is a live object as .Resources shows it: without resourceVersion and
// managedFields, which change with every write of anyone's (status included) and say
// nothing a template can use. It copies the two maps it changes: the object is the cache's.
func withoutVersion(o map[string]any) map[string]any {
	meta, ok := o["metadata"].(map[string]any)
	if !ok {
		return o
	}
	_, rv := meta["resourceVersion"]
	_, mf := meta["managedFields"]
	if !rv && !mf {
		return o
	}
	out := maps.Clone(o)
	meta = maps.Clone(meta)
	delete(meta, "resourceVersion")
	delete(meta, "managedFields")
	out["metadata"] = meta
	return out
}

// liveTainted are the strings of the objects a template reads back through .Resources. They
// are Gantry's objects, but they live in the tenant's namespace, where a tenant with ordinary
// rights can edit them (and their status is written by other controllers): what they hold is
// as hostile as a GatewayConfig value.
func liveTainted(resources map[string][]map[string]any) []boundary.Tainted {
	var out []boundary.Tainted
	for _, k := range slices.Sorted(maps.Keys(resources)) { // in order: an error names the first
		for _, o := range resources[k] {
			kind, _ := o["kind"].(string)
			meta, _ := o["metadata"].(map[string]any)
			name, _ := meta["name"].(string)
			if namespace, _ := meta["namespace"].(string); namespace != "" {
				name = namespace + "/" + name
			}
			origin := kind + " " + name + " field "
			out = append(out, boundary.TaintedStrings(o, func(p string) string { return origin + p })...)
		}
	}
	return out
}

// appendObjects adds rendered objects with the labels that tie them to their Gateway, class,
// template and route.
func appendObjects(dst []Object, gw *gwv1.Gateway, infra metadataPolicy, owner Owner, objs []render.Object) []Object {
	for _, o := range objs {
		meta := o.Object["metadata"].(map[string]any) // render checked it is there
		labels, _ := meta["labels"].(map[string]any)
		if labels == nil {
			labels = map[string]any{}
			meta["labels"] = labels
		}
		infra.apply(meta, labels)
		// A rendered object may carry what a tenant wrote (a template copying a route's labels
		// and annotations, a Helm idiom): the keys Gantry reads back from live objects are
		// Gantry's to set, never taken from the render, so that a tenant cannot file its
		// objects under another route or Gateway. On a route template's object, the keep
		// annotation is set on the live object, not rendered: a route's tenant must not keep
		// its (cluster-scoped) objects from being pruned.
		for _, f := range v1alpha1.RouteTemplateFields {
			delete(labels, v1alpha1.RouteLabel(f.Kind)) // only the owner's, set below
		}
		delete(labels, v1alpha1.LabelRouteNamespace)
		if ann, ok := meta["annotations"].(map[string]any); ok && owner.Kind != "Gateway" {
			delete(ann, v1alpha1.AnnotationKeep)
			delete(ann, v1alpha1.AnnotationOwnerUID)
		}
		labels[v1alpha1.LabelGatewayName] = LabelValue(gw.Name)
		labels[v1alpha1.LabelGatewayClassName] = LabelValue(string(gw.Spec.GatewayClassName))
		labels[v1alpha1.LabelTemplate] = LabelValue(o.Template)
		if owner.Kind != "Gateway" {
			labels[v1alpha1.RouteLabel(owner.Kind)] = LabelValue(owner.Name)
			if ns, _ := meta["namespace"].(string); ns == "" {
				labels[v1alpha1.LabelRouteNamespace] = owner.Namespace
			}
		}
		dst = append(dst, Object{Owner: owner, Template: o.Template, Object: o.Object, Text: o.Text})
	}
	return dst
}

// LabelValue fits a name into a label value (63 characters), keeping long names distinct with
// a hash.
func LabelValue(name string) string {
	v, _ := render.Shortname(63, name) // 63 leaves room for the hash, so this cannot fail
	return v
}

// addresses reads status.addresses from the status template's output.
func addresses(blueprint string, status map[string]any) ([]gwv1.GatewayStatusAddress, error) {
	raw, ok := status["addresses"]
	if !ok || raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("blueprint %s: %s: addresses must be a list", blueprint, "gatewayTemplate.status.template")
	}
	out := make([]gwv1.GatewayStatusAddress, 0, len(list))
	for i, e := range list {
		m, _ := e.(map[string]any)
		value, _ := m["value"].(string)
		if value == "" {
			return nil, fmt.Errorf("blueprint %s: gatewayTemplate.status.template: addresses[%d] has no value", blueprint, i)
		}
		a := gwv1.GatewayStatusAddress{Value: value}
		if t, _ := m["type"].(string); t != "" {
			a.Type = ptr(gwv1.AddressType(t))
		}
		out = append(out, a)
	}
	return out, nil
}

// BifrostGroupName is bifrost-gateway-controller's API group. A GatewayClass carried over from
// bifrost names its blueprint as GatewayClassBlueprint.gateway.tv2.dk; Gantry reads that as its
// own GatewayClassBlueprint of the same name, so that the class needs no edit but its
// controllerName.
//
// This widens nothing a tenant can reach: a GatewayClass is cluster-scoped and written by the
// platform team, and it still names a GatewayClassBlueprint (cluster-scoped, platform-owned) by
// name. Whoever can write the class's parametersRef can already point it at any blueprint.
const BifrostGroupName = "gateway.tv2.dk"

// BlueprintName resolves a class's parametersRef to a blueprint name, or says why it
// does not name one.
func BlueprintName(class *gwv1.GatewayClass) (string, error) {
	ref := class.Spec.ParametersRef
	if ref == nil {
		return "", fmt.Errorf("GatewayClass %s has no parametersRef; it must name a %s", class.Name, "GatewayClassBlueprint")
	}
	if g := string(ref.Group); g != v1alpha1.GroupName && g != BifrostGroupName || ref.Kind != "GatewayClassBlueprint" {
		return "", fmt.Errorf("GatewayClass %s parametersRef is %s.%s; it must be a GatewayClassBlueprint.%s (or GatewayClassBlueprint.%s, bifrost-gateway-controller's, read as the same)",
			class.Name, ref.Kind, ref.Group, v1alpha1.GroupName, BifrostGroupName)
	}
	return ref.Name, nil
}

// BlueprintGroupNote says that a class's parametersRef names bifrost-gateway-controller's group
// and is read as Gantry's, for the class's Accepted condition and `gantry render`; "" when it
// names Gantry's own group (or no blueprint).
func BlueprintGroupNote(class *gwv1.GatewayClass) string {
	if class == nil || class.Spec.ParametersRef == nil || string(class.Spec.ParametersRef.Group) != BifrostGroupName {
		return ""
	}
	if _, err := BlueprintName(class); err != nil {
		return ""
	}
	return fmt.Sprintf("parametersRef group %s (bifrost-gateway-controller's) is read as %s", BifrostGroupName, v1alpha1.GroupName)
}
