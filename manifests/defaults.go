package manifests

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/config"
	"gantry.dev/gantry/internal/yamltext"
)

// crdFiles indexes the CRDs Gantry ships by group and kind, and loadSchemas parses one. Parsing
// all of them (1.2 MB of YAML) cost more than a whole `gantry render` of a blueprint's test
// case; the index reads each file's group and kind with a pattern instead, which holds for CRD
// files as controller-gen and Gateway API write them.
//
// Parsing even the Gateway CRD's file alone (190 kB) was a third of the CPU of a `gantry render`
// of one Gateway, to apply a dozen defaults. So the render reads crddefaults.json instead:
// every shipped CRD's schemas cut to the nodes that lead to a default (defaultsOnly), generated
// from the CRD files by TestCRDDefaultsFile (`go test ./manifests -run TestCRDDefaultsFile
// -update`, which `make generate` runs), which fails when the file is out of date.
var crdFiles = sync.OnceValues(func() (map[schema.GroupKind]string, error) {
	return indexCRDs(config.CRDs)
})

//go:embed crddefaults.json
var crdDefaultsJSON []byte

// crdDefaults are the schemas of crddefaults.json, by the group, version and kind they default.
var crdDefaults = sync.OnceValues(func() (map[schema.GroupVersionKind]*structuralschema.Structural, error) {
	return parseDefaults(crdDefaultsJSON)
})

var (
	crdGroup = regexp.MustCompile(`(?m)^  group: (\S+)$`)
	crdKind  = regexp.MustCompile(`(?m)^    kind: (\S+)$`) // spec.names.kind, the first at that depth
)

func indexCRDs(fsys fs.FS) (map[schema.GroupKind]string, error) {
	files, err := fs.Glob(fsys, "*/*.yaml")
	if err != nil {
		return nil, err
	}
	out := map[schema.GroupKind]string{}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		g, k := crdGroup.FindSubmatch(data), crdKind.FindSubmatch(data)
		if g == nil || k == nil || !bytes.Contains(data, []byte("kind: CustomResourceDefinition")) {
			continue // e.g. Gateway API's ValidatingAdmissionPolicy
		}
		out[schema.GroupKind{Group: string(g[1]), Kind: string(k[1])}] = f
	}
	return out, nil
}

// schemaFor returns the schema of a kind's version that defaulting.Default needs (only the
// nodes on the way to a default; empty when its CRD declares none), nil when Gantry ships no
// CRD for it.
func schemaFor(gvk schema.GroupVersionKind) (*structuralschema.Structural, error) {
	all, err := crdDefaults()
	if err != nil {
		return nil, err
	}
	return all[gvk], nil
}

// defaultsNode is a node of crddefaults.json: what defaulting.Default reads of a structural
// schema node.
type defaultsNode struct {
	Default              json.RawMessage          `json:"default,omitempty"`
	Nullable             bool                     `json:"nullable,omitempty"`
	Properties           map[string]*defaultsNode `json:"properties,omitempty"`
	Items                *defaultsNode            `json:"items,omitempty"`
	AdditionalProperties *defaultsNode            `json:"additionalProperties,omitempty"`
}

// defaultsOnly cuts s to what defaulting.Default reads on the way to a default: nil when no
// node of s has one. A node that keeps additionalProperties keeps all its properties, since
// Default gives a key that is no property to additionalProperties.
func defaultsOnly(s *structuralschema.Structural) (*defaultsNode, error) {
	if s == nil {
		return nil, nil
	}
	n := &defaultsNode{Nullable: s.Nullable}
	keep := false
	if s.Default.Object != nil {
		b, err := json.Marshal(s.Default.Object)
		if err != nil {
			return nil, err
		}
		n.Default, keep = b, true
	}
	var err error
	if n.Items, err = defaultsOnly(s.Items); err != nil {
		return nil, err
	}
	if s.AdditionalProperties != nil {
		if n.AdditionalProperties, err = defaultsOnly(s.AdditionalProperties.Structural); err != nil {
			return nil, err
		}
	}
	keep = keep || n.Items != nil || n.AdditionalProperties != nil
	for k, p := range s.Properties {
		c, err := defaultsOnly(&p)
		if err != nil {
			return nil, err
		}
		if c == nil && n.AdditionalProperties != nil {
			c = &defaultsNode{Nullable: p.Nullable}
		}
		if c != nil {
			if n.Properties == nil {
				n.Properties = map[string]*defaultsNode{}
			}
			n.Properties[k] = c
			keep = true
		}
	}
	if !keep {
		return nil, nil
	}
	return n, nil
}

// parseDefaults reads crddefaults.json: "group/version, Kind=kind" to the defaults' schema.
func parseDefaults(data []byte) (map[schema.GroupVersionKind]*structuralschema.Structural, error) {
	var file map[string]*defaultsNode
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("crddefaults.json: %w", err)
	}
	out := make(map[schema.GroupVersionKind]*structuralschema.Structural, len(file))
	for key, n := range file {
		gv, kind, ok := strings.Cut(key, ", Kind=")
		if !ok {
			return nil, fmt.Errorf("crddefaults.json: key %q is not group/version, Kind=kind", key)
		}
		v, err := schema.ParseGroupVersion(gv)
		if err != nil {
			return nil, fmt.Errorf("crddefaults.json: %w", err)
		}
		s, err := n.structural()
		if err != nil {
			return nil, fmt.Errorf("crddefaults.json: %s: %w", key, err)
		}
		out[v.WithKind(kind)] = s
	}
	return out, nil
}

func (n *defaultsNode) structural() (*structuralschema.Structural, error) {
	if n == nil {
		return nil, nil
	}
	s := &structuralschema.Structural{Generic: structuralschema.Generic{Nullable: n.Nullable}}
	if len(n.Default) > 0 {
		// JSON numbers as int64 or float64, as the API server decodes a CRD's defaults.
		if err := kjson.Unmarshal(n.Default, &s.Default.Object); err != nil {
			return nil, err
		}
	}
	var err error
	if s.Items, err = n.Items.structural(); err != nil {
		return nil, err
	}
	if n.AdditionalProperties != nil {
		a, err := n.AdditionalProperties.structural()
		if err != nil {
			return nil, err
		}
		s.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: a, Bool: true}
	}
	for k, p := range n.Properties {
		c, err := p.structural()
		if err != nil {
			return nil, err
		}
		if s.Properties == nil {
			s.Properties = make(map[string]structuralschema.Structural, len(n.Properties))
		}
		s.Properties[k] = *c
	}
	return s, nil
}

// loadSchemas reads the structural schema of every served version of the CRDs in file f.
func loadSchemas(fsys fs.FS, f string) (map[schema.GroupVersionKind]*structuralschema.Structural, error) {
	out := map[schema.GroupVersionKind]*structuralschema.Structural{}
	data, err := fs.ReadFile(fsys, f)
	if err != nil {
		return nil, err
	}
	docs, _ := yamltext.SplitDocuments(string(data))
	for _, doc := range docs {
		var head struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil || head.Kind != "CustomResourceDefinition" {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal([]byte(doc), crd); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			internal := &apiextensions.JSONSchemaProps{}
			if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
				return nil, fmt.Errorf("%s: version %s: %w", f, v.Name, err)
			}
			s, err := structuralschema.NewStructural(internal)
			if err != nil {
				return nil, fmt.Errorf("%s: version %s: %w", f, v.Name, err)
			}
			out[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = s
		}
	}
	return out, nil
}

// withDefaults decodes doc, already decoded strictly into into, again after applying the
// defaults the API server would apply from its CRD schema, so that `gantry render` sees what
// the controller reads from the cluster (a listener's allowedRoutes, a parentRef's kind). A
// kind Gantry ships no CRD for is left as it is.
func withDefaults(doc document, gvk schema.GroupVersionKind, into any) error {
	s, err := schemaFor(gvk)
	if err != nil {
		return fmt.Errorf("CRD schema of %s: %w", gvk.Kind, err)
	}
	if s == nil {
		return nil
	}
	j := doc.json
	if j == nil {
		if j, err = yaml.YAMLToJSON([]byte(doc.text)); err != nil {
			return err
		}
	}
	var obj map[string]any
	if err := json.Unmarshal(j, &obj); err != nil {
		return err
	}
	defaulting.Default(obj, s)
	if j, err = json.Marshal(obj); err != nil {
		return err
	}
	v := reflect.ValueOf(into).Elem()
	v.SetZero()
	return json.Unmarshal(j, into)
}
