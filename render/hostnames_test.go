package render_test

import (
	"slices"
	"testing"

	"gantry.dev/gantry/render"
)

func TestComputeHostnames(t *testing.T) {
	type lr = render.ListenerRoutes
	tests := []struct {
		name         string
		listeners    []lr
		union, inter []string
	}{{
		name:      "wildcard listener, specific routes",
		listeners: []lr{{Hostname: "*.example.com", Routes: [][]string{{"b.example.com"}, {"a.example.com", "b.example.com"}}}},
		union:     []string{"*.example.com", "a.example.com", "b.example.com"},
		inter:     []string{"a.example.com", "b.example.com"},
	}, {
		name:      "route wildcard narrower than the listener's",
		listeners: []lr{{Hostname: "*.example.com", Routes: [][]string{{"*.api.example.com"}}}},
		union:     []string{"*.api.example.com", "*.example.com"},
		inter:     []string{"*.api.example.com"},
	}, {
		name:      "route wildcard broader than the listener's hostname",
		listeners: []lr{{Hostname: "foo.example.com", Routes: [][]string{{"*.example.com"}}}},
		union:     []string{"*.example.com", "foo.example.com"},
		inter:     []string{"foo.example.com"},
	}, {
		name:      "route wildcard broader than the listener's wildcard",
		listeners: []lr{{Hostname: "*.api.example.com", Routes: [][]string{{"*.example.com"}}}},
		union:     []string{"*.api.example.com", "*.example.com"},
		inter:     []string{"*.api.example.com"},
	}, {
		name:      "same wildcard on both",
		listeners: []lr{{Hostname: "*.example.com", Routes: [][]string{{"*.example.com"}}}},
		union:     []string{"*.example.com"},
		inter:     []string{"*.example.com"},
	}, {
		name:      "no listener hostname: the routes' hostnames",
		listeners: []lr{{Routes: [][]string{{"c.example.com", "a.example.com"}, {"b.example.com"}, {}}}},
		union:     []string{"a.example.com", "b.example.com", "c.example.com"},
		inter:     []string{"a.example.com", "b.example.com", "c.example.com"},
	}, {
		name:      "no hostname anywhere",
		listeners: []lr{{Routes: [][]string{{}}}},
	}, {
		name:      "route without hostnames: the listener's",
		listeners: []lr{{Hostname: "a.example.com", Routes: [][]string{{}}}},
		union:     []string{"a.example.com"},
		inter:     []string{"a.example.com"},
	}, {
		name:      "listener without routes serves nothing",
		listeners: []lr{{Hostname: "a.example.com"}},
		union:     []string{"a.example.com"},
	}, {
		name:      "route hostnames that do not match stay in the union only",
		listeners: []lr{{Hostname: "*.example.com", Routes: [][]string{{"a.example.com", "other.org"}}}},
		union:     []string{"*.example.com", "a.example.com", "other.org"},
		inter:     []string{"a.example.com"},
	}, {
		name:      "a wildcard matches neither its bare suffix nor a longer label",
		listeners: []lr{{Hostname: "*.example.com", Routes: [][]string{{"example.com", "badexample.com"}}}},
		union:     []string{"*.example.com", "badexample.com", "example.com"},
	}, {
		name:      "a wildcard matches several labels",
		listeners: []lr{{Hostname: "*.example.com", Routes: [][]string{{"a.b.example.com"}}}},
		union:     []string{"*.example.com", "a.b.example.com"},
		inter:     []string{"a.b.example.com"},
	}, {
		name: "duplicates across listeners and routes",
		listeners: []lr{
			{Hostname: "b.example.com", Routes: [][]string{{}}},
			{Hostname: "a.example.com", Routes: [][]string{{}, {"a.example.com"}}},
			{Hostname: "a.example.com", Routes: [][]string{{"a.example.com", "a.example.com"}}},
		},
		union: []string{"a.example.com", "b.example.com"},
		inter: []string{"a.example.com", "b.example.com"},
	}, {
		name: "intersection drops every hostname a wildcard in it covers",
		listeners: []lr{
			{Hostname: "x.a.example.com", Routes: [][]string{{}}},
			{Hostname: "a.example.com", Routes: [][]string{{}}},
			{Hostname: "*.a.example.com", Routes: [][]string{{}}},
			{Hostname: "*.example.com", Routes: [][]string{{}}},
			{Hostname: "example.com", Routes: [][]string{{}}},
		},
		union: []string{"*.a.example.com", "*.example.com", "a.example.com", "example.com", "x.a.example.com"},
		inter: []string{"*.example.com", "example.com"},
	}, {
		name: "a listener's wildcard covers another listener's route hostnames",
		listeners: []lr{
			{Hostname: "*.example.com", Routes: [][]string{{}}},
			{Routes: [][]string{{"shop.example.com", "shop.example.org"}}},
		},
		union: []string{"*.example.com", "shop.example.com", "shop.example.org"},
		inter: []string{"*.example.com", "shop.example.org"},
	}, {
		name: "nothing",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render.ComputeHostnames(tt.listeners)
			if !slices.Equal(got.Union, tt.union) || !slices.Equal(got.Intersection, tt.inter) {
				t.Errorf("ComputeHostnames =\nUnion        %q\nIntersection %q\nwant\nUnion        %q\nIntersection %q",
					got.Union, got.Intersection, tt.union, tt.inter)
			}
		})
	}
}
