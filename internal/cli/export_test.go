package cli

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"gantry.dev/gantry/internal/cluster"
)

// CountRequests records, until the test ends, the requests the commands send that pass the
// read-only guard. The returned function reports reads (path and query), the number of
// dry-runs and any other request (a write), by method and path.
func CountRequests(t *testing.T) func() (reads []string, dryRuns int, writes []string) {
	var mu sync.Mutex
	var r, w []string
	var d int
	wrapTransport = func(next http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			mu.Lock()
			switch {
			case req.Method == http.MethodGet:
				r = append(r, req.URL.Path+"?"+req.URL.RawQuery)
			case !cluster.IsWrite(req):
				d++
			default:
				w = append(w, fmt.Sprintf("%s %s", req.Method, req.URL.Path))
			}
			mu.Unlock()
			return next.RoundTrip(req)
		})
	}
	t.Cleanup(func() { wrapTransport = nil })
	return func() ([]string, int, []string) {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(r), d, slices.Clone(w)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
