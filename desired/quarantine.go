package desired

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

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
// round sets apart every contribution of one namespace, so a tenant with many routes costs one
// round, and a render is never made more than this many times over.
const maxQuarantineRounds = 8

// quarantine is what a Gateway's render set apart: contributions of others (a ListenerSet's
// listeners and strings, an attached route's hostnames) that made it fail, with the failure.
type quarantine struct {
	rounds int
	sets   map[types.NamespacedName]error
	routes map[types.NamespacedName]error
}

func (q *quarantine) routeSet() map[types.NamespacedName]bool {
	out := make(map[types.NamespacedName]bool, len(q.routes))
	for k := range q.routes {
		out[k] = true
	}
	return out
}

// routeHostnamesTainted are the hostnames of the attached routes (but those set apart), each
// named by its route: they reach the Gateway's render through .Hostnames, and are the route
// owner's words, not the Gateway owner's.
func routeHostnamesTainted(routes []*gwv1.HTTPRoute, apart map[types.NamespacedName]error) []render.Tainted {
	var out []render.Tainted
	for _, r := range routes {
		key := types.NamespacedName{Namespace: r.Namespace, Name: r.Name}
		if apart[key] != nil {
			continue
		}
		for _, h := range r.Spec.Hostnames {
			out = append(out, render.Tainted{Value: string(h), Origin: fmt.Sprintf("HTTPRoute %s hostname", key)})
		}
	}
	return out
}

// preset sets apart, before any render, the contributions of the namespaces in apart (the
// controller's, after the API server refused the Gateway's objects with them).
func (q *quarantine) preset(gw *gwv1.Gateway, apart map[string]string, sets []ListenerSet, routes []*gwv1.HTTPRoute) {
	if len(apart) == 0 {
		return
	}
	for i := range sets {
		o := &sets[i]
		if why, ok := apart[o.Namespace]; ok && o.Accepted() && o.Namespace != gw.Namespace {
			o.Reason, o.Listeners = ReasonContributionRefused, nil
			o.Message = fmt.Sprintf("the API server refuses the objects of Gateway %s/%s with what namespace %s contributes, and accepts them without; the Gateway goes on without this ListenerSet (%s)",
				gw.Namespace, gw.Name, o.Namespace, why)
		}
	}
	for _, r := range routes {
		if why, ok := apart[r.Namespace]; ok && r.Namespace != gw.Namespace && len(r.Spec.Hostnames) > 0 {
			if q.routes == nil {
				q.routes = map[types.NamespacedName]error{}
			}
			q.routes[types.NamespacedName{Namespace: r.Namespace, Name: r.Name}] = fmt.Errorf("the API server refuses the Gateway's objects with what namespace %s contributes (%s)", r.Namespace, why)
		}
	}
}

// Contributors lists the namespaces other than the Gateway's that contribute to its render in
// res (an attached ListenerSet, an attached route with hostnames) and are not set apart yet,
// the one with the newest contribution first: when the Gateway's objects are refused, the
// newest contribution is the likeliest cause.
func Contributors(in *Input, res *Result) []string {
	newest := map[string]int64{}
	note := func(ns string, t int64) {
		if _, apart := in.SetApart[ns]; ns == in.Gateway.Namespace || apart {
			return
		}
		if prev, ok := newest[ns]; !ok || t > prev {
			newest[ns] = t
		}
	}
	for _, o := range res.ListenerSets {
		if !o.Accepted() {
			continue
		}
		for _, ls := range in.ListenerSets {
			if ls.Namespace == o.Namespace && ls.Name == o.Name {
				note(ls.Namespace, ls.CreationTimestamp.UnixNano())
			}
		}
	}
	for _, rt := range res.Routes {
		if !rt.Accepted {
			continue
		}
		for _, r := range in.Routes {
			if r.Namespace == rt.Namespace && r.Name == rt.Name && len(r.Spec.Hostnames) > 0 {
				note(r.Namespace, r.CreationTimestamp.UnixNano())
			}
		}
	}
	out := slices.Collect(maps.Keys(newest))
	slices.SortFunc(out, func(a, b string) int {
		if newest[a] != newest[b] {
			if newest[a] > newest[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return out
}

// isolate sets apart the contribution err names, with every other contribution of its
// namespace when that is not the Gateway's, and reports whether the render should be made
// again. It does not when the failure is no contribution's (the Gateway's own, its owner's
// values, the blueprint's), or after maxQuarantineRounds.
func (q *quarantine) isolate(gw *gwv1.Gateway, err error, sets []ListenerSet, routes []*gwv1.HTTPRoute) bool {
	if q.rounds >= maxQuarantineRounds {
		return false
	}
	kind, key, ok := contributor(err)
	if !ok {
		// A budget exceeded names no value. When others contribute, the one that
		// contributes most (listeners and hostnames) is set apart first: budgets are the
		// Gateway owner's, not shared out to whoever attaches the most.
		ns, found := q.heaviest(gw, err, sets, routes)
		if !found {
			return false
		}
		kind, key = "namespace", types.NamespacedName{Namespace: ns}
	}
	culprit := kind + " " + key.String()
	if kind == "namespace" {
		culprit = "namespace " + key.Namespace
	}
	apart := func(k string, n types.NamespacedName) bool {
		if n.Namespace == gw.Namespace {
			return k == kind && n == key // the owner's namespace: that object only
		}
		return n.Namespace == key.Namespace
	}
	found := false
	for i := range sets {
		o := &sets[i]
		if o.Accepted() && apart("ListenerSet", o.NamespacedName) {
			if q.sets == nil {
				q.sets = map[types.NamespacedName]error{}
			}
			q.sets[o.NamespacedName] = err
			o.Reason, o.Listeners = ReasonContributionFailed, nil
			o.Message = fmt.Sprintf("the render of Gateway %s/%s fails with what %s contributes, and goes on without this ListenerSet: %v", gw.Namespace, gw.Name, culprit, err)
			found = true
		}
	}
	for _, r := range routes {
		n := types.NamespacedName{Namespace: r.Namespace, Name: r.Name}
		if q.routes[n] == nil && apart("HTTPRoute", n) {
			if q.routes == nil {
				q.routes = map[types.NamespacedName]error{}
			}
			q.routes[n] = fmt.Errorf("what %s contributes fails the Gateway's render: %w", culprit, err)
			found = true
		}
	}
	q.rounds++
	return found
}

// heaviest names the namespace other than the Gateway's that contributes most to its render,
// when err is a budget exceeded.
func (q *quarantine) heaviest(gw *gwv1.Gateway, err error, sets []ListenerSet, routes []*gwv1.HTTPRoute) (string, bool) {
	budget := false
	walkErrors(err, func(e *render.Error) bool {
		budget = strings.Contains(e.Msg, "render budget exceeded")
		return budget
	})
	if !budget {
		return "", false
	}
	weight := map[string]int{}
	for _, o := range sets {
		if o.Accepted() && o.Namespace != gw.Namespace {
			weight[o.Namespace] += 1 + len(o.Listeners)
		}
	}
	for _, r := range routes {
		if r.Namespace != gw.Namespace && q.routes[types.NamespacedName{Namespace: r.Namespace, Name: r.Name}] == nil {
			weight[r.Namespace] += len(r.Spec.Hostnames)
		}
	}
	best, most := "", 0
	for ns, w := range weight {
		if w > most || w == most && ns < best {
			best, most = ns, w
		}
	}
	return best, most > 0
}

// contributor finds, in a render's error, the first failure whose origin is a contribution:
// a ListenerSet's field or a route's hostname (as listenerSetMaps and routeHostnamesTainted
// name them).
func contributor(err error) (kind string, key types.NamespacedName, ok bool) {
	var found bool
	walkErrors(err, func(e *render.Error) bool {
		fields := strings.Fields(e.Origin)
		if len(fields) < 3 || fields[0] != "ListenerSet" && fields[0] != "HTTPRoute" {
			return false
		}
		ns, name, cut := strings.Cut(fields[1], "/")
		if !cut || fields[0] == "ListenerSet" && fields[2] != "field" || fields[0] == "HTTPRoute" && fields[2] != "hostname" {
			return false
		}
		kind, key, found = fields[0], types.NamespacedName{Namespace: ns, Name: name}, true
		return true
	})
	return kind, key, found
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

// report marks the routes set apart failed on their own status: their hostnames fail the
// Gateway's render, which goes on without them, and their own templates are not rendered.
func (q *quarantine) report(res *Result, gw *gwv1.Gateway) {
	for _, key := range slices.SortedFunc(maps.Keys(q.routes), func(a, b types.NamespacedName) int { return strings.Compare(a.String(), b.String()) }) {
		i := slices.IndexFunc(res.Routes, func(r Route) bool { return r.NamespacedName == key })
		if i < 0 || !res.Routes[i].Accepted {
			continue
		}
		res.Routes[i].Err = fail(ReasonRenderFailed, fmt.Errorf("HTTPRoute %s: set apart from Gateway %s/%s, which goes on without its hostnames: %w",
			key, gw.Namespace, gw.Name, q.routes[key]))
	}
}
