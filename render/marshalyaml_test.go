package render_test

import (
	"math"
	"testing"

	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/render"
)

// TestMarshalYAMLIsSigsYAML: `gantry render` prints objects with MarshalYAML; it must print
// what sigs.k8s.io/yaml.Marshal printed, trailing newline included, for whole objects as a
// render returns them and for values the direct path declines (toyaml_test.go covers the
// strings, numbers and keys one by one).
func TestMarshalYAMLIsSigsYAML(t *testing.T) {
	objects := []any{
		map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{
			"name": "web", "namespace": "team-a", "labels": map[string]any{"gateway.gantry.dev/template": "deployment", "a10": "x", "a2": "y"},
			"annotations": map[string]any{"example.com/lb": "internal, fast", "example.com/n": "123", "example.com/b": "true", "x": "multi\nline\n"},
		}, "spec": map[string]any{"replicas": int64(2), "ratio": 0.5, "template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "proxy", "image": "docker.io/envoyproxy/envoy:v1.33.0", "args": []any{"--x", "*.example.com", ""}}},
		}}}},
		map[string]any{"empty": map[string]any{}, "list": []any{}, "null": nil},
		map[string]any{"nilmap": map[string]any(nil), "nillist": []any(nil)}, // null in JSON, declined
		map[string]any{"whole": 1e6, "bad": "\xff"},                          // declined
		map[string]any{"nan": math.NaN()},                                    // an error both ways
	}
	for _, o := range objects {
		got, gotErr := render.MarshalYAML(o)
		want, wantErr := yaml.Marshal(o)
		if (gotErr == nil) != (wantErr == nil) || string(got) != string(want) {
			t.Errorf("MarshalYAML(%v) = %q, %v; yaml.Marshal gives %q, %v", o, got, gotErr, want, wantErr)
		}
	}
}
