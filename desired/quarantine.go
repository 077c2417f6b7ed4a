package desired

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// ReasonContributionFailed: a ListenerSet's content failed the render of the Gateway it
// attaches to; the Gateway goes on without it.
const ReasonContributionFailed gwv1.ListenerSetConditionReason = "RenderFailed"

// ReasonContributionRefused: the API server refused the Gateway's objects with what the
// ListenerSet's namespace contributes, and accepts them without; the Gateway goes on without
// it.
const ReasonContributionRefused gwv1.ListenerSetConditionReason = "ApplyFailed"

// maxQuarantineRounds bounds the renders one Gateway makes to set contributions apart: each
// round sets apart one contributor (every contribution of a namespace other than the
// Gateway's, or one object of the Gateway's), and a render is never made more than twice this
// many times over (the rounds, then trying each back in).
const maxQuarantineRounds = 8

// apartUnit is what is set apart at once: every contribution of a namespace other than the
// Gateway's (kind "namespace"), or one ListenerSet or route of the Gateway's own namespace.
type apartUnit struct {
	kind string // "namespace", "ListenerSet", or a route's kind
	key  types.NamespacedName
}

func (u apartUnit) String() string {
	if u.kind == "namespace" {
		return "namespace " + u.key.Namespace
	}
	return u.kind + " " + u.key.String()
}

// quarantine is what a Gateway's render sets apart: contributions of others (a ListenerSet's
// listeners and strings, an attached route's hostnames) that made it fail, with why.
type quarantine struct {
	gw     *gwv1.Gateway
	rounds int
	// units are set apart in this order; why says why each is.
	units []apartUnit
	why   map[apartUnit]error
	// refused are the namespaces the controller set apart before the render (Input.SetApart):
	// the API server refused the Gateway's objects with them.
	refused map[string]string
	// routesRead is set when the templates read .Routes: every attached route contributes.
	routesRead bool
}

func newQuarantine(gw *gwv1.Gateway, setApart map[string]string) *quarantine {
	q := &quarantine{gw: gw, why: map[apartUnit]error{}, refused: map[string]string{}}
	for ns, why := range setApart {
		if ns != gw.Namespace {
			q.refused[ns] = why
		}
	}
	return q
}

// of returns why a ListenerSet or route (kind) is set apart, or nil.
func (q *quarantine) of(kind string, n types.NamespacedName) error {
	if why, ok := q.refused[n.Namespace]; ok {
		return fmt.Errorf("the API server refuses the objects of Gateway %s/%s with what namespace %s contributes, and accepts them without (%s)", q.gw.Namespace, q.gw.Name, n.Namespace, why)
	}
	if n.Namespace != q.gw.Namespace {
		return q.why[apartUnit{kind: "namespace", key: types.NamespacedName{Namespace: n.Namespace}}]
	}
	return q.why[apartUnit{kind: kind, key: n}]
}

// routeErr returns why a route's contribution is set apart, or nil. A route without hostnames
// contributes none, unless the templates read .Routes.
func (q *quarantine) routeErr(r routeObj) error {
	if len(r.hostnames) == 0 && !q.routesRead {
		return nil
	}
	return q.of(r.kind, r.NamespacedName)
}

// routeSet is the routes among routes whose hostnames are set apart.
func (q *quarantine) routeSet(routes []routeObj) map[routeID]bool {
	out := map[routeID]bool{}
	for _, r := range routes {
		if q.routeErr(r) != nil {
			out[r.routeID] = true
		}
	}
	return out
}

// mark says, on each accepted ListenerSet set apart, why it is.
func (q *quarantine) mark(sets []ListenerSet) {
	for i := range sets {
		o := &sets[i]
		if !o.Accepted() {
			continue
		}
		why := q.of("ListenerSet", o.NamespacedName)
		if why == nil {
			continue
		}
		o.Listeners = nil
		if _, refused := q.refused[o.Namespace]; refused {
			o.Reason, o.Message = ReasonContributionRefused, why.Error()+"; the Gateway goes on without this ListenerSet"
		} else {
			o.Reason, o.Message = ReasonContributionFailed, fmt.Sprintf("the render of Gateway %s/%s goes on without this ListenerSet: %v", q.gw.Namespace, q.gw.Name, why)
		}
	}
}

// routeHostnamesTainted are the hostnames of the attached routes (but those set apart), each
// named by its route: they reach the Gateway's render through .Hostnames, and are the route
// owner's words, not the Gateway owner's.
func routeHostnamesTainted(routes []routeObj, q *quarantine) []boundary.Tainted {
	var out []boundary.Tainted
	for _, r := range routes {
		if q.routeErr(r) != nil {
			continue
		}
		for _, h := range r.hostnames {
			out = append(out, boundary.Tainted{Value: string(h), Origin: fmt.Sprintf("%s hostname", r.routeID)})
		}
	}
	return out
}

// isolate sets apart one more contributor for err and reports whether the render should be
// made again. The contributor is one that holds the value err names (a value several sources
// hold alike is named with all of them, render.Error.Holders), another namespace's before the
// Gateway's own; for a failure that names no value (an object rendered twice, a budget, a
// template that fails on a route's shape), the one found by search. It does not when the
// failure is no contribution's (the Gateway's own, its owner's values, the blueprint's), or
// after maxQuarantineRounds.
func (q *quarantine) isolate(err error, try func() error, candidates []candidate) bool {
	if q.rounds >= maxQuarantineRounds {
		return false
	}
	u, ok := q.contributor(err)
	if !ok {
		if u, ok = q.search(err, try, candidates); !ok {
			return false
		}
	}
	if _, already := q.why[u]; already {
		return false
	}
	q.units = append(q.units, u)
	q.why[u] = q.reason(u, err)
	q.rounds++
	return true
}

// reason is why u is set apart, as its own status says it: the template and u's own value that
// failed the render, never the error as the Gateway's owner would read it. That error names
// the first source of a failing value, which may be the owner's GatewayConfig when the
// contribution holds the same string (a tenant could confirm guesses of the owner's values by
// it), and a failure found by search may be about others' contributions.
func (q *quarantine) reason(u apartUnit, err error) error {
	var own error
	walkErrors(err, func(e *render.Error) bool {
		holders := e.Holders
		if len(holders) == 0 {
			holders = []string{e.Origin}
		}
		for _, h := range holders {
			if v, ok := unitOf(h); ok && q.unitOf(v) == u {
				own = fmt.Errorf("what %s contributes fails the Gateway's render: %s: %s: %s", u, e.Template, h, e.Msg)
				return true
			}
		}
		return false
	})
	if own != nil {
		return own
	}
	var templates []string
	walkErrors(err, func(e *render.Error) bool {
		if e.Template != "" && !slices.Contains(templates, e.Template) {
			templates = append(templates, e.Template)
		}
		return false
	})
	if len(templates) == 0 {
		return fmt.Errorf("what %s contributes fails the Gateway's render, which passes without it", u)
	}
	return fmt.Errorf("what %s contributes fails the Gateway's render (%s), which passes without it", u, strings.Join(templates, ", "))
}

// unitOf is the unit a contribution is set apart in: its namespace, for another namespace's.
func (q *quarantine) unitOf(u apartUnit) apartUnit {
	if u.key.Namespace != q.gw.Namespace {
		return apartUnit{kind: "namespace", key: types.NamespacedName{Namespace: u.key.Namespace}}
	}
	return u
}

// candidate is a contribution that search may set apart: its unit, when it came (the newest
// of its objects), and how many bytes of strings it brings into the render.
type candidate struct {
	unit    apartUnit
	created int64
	bytes   int
}

// candidates are the contributions to the current render that search may set apart: the
// attached ListenerSets and the accepted routes that contribute (their hostnames, or anything
// when the templates read .Routes), a namespace other than the Gateway's as one unit, each
// with the bytes of its strings in tainted.
func (q *quarantine) candidates(in *Input, sets []ListenerSet, routes []routeObj, tainted []boundary.Tainted) []candidate {
	byUnit := map[apartUnit]*candidate{}
	var order []apartUnit
	add := func(kind string, key types.NamespacedName, created int64) {
		u := apartUnit{kind: kind, key: key}
		if key.Namespace != q.gw.Namespace {
			u = apartUnit{kind: "namespace", key: types.NamespacedName{Namespace: key.Namespace}}
		}
		c := byUnit[u]
		if c == nil {
			c = &candidate{unit: u}
			byUnit[u] = c
			order = append(order, u)
		}
		c.created = max(c.created, created)
	}
	for _, ls := range sets {
		if !ls.Accepted() {
			continue
		}
		var created int64
		for _, spec := range in.ListenerSets {
			if spec.Namespace == ls.Namespace && spec.Name == ls.Name {
				created = spec.CreationTimestamp.UnixNano()
			}
		}
		add("ListenerSet", ls.NamespacedName, created)
	}
	for _, r := range routes {
		if len(r.hostnames) > 0 || q.routesRead {
			add(r.kind, r.NamespacedName, r.created.UnixNano())
		}
	}
	for _, t := range tainted {
		if u, ok := unitOf(t.Origin); ok {
			if u.key.Namespace != q.gw.Namespace {
				u = apartUnit{kind: "namespace", key: types.NamespacedName{Namespace: u.key.Namespace}}
			}
			if c := byUnit[u]; c != nil {
				c.bytes += len(t.Value) + 16
			}
		}
	}
	out := make([]candidate, len(order))
	for i, u := range order {
		out[i] = *byUnit[u]
	}
	return out
}

// maxSingles bounds the renders search makes leaving out one contribution at a time.
const maxSingles = 32

// errSearching marks what search leaves out while it tries.
var errSearching = fmt.Errorf("left out while searching")

// search finds, for a failure that names no value, a contribution the render passes without.
// The candidates not set apart yet are ordered, over a budget, by the bytes they bring (budgets
// are the Gateway owner's, not shared out to whoever attaches the most), otherwise newest first
// (Gateway API's precedence: the oldest wins); then bisection finds the shortest run of them,
// from the start, that the render passes without, and its last one is set apart (minimize
// tries the others back in). A failure that stays with every candidate left out is the
// Gateway's own: nothing is set apart. This is the failure path: a few more renders are fine.
func (q *quarantine) search(err error, try func() error, candidates []candidate) (apartUnit, bool) {
	var budget bool
	walkErrors(err, func(e *render.Error) bool {
		budget = budget || strings.Contains(e.Msg, "render budget exceeded")
		return budget
	})
	cs := slices.DeleteFunc(slices.Clone(candidates), func(c candidate) bool { _, apart := q.why[c.unit]; return apart })
	if len(cs) == 0 {
		return apartUnit{}, false
	}
	slices.SortStableFunc(cs, func(a, b candidate) int {
		if budget && a.bytes != b.bytes {
			return b.bytes - a.bytes
		}
		if a.created != b.created {
			if a.created > b.created {
				return -1
			}
			return 1
		}
		return strings.Compare(a.unit.String(), b.unit.String())
	})
	passesWithout := func(left []candidate) bool {
		for _, c := range left {
			q.why[c.unit] = errSearching
		}
		defer func() {
			for _, c := range left {
				delete(q.why, c.unit)
			}
		}()
		return try() == nil
	}
	if len(cs) < 2 || !passesWithout(cs) {
		return apartUnit{}, false
	}
	// A contribution is set apart only when the render passes with another one in: a render
	// that fails with any of them and passes with none fails for what it asks of every
	// contribution (the owner's certificate issuer, once a route brings a hostname), which is
	// the owner's to fix; with one contribution, the two cannot be told apart.
	n := sort.Search(len(cs), func(i int) bool { return passesWithout(cs[:i+1]) })
	if n < len(cs)-1 {
		return cs[n].unit, true
	}
	for i, c := range cs[:min(len(cs), maxSingles)] {
		if passesWithout(cs[i : i+1]) {
			return c.unit, true
		}
	}
	return apartUnit{}, false
}

// contributor finds, in a render's error, a contribution that holds the failing value: among
// all the errors and all the holders of each, another namespace's first, then one of the
// Gateway's own namespace (as listenerSetMaps and routeHostnamesTainted name them).
func (q *quarantine) contributor(err error) (apartUnit, bool) {
	var own, foreign []apartUnit
	walkErrors(err, func(e *render.Error) bool {
		holders := e.Holders
		if len(holders) == 0 {
			holders = []string{e.Origin}
		}
		for _, h := range holders {
			u, ok := unitOf(h)
			if !ok {
				continue
			}
			if u.key.Namespace == q.gw.Namespace {
				own = append(own, u)
			} else {
				foreign = append(foreign, apartUnit{kind: "namespace", key: types.NamespacedName{Namespace: u.key.Namespace}})
			}
		}
		return false
	})
	for _, u := range append(foreign, own...) {
		if _, already := q.why[u]; !already {
			return u, true
		}
	}
	return apartUnit{}, false
}

// unitOf reads an origin that names a contribution: `ListenerSet ns/name field …`,
// `HTTPRoute ns/name hostname` or `HTTPRoute ns/name field .Routes…`.
func unitOf(origin string) (apartUnit, bool) {
	fields := strings.Fields(origin)
	if len(fields) < 3 || !(fields[0] == "ListenerSet" && fields[2] == "field" || slices.Contains(RouteKinds, fields[0]) && (fields[2] == "hostname" || fields[2] == "field")) {
		return apartUnit{}, false
	}
	ns, name, cut := strings.Cut(fields[1], "/")
	if !cut {
		return apartUnit{}, false
	}
	return apartUnit{kind: fields[0], key: types.NamespacedName{Namespace: ns, Name: name}}, true
}

// minimize tries each unit set apart back in, in the order they were set apart, and keeps it
// in when the render (try) passes; the last render made is then the one for what stays set
// apart. It returns an error only if a render that passed before fails again.
func (q *quarantine) minimize(try func() error) error {
	if len(q.units) == 0 {
		return nil
	}
	lastOK := true
	for i := 0; i < len(q.units); {
		u := q.units[i]
		why := q.why[u]
		delete(q.why, u)
		q.units = slices.Delete(q.units, i, i+1)
		if try() == nil {
			lastOK = true
			continue
		}
		q.units = slices.Insert(q.units, i, u)
		q.why[u] = why
		lastOK = false
		i++
	}
	if !lastOK {
		return try()
	}
	return nil
}

// walkErrors calls visit with every *render.Error in err's tree, in order, until it returns
// true.
func walkErrors(err error, visit func(*render.Error) bool) bool {
	if e, ok := err.(*render.Error); ok {
		return visit(e)
	}
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, x := range u.Unwrap() {
			if walkErrors(x, visit) {
				return true
			}
		}
	case interface{ Unwrap() error }:
		return walkErrors(u.Unwrap(), visit)
	}
	return false
}

// report marks the routes set apart failed on their own status: their hostnames are left out
// of the Gateway's render, and their own templates are not rendered.
func (q *quarantine) report(res *Result, routes []routeObj) {
	for _, r := range routes {
		why := q.routeErr(r)
		if why == nil {
			continue
		}
		i := slices.IndexFunc(res.Routes, func(x Route) bool { return x.Kind == r.kind && x.NamespacedName == r.NamespacedName })
		if i < 0 || !res.Routes[i].Accepted {
			continue
		}
		res.Routes[i].Err = fail(ReasonRenderFailed, fmt.Errorf("%s: set apart from Gateway %s/%s, which goes on without it (its hostnames, its entry in .Routes): %w",
			r.routeID, q.gw.Namespace, q.gw.Name, why))
	}
}

// Contributors lists the namespaces other than the Gateway's that contribute to its render in
// res (an attached ListenerSet, an attached route with hostnames, or any attached route when
// the blueprint reads .Routes) and are not set apart yet,
// in a fixed order (by namespace name): the controller searches them for the one whose
// contributions the API server refuses.
func Contributors(in *Input, res *Result) []string {
	seen := map[string]bool{}
	for _, o := range res.ListenerSets {
		if o.Accepted() && o.Namespace != in.Gateway.Namespace {
			seen[o.Namespace] = true
		}
	}
	hostnames := map[routeID]bool{} // whether each route names hostnames
	for _, r := range routesOf(in) {
		hostnames[r.routeID] = hostnames[r.routeID] || len(r.hostnames) > 0
	}
	for _, rt := range res.Routes {
		if !rt.Accepted || rt.Namespace == in.Gateway.Namespace {
			continue
		}
		if named, known := hostnames[routeID{kind: rt.Kind, NamespacedName: rt.NamespacedName}]; known && (named || res.routesRead) {
			seen[rt.Namespace] = true
		}
	}
	for ns := range in.SetApart {
		delete(seen, ns)
	}
	return slices.Sorted(maps.Keys(seen))
}

// confineHolders is a route render's error as the route's own status may say it: a refused
// value is named only by its holders in the route's namespace (its fields, its .Backends, its
// namespace's GatewayConfigs, objects there). The check names the first source holding the
// failing string, which may be the Gateway owner's GatewayConfig when the route holds the same
// string: named in the route's status, that would confirm a tenant's guess of another's value.
// Such an error keeps its template and message, without the holder.
func confineHolders(err error, namespace string) error {
	foreign := false
	walkErrors(err, func(e *render.Error) bool {
		for _, h := range append([]string{e.Origin}, e.Holders...) {
			if h != "" && holderNamespace(h) != namespace {
				foreign = true
			}
		}
		return foreign
	})
	if !foreign {
		return err
	}
	var out []error
	walkErrors(err, func(e *render.Error) bool {
		c := *e
		c.Origin, c.Holders = "", nil
		for _, h := range append([]string{e.Origin}, e.Holders...) {
			if h != "" && holderNamespace(h) == namespace {
				c.Origin = h
				break
			}
		}
		out = append(out, &c)
		return false
	})
	return errors.Join(out...)
}

// holderNamespace is the namespace of a tainted value's origin, "<Kind> <namespace>/<name> …";
// "" when it names none.
func holderNamespace(origin string) string {
	_, rest, _ := strings.Cut(origin, " ")
	ns, _, ok := strings.Cut(rest, "/")
	if !ok || strings.Contains(ns, " ") {
		return ""
	}
	return ns
}
