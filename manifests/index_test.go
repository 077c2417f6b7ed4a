package manifests

import (
	"io/fs"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"gantry.dev/gantry/config"
)

// TestCRDIndex: the pattern-based index of the shipped CRDs names, for every CRD, the file
// a full parse finds it in, and nothing else.
func TestCRDIndex(t *testing.T) {
	index, err := indexCRDs(config.CRDs)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := fs.Glob(config.CRDs, "*/*.yaml")
	parsed := map[schema.GroupKind]string{}
	for _, f := range files {
		all, err := loadSchemas(config.CRDs, f)
		if err != nil {
			t.Fatal(err)
		}
		for gvk := range all {
			parsed[gvk.GroupKind()] = f
		}
	}
	if len(parsed) < 6 {
		t.Fatalf("only %d CRDs parsed", len(parsed))
	}
	for gk, f := range parsed {
		if index[gk] != f {
			t.Errorf("index: %s in %q, parse: in %q", gk, index[gk], f)
		}
	}
	if len(index) != len(parsed) {
		t.Errorf("index has %d kinds, the parse %d", len(index), len(parsed))
	}
}
