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
// Union is every listener hostname and every attached route hostname the listener serves (the
// more specific of the two, as Attached has it): a route hostname no listener serves reaches
// none of the three.
//
// Intersection is bifrost-gateway-controller's contract, kept for blueprints written for it:
// Union without the names a wildcard in Union already covers, the fewest names a certificate
// for the Gateway needs. A wildcard covers one label, as in a certificate (`*.example.com`
// covers `foo.example.com`, not `example.com` nor `a.b.example.com`). Listener hostnames are
// in it before any route attaches.
//
// Attached is what the Gateway actually serves: for each listener and attached route, the
// more specific of two matching hostnames (Gateway API matching, where a wildcard matches one
// or more labels); then every hostname covered by a wildcard in the set is dropped.
//
// All three are sorted and de-duplicated.
func ComputeHostnames(listeners []ListenerRoutes) Hostnames {
	var union, attached []string
	for _, l := range listeners {
		if l.Hostname != "" {
			union = append(union, l.Hostname)
		}
		for _, route := range l.Routes {
			if len(route) == 0 {
				if l.Hostname != "" {
					attached = append(attached, l.Hostname)
				}
				continue
			}
			for _, h := range route {
				// Only what the listener serves: a route's other hostnames are the
				// tenant's words, and would put any name into a shared certificate.
				if m := Intersect(l.Hostname, h); m != "" {
					union = append(union, m)
					attached = append(attached, m)
				}
			}
		}
	}
	union = sortedUnique(union)
	attached = withoutCovered(sortedUnique(attached), covers)
	inter := withoutCovered(slices.Clone(union), coversOneLabel)
	return Hostnames{Union: union, Intersection: inter, Attached: attached}
}

// withoutCovered drops from the sorted set hs every name another name in it covers.
func withoutCovered(hs []string, covers func(w, h string) bool) []string {
	return slices.DeleteFunc(hs, func(h string) bool {
		for _, w := range hs {
			if w != h && covers(w, h) {
				return true
			}
		}
		return false
	})
}

// coversOneLabel reports whether wildcard w (`*.example.com`) covers h as a certificate's
// wildcard does: h is one label, not a wildcard, in front of the suffix.
func coversOneLabel(w, h string) bool {
	suffix, ok := strings.CutPrefix(w, "*")
	if !ok || w == h {
		return false
	}
	label, ok := strings.CutSuffix(h, suffix)
	return ok && label != "" && label != "*" && !strings.Contains(label, ".")
}

// Intersect returns the hostnames both a listener and a route hostname match: the more
// specific of the two, or "" when they do not overlap. A listener without a hostname ("")
// matches any.
func Intersect(listener, route string) string {
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
