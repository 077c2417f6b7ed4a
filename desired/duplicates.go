package desired

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"gantry.dev/gantry/render"
)

// objectKey identifies an object on the API server: its version is not part of it, so that
// apps/v1 and apps/v1beta1 Deployments of one name are one object.
type objectKey struct {
	schema.GroupKind
	namespace, name string
}

func keyOf(obj map[string]any) objectKey {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	meta, _ := obj["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	gv, _ := schema.ParseGroupVersion(apiVersion) // render checked it parses
	return objectKey{GroupKind: schema.GroupKind{Group: gv.Group, Kind: kind}, namespace: ns, name: name}
}

func (k objectKey) String() string {
	kind := k.Kind
	if k.Group != "" {
		kind += "." + k.Group
	}
	if k.namespace == "" {
		return kind + " " + k.name
	}
	return kind + " " + k.namespace + "/" + k.name
}

// renderer is who rendered an object: a template, for the Gateway or for one of its routes.
type renderer struct {
	template string // the template's field path in the blueprint
	route    string // "HTTPRoute ns/name", empty for the Gateway's own templates
}

func (r renderer) String() string {
	if r.route == "" {
		return r.template
	}
	return r.template + " for " + r.route
}

// claims records which template renders each object of a Gateway, so that no object is
// rendered twice: two renderers of one object would overwrite each other on every reconcile.
type claims map[objectKey]renderer

// claim checks that no object of objs is claimed already (by another render, or earlier in
// objs) and then claims them all. On a collision it claims nothing and says which object and
// which two templates.
func (c claims) claim(blueprint, prefix, route string, objs []render.Object) error {
	mine := make(map[objectKey]renderer, len(objs))
	for _, o := range objs {
		k := keyOf(o.Object)
		by := renderer{template: prefix + o.Template, route: route}
		if first, ok := mine[k]; ok {
			return fmt.Errorf("blueprint %s: %s is rendered twice, by %s and by %s", blueprint, k, first, by)
		}
		if first, ok := c[k]; ok {
			return fmt.Errorf("blueprint %s: %s of %s collides with the one %s renders", blueprint, k, by, first)
		}
		mine[k] = by
	}
	for k, by := range mine {
		c[k] = by
	}
	return nil
}
