package render

import (
	"slices"
	"strings"
)

// ListenerRoutes is one listener's hostname ("" matches any) and the hostnames of each route
// attached to it (an empty list: the route matches any hostname).
type ListenerRoutes struct {
	Hostname string
	Routes   [][]string
}

// ComputeHostnames gives .Hostnames for a Gateway.
//
// Union is every listener hostname and every attached route hostname. Intersection is what the
// Gateway actually serves: for each listener and attached route, the more specific of two
// matching hostnames; then every hostname covered by a wildcard in the set is dropped, so that a
// certificate for Intersection covers everything with the fewest names. Both are sorted and
// de-duplicated.
func ComputeHostnames(listeners []ListenerRoutes) Hostnames {
	var union, inter []string
	for _, l := range listeners {
		if l.Hostname != "" {
			union = append(union, l.Hostname)
		}
		for _, route := range l.Routes {
			union = append(union, route...)
			if len(route) == 0 {
				if l.Hostname != "" {
					inter = append(inter, l.Hostname)
				}
				continue
			}
			for _, h := range route {
				if m := intersect(l.Hostname, h); m != "" {
					inter = append(inter, m)
				}
			}
		}
	}
	union = sortedUnique(union)
	inter = sortedUnique(inter)
	inter = slices.DeleteFunc(inter, func(h string) bool {
		for _, w := range inter {
			if w != h && covers(w, h) {
				return true
			}
		}
		return false
	})
	return Hostnames{Union: union, Intersection: inter}
}

// intersect returns the hostnames both a listener and a route hostname match: the more
// specific of the two, or "" when they do not overlap.
func intersect(listener, route string) string {
	switch {
	case listener == "":
		return route
	case covers(listener, route) || listener == route:
		return route
	case covers(route, listener):
		return listener
	}
	return ""
}

// covers reports whether wildcard w (`*.example.com`) matches h, a different hostname:
// Gateway API wildcards match one or more labels in front of the suffix.
func covers(w, h string) bool {
	suffix, ok := strings.CutPrefix(w, "*")
	if !ok || w == h {
		return false
	}
	return strings.HasSuffix(h, suffix) && len(h) > len(suffix)
}

func sortedUnique(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}
