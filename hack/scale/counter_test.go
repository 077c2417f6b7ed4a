package main

import (
	"net/http"
	"net/url"
	"testing"
)

// TestClassify: the harness's write counts are only as good as its reading of request paths.
func TestClassify(t *testing.T) {
	tests := []struct {
		method, path, query, contentType string
		verb, resource                   string
	}{
		{"GET", "/api/v1/namespaces", "", "", "list", "namespaces"},
		{"GET", "/api/v1/namespaces/a", "", "", "get", "namespaces"},
		{"GET", "/api/v1/namespaces/a/services", "watch=true", "", "watch", "services"},
		{"GET", "/apis/apps/v1/namespaces/a/deployments/web", "", "", "get", "deployments"},
		{"GET", "/apis/apps/v1/deployments", "", "", "list", "deployments"},
		{"PATCH", "/apis/apps/v1/namespaces/a/deployments/web", "fieldManager=gantry", "application/apply-patch+yaml", "apply", "deployments"},
		{"PATCH", "/apis/gateway.networking.k8s.io/v1/namespaces/a/gateways/web/status", "", "application/merge-patch+json", "patch", "gateways/status"},
		{"PATCH", "/apis/gateway.gantry.dev/v1alpha1/gatewayclassblueprints/proxy/status", "", "application/merge-patch+json", "patch", "gatewayclassblueprints/status"},
		{"POST", "/apis/events.k8s.io/v1/namespaces/a/events", "", "", "create", "events"},
		{"DELETE", "/api/v1/namespaces/a/configmaps/x", "", "", "delete", "configmaps"},
		// A server-side dry-run writes nothing: it is counted apart from the writes.
		{"PATCH", "/api/v1/namespaces/a/configmaps/x", "dryRun=All&fieldManager=gantry", "application/apply-patch+yaml", "dry-run apply", "configmaps"},
	}
	for _, tt := range tests {
		r := &http.Request{Method: tt.method, URL: &url.URL{Path: tt.path, RawQuery: tt.query}, Header: http.Header{}}
		r.Header.Set("Content-Type", tt.contentType)
		if v, res := verb(r), resource(tt.path); v != tt.verb || res != tt.resource {
			t.Errorf("%s %s?%s = %s %s, want %s %s", tt.method, tt.path, tt.query, v, res, tt.verb, tt.resource)
		}
	}
}

func TestDryRunsAreNotWrites(t *testing.T) {
	counts := map[string]int{"apply configmaps": 2, "dry-run apply configmaps": 3, "get configmaps": 1}
	if w, _, r := split(counts); w != 2 || r != 1 {
		t.Errorf("writes, reads = %d, %d; want 2, 1", w, r)
	}
	if n := dryRuns(counts); n != 3 {
		t.Errorf("dry-runs = %d, want 3", n)
	}
}
