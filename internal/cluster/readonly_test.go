package cluster_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"gantry.dev/gantry/internal/cluster"
)

// TestReadOnly sends every kind of request through the guard to a server that records what
// reaches it: reads and dry-runs pass, anything else is refused before it is sent.
func TestReadOnly(t *testing.T) {
	var reached []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = append(reached, r.Method+" "+r.URL.RequestURI())
	}))
	defer srv.Close()
	rt, err := rest.TransportFor(cluster.ReadOnly(&rest.Config{Host: srv.URL}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method, uri string
		pass        bool
	}{
		{"GET", "/api/v1/namespaces", true},
		{"PATCH", "/apis/apps/v1/namespaces/a/deployments/web?dryRun=All&fieldManager=gantry", true},
		{"PATCH", "/apis/apps/v1/namespaces/a/deployments/web?fieldManager=gantry", false},
		{"POST", "/api/v1/namespaces", false},
		{"PUT", "/api/v1/namespaces/a", false},
		{"DELETE", "/api/v1/namespaces/a", false},
		{"DELETE", "/api/v1/namespaces/a?dryRun=None", false},
	} {
		reached = nil
		req, _ := http.NewRequest(c.method, srv.URL+c.uri, strings.NewReader("{}"))
		resp, err := rt.RoundTrip(req)
		if resp != nil {
			resp.Body.Close()
		}
		if got := err == nil && len(reached) == 1; got != c.pass {
			t.Errorf("%s %s: passed = %v (err %v, reached %v), want %v", c.method, c.uri, got, err, reached, c.pass)
		}
	}
}
