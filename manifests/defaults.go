package manifests

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"gantry.dev/gantry/config"
	"gantry.dev/gantry/render"
)

// schemas are the structural schemas of every served version of the CRDs Gantry ships, by
// kind: what the API server defaults a custom resource from.
var schemas = sync.OnceValues(func() (map[schema.GroupVersionKind]*structuralschema.Structural, error) {
	return loadSchemas(config.CRDs)
})

func loadSchemas(fsys fs.FS) (map[schema.GroupVersionKind]*structuralschema.Structural, error) {
	out := map[schema.GroupVersionKind]*structuralschema.Structural{}
	files, err := fs.Glob(fsys, "*/*.yaml")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		docs, _ := render.SplitDocuments(string(data))
		for _, doc := range docs {
			var head struct{ Kind string }
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil || head.Kind != "CustomResourceDefinition" {
				continue // e.g. Gateway API's ValidatingAdmissionPolicy
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
	}
	return out, nil
}

// withDefaults decodes doc, already decoded strictly into into, again after applying the
// defaults the API server would apply from its CRD schema, so that `gantry render` sees what
// the controller reads from the cluster (a listener's allowedRoutes, a parentRef's kind). A
// kind Gantry ships no CRD for is left as it is.
func withDefaults(doc string, gvk schema.GroupVersionKind, into any) error {
	all, err := schemas()
	if err != nil {
		return fmt.Errorf("CRD schemas: %w", err)
	}
	s, ok := all[gvk]
	if !ok {
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
