package cluster

import (
	"fmt"
	"net/http"

	"k8s.io/client-go/rest"
)

// ReadOnly returns a copy of cfg whose requests can only read: a request that could change
// the cluster (any method but GET, HEAD and OPTIONS) is refused before it is sent, unless it
// is a server-side dry-run (dryRun=All), which the API server checks and then discards.
func ReadOnly(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return readOnly{next: rt} })
	return cfg
}

type readOnly struct{ next http.RoundTripper }

func (r readOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if !IsWrite(req) {
		return r.next.RoundTrip(req)
	}
	if req.Body != nil {
		req.Body.Close()
	}
	return nil, fmt.Errorf("gantry only reads the cluster: refused %s %s", req.Method, req.URL.Path)
}

// IsWrite reports whether a request could change the cluster.
func IsWrite(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	for _, v := range req.URL.Query()["dryRun"] {
		if v == "All" {
			return false
		}
	}
	return true
}
