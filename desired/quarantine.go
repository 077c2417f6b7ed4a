package desired

import (
	"fmt"
	"maps"
	"slices"
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
	kind string // "namespace", "ListenerSet" or "HTTPRoute"
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
func (q *quarantine) routeErr(r *gwv1.HTTPRoute) error {
	if len(r.Spec.Hostnames) == 0 && !q.routesRead {
		return nil
	}
	return q.of("HTTPRoute", types.NamespacedName{Namespace: r.Namespace, Name: r.Name})
}

// routeSet is the routes among routes whose hostnames are set apart.
func (q *quarantine) routeSet(routes []*gwv1.HTTPRoute) map[types.NamespacedName]bool {
	out := map[types.NamespacedName]bool{}
	for _, r := range routes {
		if q.routeErr(r) != nil {
			out[types.NamespacedName{Namespace: r.Namespace, Name: r.Name}] = true
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
func routeHostnamesTainted(routes []*gwv1.HTTPRoute, q *quarantine) []boundary.Tainted {
	var out []boundary.Tainted
	for _, r := range routes {
		if q.routeErr(r) != nil {
			continue
		}
		key := types.NamespacedName{Namespace: r.Namespace, Name: r.Name}
		for _, h := range r.Spec.Hostnames {
			out = append(out, boundary.Tainted{Value: string(h), Origin: fmt.Sprintf("HTTPRoute %s hostname", key)})
		}
	}
	return out
}

// isolate sets apart one more contributor for err and reports whether the render should be
// made again. The contributor is one that holds the value err names (a value several sources
// hold alike is named with all of them, render.Error.Holders), another namespace's before the
// Gateway's own; or, for a budget exceeded, which names no value, the namespace that
// contributes most. It does not when the failure is no contribution's (the Gateway's own, its
// owner's values, the blueprint's), or after maxQuarantineRounds.
func (q *quarantine) isolate(err error, tainted []boundary.Tainted, in *Input) bool {
	if q.rounds >= maxQuarantineRounds {
		return false
	}
	u, ok := q.contributor(err)
	if !ok {
		ns, found := q.fallback(err, tainted, in)
		if !found {
			return false
		}
		u = apartUnit{kind: "namespace", key: types.NamespacedName{Namespace: ns}}
	}
	if _, already := q.why[u]; already {
		return false
	}
	q.units = append(q.units, u)
	q.why[u] = fmt.Errorf("what %s contributes fails the Gateway's render: %w", u, err)
	q.rounds++
	return true
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
	if len(fields) < 3 || !(fields[0] == "ListenerSet" && fields[2] == "field" || fields[0] == "HTTPRoute" && (fields[2] == "hostname" || fields[2] == "field")) {
		return apartUnit{}, false
	}
	ns, name, cut := strings.Cut(fields[1], "/")
	if !cut {
		return apartUnit{}, false
	}
	return apartUnit{kind: fields[0], key: types.NamespacedName{Namespace: ns, Name: name}}, true
}

// fallback names a namespace other than the Gateway's to set apart for a failure that names
// no value. Over a budget: the one that brings the most into the render (the bytes of the
// strings it contributes, and a little for each: what a budget counts grows with them), since
// budgets are the Gateway owner's, not shared out to whoever attaches the most. For two
// objects with one name: the one whose contribution came last (Gateway API's listener
// precedence: the oldest wins). minimize then tries it back in.
func (q *quarantine) fallback(err error, tainted []boundary.Tainted, in *Input) (string, bool) {
	var budget, twice bool
	walkErrors(err, func(e *render.Error) bool {
		budget = budget || strings.Contains(e.Msg, "render budget exceeded")
		return budget
	})
	twice = strings.Contains(err.Error(), "is rendered twice")
	switch {
	case budget:
		weight := map[string]int{}
		for _, t := range tainted {
			if u, ok := unitOf(t.Origin); ok && u.key.Namespace != q.gw.Namespace {
				weight[u.key.Namespace] += len(t.Value) + 16
			}
		}
		best, most := "", 0
		for ns, w := range weight {
			if _, apart := q.why[apartUnit{kind: "namespace", key: types.NamespacedName{Namespace: ns}}]; apart {
				continue
			}
			if w > most || w == most && ns < best {
				best, most = ns, w
			}
		}
		return best, most > 0
	case twice:
		newest, at := "", int64(0)
		note := func(ns string, t int64) {
			if ns == q.gw.Namespace {
				return
			}
			if _, apart := q.why[apartUnit{kind: "namespace", key: types.NamespacedName{Namespace: ns}}]; apart {
				return
			}
			if newest == "" || t > at || t == at && ns < newest {
				newest, at = ns, t
			}
		}
		for _, ls := range in.ListenerSets {
			note(ls.Namespace, ls.CreationTimestamp.UnixNano())
		}
		for _, r := range in.Routes {
			if len(r.Spec.Hostnames) > 0 {
				note(r.Namespace, r.CreationTimestamp.UnixNano())
			}
		}
		return newest, newest != ""
	}
	return "", false
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
func (q *quarantine) report(res *Result, routes []*gwv1.HTTPRoute) {
	for _, r := range routes {
		why := q.routeErr(r)
		if why == nil {
			continue
		}
		key := types.NamespacedName{Namespace: r.Namespace, Name: r.Name}
		i := slices.IndexFunc(res.Routes, func(x Route) bool { return x.NamespacedName == key })
		if i < 0 || !res.Routes[i].Accepted {
			continue
		}
		res.Routes[i].Err = fail(ReasonRenderFailed, fmt.Errorf("HTTPRoute %s: set apart from Gateway %s/%s, which goes on without it (its hostnames, its entry in .Routes): %w",
			key, q.gw.Namespace, q.gw.Name, why))
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
	for _, rt := range res.Routes {
		if !rt.Accepted || rt.Namespace == in.Gateway.Namespace {
			continue
		}
		for _, r := range in.Routes {
			if r.Namespace == rt.Namespace && r.Name == rt.Name && (len(r.Spec.Hostnames) > 0 || res.routesRead) {
				seen[r.Namespace] = true
			}
		}
	}
	for ns := range in.SetApart {
		delete(seen, ns)
	}
	return slices.Sorted(maps.Keys(seen))
}
