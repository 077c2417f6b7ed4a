package manifests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
	"regexp"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/config"
	"gantry.dev/gantry/internal/yamltext"
)

// crdFiles indexes the CRDs Gantry ships by group and kind, and schemas parses one when a kind
// of it is first read. Parsing all of them (1.2 MB of YAML) cost more than a whole `gantry
// render` of a blueprint's test case; the index reads each file's group and kind with a
// pattern instead, which holds for CRD files as controller-gen and Gateway API write them.
var (
	crdFiles = sync.OnceValues(func() (map[schema.GroupKind]string, error) {
		return indexCRDs(config.CRDs)
	})
	crdSchemas sync.Map // file name -> func() (map[schema.GroupVersionKind]*structuralschema.Structural, error)
)

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

// schemaFor returns the structural schema of a kind's version, nil when Gantry ships no CRD
// for it.
func schemaFor(gvk schema.GroupVersionKind) (*structuralschema.Structural, error) {
	files, err := crdFiles()
	if err != nil {
		return nil, err
	}
	f, ok := files[gvk.GroupKind()]
	if !ok {
		return nil, nil
	}
	load, _ := crdSchemas.LoadOrStore(f, sync.OnceValues(func() (map[schema.GroupVersionKind]*structuralschema.Structural, error) {
		return loadSchemas(config.CRDs, f)
	}))
	all, err := load.(func() (map[schema.GroupVersionKind]*structuralschema.Structural, error))()
	if err != nil {
		return nil, err
	}
	return all[gvk], nil
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
func withDefaults(doc string, gvk schema.GroupVersionKind, into any) error {
	s, err := schemaFor(gvk)
	if err != nil {
		return fmt.Errorf("CRD schema of %s: %w", gvk.Kind, err)
	}
	if s == nil {
		return nil
	}
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		return err
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
