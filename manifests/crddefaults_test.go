package manifests

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/config"
	"gantry.dev/gantry/internal/yamltext"
)

var update = flag.Bool("update", false, "rewrite crddefaults.json from the shipped CRDs")

// fullSchemas parses every shipped CRD, as the render did before crddefaults.json.
func fullSchemas(t *testing.T) map[schema.GroupVersionKind]*structuralschema.Structural {
	t.Helper()
	files, _ := fs.Glob(config.CRDs, "*/*.yaml")
	out := map[schema.GroupVersionKind]*structuralschema.Structural{}
	for _, f := range files {
		all, err := loadSchemas(config.CRDs, f)
		if err != nil {
			t.Fatal(err)
		}
		for gvk, s := range all {
			out[gvk] = s
		}
	}
	return out
}

// TestCRDDefaultsFile: crddefaults.json is what the shipped CRDs give, cut to their defaults;
// -update rewrites it.
func TestCRDDefaultsFile(t *testing.T) {
	file := map[string]*defaultsNode{}
	for gvk, s := range fullSchemas(t) {
		n, err := defaultsOnly(s)
		if err != nil {
			t.Fatal(err)
		}
		if n == nil {
			// Listed all the same: a kind Gantry ships a CRD for is decoded as the defaulted
			// ones are (withDefaults), defaults or not.
			n = &defaultsNode{}
		}
		file[gvk.String()] = n
	}
	want, err := json.MarshalIndent(file, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile("crddefaults.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(crdDefaultsJSON, want) {
		t.Fatal("crddefaults.json is out of date with config/crd and config/gateway-api: run `go test ./manifests -run TestCRDDefaultsFile -update` (make generate does)")
	}
	if len(file) < 6 {
		t.Errorf("only %d kinds listed", len(file))
	}
}

// TestCRDDefaultsAsTheFullSchema: the cut schemas default every object of a shipped kind in the
// repository's samples, blueprints' test cases and docs exactly as the full CRD schemas do,
// and an object with every list and map of the schema present.
func TestCRDDefaultsAsTheFullSchema(t *testing.T) {
	full := fullSchemas(t)
	cut, err := crdDefaults()
	if err != nil {
		t.Fatal(err)
	}
	for gvk := range cut {
		if full[gvk] == nil {
			t.Errorf("crddefaults.json has %s, which no shipped CRD serves", gvk)
		}
	}
	check := func(where string, obj map[string]any) {
		gvk := schema.FromAPIVersionAndKind(obj["apiVersion"].(string), obj["kind"].(string))
		f := full[gvk]
		if f == nil {
			return
		}
		a, b := runtime.DeepCopyJSON(obj), runtime.DeepCopyJSON(obj)
		defaulting.Default(a, f)
		defaulting.Default(b, cut[gvk])
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: %s defaulted by its CRD:\n%v\nby crddefaults.json:\n%v", where, gvk, a, b)
		}
	}
	n := 0
	for _, root := range []string{"../samples", "../blueprints", "../docs", "../conformance"} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			docs, _ := yamltext.SplitDocuments(string(data))
			for _, doc := range docs {
				var obj map[string]any
				if yaml.Unmarshal([]byte(doc), &obj) != nil || obj == nil {
					continue
				}
				if _, ok := obj["apiVersion"].(string); !ok {
					continue
				}
				if _, ok := obj["kind"].(string); !ok {
					continue
				}
				check(path, obj)
				n++
			}
			return nil
		})
	}
	if n < 50 {
		t.Errorf("only %d objects checked", n)
	}
	// Every kind with an object holding one of each list and map the schema has, with nothing
	// set: where defaults land.
	for gvk, s := range full {
		obj := skeleton(s, 0).(map[string]any)
		obj["apiVersion"], obj["kind"] = gvk.GroupVersion().String(), gvk.Kind
		check("skeleton", obj)
	}
}

// skeleton is an object of schema s with every object property present down to a depth, a list
// of one such item for each array, and one key for each map.
func skeleton(s *structuralschema.Structural, depth int) any {
	if s == nil || depth > 12 {
		return nil
	}
	switch s.Type {
	case "object":
		m := map[string]any{}
		for k, p := range s.Properties {
			if v := skeleton(&p, depth+1); v != nil {
				m[k] = v
			}
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
			if v := skeleton(s.AdditionalProperties.Structural, depth+1); v != nil {
				m["k"] = v
			}
		}
		return m
	case "array":
		if v := skeleton(s.Items, depth+1); v != nil {
			return []any{v}
		}
		return []any{}
	}
	return nil
}
