package main

import (
	"net/http"
	"strings"
	"sync"
)

// counter counts the controller's API requests by verb and resource, through its transport.
type counter struct {
	mu     sync.Mutex
	counts map[string]int // "verb resource" -> n
}

func (c *counter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		c.add(verb(req), resource(req.URL.Path))
		return rt.RoundTrip(req)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (c *counter) add(verb, resource string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[string]int{}
	}
	c.counts[verb+" "+resource]++
}

// snapshot returns the counts so far.
func (c *counter) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

// since returns the counts added after an earlier snapshot.
func since(now, before map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range now {
		if d := v - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

var writeVerbs = map[string]bool{"create": true, "update": true, "patch": true, "apply": true, "delete": true}

// dryRuns sums the server-side dry-runs, which write nothing.
func dryRuns(counts map[string]int) (n int) {
	for k, v := range counts {
		if strings.HasPrefix(k, "dry-run ") {
			n += v
		}
	}
	return n
}

// split sums writes and reads, and writes without Events.
func split(counts map[string]int) (writes, writesNoEvents, reads int) {
	for k, v := range counts {
		verb, res, _ := strings.Cut(k, " ")
		switch {
		case writeVerbs[verb]:
			writes += v
			if res != "events" {
				writesNoEvents += v
			}
		case verb == "get" || verb == "list":
			reads += v
		}
	}
	return
}

func verb(r *http.Request) string {
	if r.URL.Query().Get("dryRun") != "" {
		// A server-side dry-run writes nothing; counted apart, so that write figures stay writes.
		return "dry-run " + plainVerb(r)
	}
	return plainVerb(r)
}

func plainVerb(r *http.Request) string {
	switch r.Method {
	case http.MethodGet:
		if r.URL.Query().Get("watch") == "true" {
			return "watch"
		}
		if isCollection(r.URL.Path) {
			return "list"
		}
		return "get"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/apply-patch") {
			return "apply"
		}
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return strings.ToLower(r.Method)
}

// pathParts strips /api/v1 or /apis/group/version and a leading namespaces/NS from a request
// path, leaving resource[/name[/subresource]].
func pathParts(path string) ([]string, bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return nil, false
	}
	if len(parts) > 2 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	return parts, true
}

// resource turns /api/v1/namespaces/x/services/y/status into "services/status".
func resource(path string) string {
	parts, ok := pathParts(path)
	switch {
	case !ok:
		return path
	case len(parts) == 0:
		return "?"
	case len(parts) <= 2:
		return parts[0]
	default:
		return parts[0] + "/" + parts[2]
	}
}

func isCollection(path string) bool {
	parts, ok := pathParts(path)
	return ok && len(parts) == 1
}
