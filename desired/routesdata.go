package desired

import (
	"cmp"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// routesData is .Routes for the Gateway's templates: every route attached to the Gateway that
// is accepted and not set apart, in Gateway API's order of precedence among routes (the oldest
// first, then by namespace and name), so that a template writing one configuration file in
// that order gives conflicting matches the specified winner. Each entry is the route's
// identity, the listeners it attached through, its effective hostnames (listener ∩ route), and
// its rules with every backendRef's verdict (resolved, reason) as .Backends has it. All of it
// is the tenant's: the second list is its strings, numbers and keys, each naming the route.
func routesData(att attachment, q *quarantine, in *Input) ([]any, []boundary.Tainted, error) {
	routes := slices.Clone(att.accepted)
	routes = slices.DeleteFunc(routes, func(r routeObj) bool { return q.routeErr(r) != nil })
	slices.SortStableFunc(routes, func(x, y routeObj) int {
		return cmp.Or(x.created.Time.Compare(y.created.Time),
			cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name), cmp.Compare(x.kind, y.kind))
	})
	out := make([]any, 0, len(routes))
	var tainted []boundary.Tainted
	for _, r := range routes {
		entry, err := routeEntry(r, att.through[r.routeID], in)
		if err != nil {
			return nil, nil, err
		}
		origin := fmt.Sprintf("%s field .Routes", r.routeID)
		tainted = append(tainted, boundary.TaintedStrings(entry, func(p string) string { return origin + "." + p })...)
		out = append(out, entry)
	}
	return out, tainted, nil
}

// routeEntry is one route of .Routes.
func routeEntry(r routeObj, via []routeVia, in *Input) (map[string]any, error) {
	spec, err := objectMap(r.obj)
	if err != nil {
		return nil, err
	}
	rules, _ := spec["spec"].(map[string]any)["rules"].([]any)
	if rules == nil {
		rules = []any{}
	}
	// Each backendRef carries Gantry's verdict on it, as .Backends does for route templates.
	for _, b := range backendsOf(r, func(k types.NamespacedName) bool { return in.BackendServices[k] }, in.ReferenceGrants) {
		rule, _ := rules[b.Rule].(map[string]any)
		refs, _ := rule["backendRefs"].([]any)
		ref, _ := refs[b.Index].(map[string]any)
		ref["namespace"] = b.Namespace
		ref["resolved"] = b.Resolved()
		ref["reason"] = string(b.Reason)
	}
	parents := make([]any, 0, len(via))
	var names []string
	anyHost := false
	for _, v := range via {
		p := map[string]any{"kind": v.kind, "namespace": v.namespace, "name": v.name,
			"sectionName": string(v.listener.Name), "port": int64(v.listener.Port), "protocol": string(v.listener.Protocol)}
		listener := ""
		if v.listener.Hostname != nil {
			listener = string(*v.listener.Hostname)
			p["hostname"] = listener
		}
		parents = append(parents, p)
		if len(r.hostnames) == 0 {
			if listener == "" {
				anyHost = true
			} else {
				names = append(names, listener)
			}
			continue
		}
		for _, h := range r.hostnames {
			if m := render.Intersect(listener, string(h)); m != "" {
				names = append(names, m)
			}
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if anyHost {
		names = nil // one listener serves the route on any hostname: no list narrows that
	}
	hosts := make([]any, len(names))
	for i, h := range names {
		hosts[i] = h
	}
	return map[string]any{
		"kind":              r.kind,
		"namespace":         r.Namespace,
		"name":              r.Name,
		"creationTimestamp": r.created.UTC().Format("2006-01-02T15:04:05Z"),
		"hostnames":         hosts,
		"parents":           parents,
		"rules":             rules,
	}, nil
}
