package render_test

import (
	"slices"
	"testing"

	"gantry.dev/gantry/render"
)

func TestComputeHostnames(t *testing.T) {
	type lr = render.ListenerRoutes
	tests := []struct {
		name            string
		listeners       []lr
		union, attached []string
	}{{
		name:      "wildcard listener, specific routes",
		listeners: []lr{{Hostname: "*.example.com", Routes: [][]string{{"b.example.com"}, {"a.example.com", "b.example.com"}}}},
		union:     []string{"*.example.com", "a.example.com", "b.example.com"},
		attached:  []string{"a.example.com", "b.example.com"},
	}, {
		name:      "route wildcard narrower than the listener's",
		listeners: []lr{{Hostname: "*.example.com", Routes: [][]string{{"*.api.example.com"}}}},
		union:     []string{"*.api.example.com", "*.example.com"},
		attached:  []string{"*.api.example.com"},
	}, {
		name:      "route wildcard broader than the listener's hostname",
		listeners: []lr{{Hostname: "foo.example.com", Routes: [][]string{{"*.example.com"}}}},
		union:     []string{"foo.example.com"}, // what the listener serves, not the route's wildcard
		attached:  []string{"foo.example.com"},
	}, {
		name:      "route wildcard broader than the listener's wildcard",
		listeners: []lr{{Hostname: "*.api.example.com", Routes: [][]string{{"*.example.com"}}}},
		union:     []string{"*.api.example.com"},
		attached:  []string{"*.api.example.com"},
	}, {
		name:      "same wildcard on both",
		listeners: []lr{{Hostname: "*.example.com", Routes: [][]string{{"*.example.com"}}}},
		union:     []string{"*.example.com"},
		attached:  []string{"*.example.com"},
	}, {
		name:      "no listener hostname: the routes' hostnames",
		listeners: []lr{{Routes: [][]string{{"c.example.com", "a.example.com"}, {"b.example.com"}, {}}}},
		union:     []string{"a.example.com", "b.example.com", "c.example.com"},
		attached:  []string{"a.example.com", "b.example.com", "c.example.com"},
	}, {
		name:      "no hostname anywhere",
		listeners: []lr{{Routes: [][]string{{}}}},
	}, {
		name:      "route without hostnames: the listener's",
		listeners: []lr{{Hostname: "a.example.com", Routes: [][]string{{}}}},
		union:     []string{"a.example.com"},
		attached:  []string{"a.example.com"},
	}, {
		name:      "listener without routes serves nothing",
		listeners: []lr{{Hostname: "a.example.com"}},
		union:     []string{"a.example.com"},
	}, {
		// Issue 19: a tenant's route hostname no listener serves put any name (another
		// tenant's, a bank's) into the shared certificate. It reaches no set.
		name:      "route hostnames that do not match reach no set",
		listeners: []lr{{Hostname: "*.example.com", Routes: [][]string{{"a.example.com", "other.org"}}}},
		union:     []string{"*.example.com", "a.example.com"},
		attached:  []string{"a.example.com"},
	}, {
		name:      "a wildcard matches neither its bare suffix nor a longer label",
		listeners: []lr{{Hostname: "*.example.com", Routes: [][]string{{"example.com", "badexample.com"}}}},
		union:     []string{"*.example.com"},
	}, {
		name:      "a wildcard matches several labels",
		listeners: []lr{{Hostname: "*.example.com", Routes: [][]string{{"a.b.example.com"}}}},
		union:     []string{"*.example.com", "a.b.example.com"},
		attached:  []string{"a.b.example.com"},
	}, {
		name: "duplicates across listeners and routes",
		listeners: []lr{
			{Hostname: "b.example.com", Routes: [][]string{{}}},
			{Hostname: "a.example.com", Routes: [][]string{{}, {"a.example.com"}}},
			{Hostname: "a.example.com", Routes: [][]string{{"a.example.com", "a.example.com"}}},
		},
		union:    []string{"a.example.com", "b.example.com"},
		attached: []string{"a.example.com", "b.example.com"},
	}, {
		name: "attached drops every hostname a wildcard in it covers",
		listeners: []lr{
			{Hostname: "x.a.example.com", Routes: [][]string{{}}},
			{Hostname: "a.example.com", Routes: [][]string{{}}},
			{Hostname: "*.a.example.com", Routes: [][]string{{}}},
			{Hostname: "*.example.com", Routes: [][]string{{}}},
			{Hostname: "example.com", Routes: [][]string{{}}},
		},
		union:    []string{"*.a.example.com", "*.example.com", "a.example.com", "example.com", "x.a.example.com"},
		attached: []string{"*.example.com", "example.com"},
	}, {
		name: "a listener's wildcard covers another listener's route hostnames",
		listeners: []lr{
			{Hostname: "*.example.com", Routes: [][]string{{}}},
			{Routes: [][]string{{"shop.example.com", "shop.example.org"}}},
		},
		union:    []string{"*.example.com", "shop.example.com", "shop.example.org"},
		attached: []string{"*.example.com", "shop.example.org"},
	}, {
		name: "nothing",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render.ComputeHostnames(tt.listeners)
			if !slices.Equal(got.Union, tt.union) || !slices.Equal(got.Attached, tt.attached) {
				t.Errorf("ComputeHostnames =\nUnion    %q\nAttached %q\nwant\nUnion    %q\nAttached %q",
					got.Union, got.Attached, tt.union, tt.attached)
			}
		})
	}
}

// TestIntersectionIsBifrosts: .Hostnames.Intersection keeps bifrost-gateway-controller's
// contract: Union without the names a wildcard in it already covers — the fewest names a
// certificate for the Gateway needs, listener hostnames included before any route attaches.
// A wildcard covers exactly one label, as in a certificate.
func TestIntersectionIsBifrosts(t *testing.T) {
	type lr = render.ListenerRoutes
	tests := []struct {
		name         string
		listeners    []lr
		intersection []string
	}{{
		name:         "listener hostnames without routes",
		listeners:    []lr{{Hostname: "a.example.com"}, {Hostname: "b.example.org"}},
		intersection: []string{"a.example.com", "b.example.org"},
	}, {
		name:         "a wildcard covers one label",
		listeners:    []lr{{Hostname: "*.example.com", Routes: [][]string{{"foo.example.com", "example.com", "a.b.example.com", "badexample.com"}}}},
		intersection: []string{"*.example.com", "a.b.example.com"}, // example.com, badexample.com: not served
	}, {
		name:         "a wildcard does not cover a narrower wildcard",
		listeners:    []lr{{Hostname: "*.example.com"}, {Hostname: "*.a.example.com"}, {Hostname: "x.a.example.com"}},
		intersection: []string{"*.a.example.com", "*.example.com"},
	}, {
		name:         "route hostnames that match no listener are not here",
		listeners:    []lr{{Hostname: "*.example.com", Routes: [][]string{{"a.example.com", "other.org"}}}},
		intersection: []string{"*.example.com"},
	}, {
		name:         "a listener without hostname: the routes' names",
		listeners:    []lr{{Routes: [][]string{{"c.example.com", "*.example.com"}, {"b.example.org"}}}},
		intersection: []string{"*.example.com", "b.example.org"},
	}, {
		name: "nothing",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render.ComputeHostnames(tt.listeners)
			if !slices.Equal(got.Intersection, tt.intersection) {
				t.Errorf("Intersection = %q, want %q", got.Intersection, tt.intersection)
			}
			// The same listeners in the other order give the same names.
			rev := slices.Clone(tt.listeners)
			slices.Reverse(rev)
			if again := render.ComputeHostnames(rev); !slices.Equal(again.Intersection, got.Intersection) || !slices.Equal(again.Attached, got.Attached) {
				t.Errorf("reversed listeners: Intersection %q, Attached %q; want %q, %q", again.Intersection, again.Attached, got.Intersection, got.Attached)
			}
		})
	}
}
