package render

import (
	"fmt"
	"math"
	"slices"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/internal/yamltext"
	"gantry.dev/gantry/precedence"
)

// parseDocument decodes one YAML document into JSON-typed values (int64, float64, string, bool,
// maps and lists), rejecting duplicate keys.
func parseDocument(doc string) (any, error) {
	lineNo := 0
	for at := 0; at < len(doc); {
		end := strings.IndexByte(doc[at:], '\n')
		if end < 0 {
			end = len(doc) - at
		}
		line := doc[at : at+end]
		lineNo++
		at += end + 1
		if !yamltext.IsMarker(line) {
			continue
		}
		if strings.HasPrefix(line, "...") && yamltext.Blank(doc[min(at, len(doc)):]) {
			continue // a document end with nothing after it loses nothing
		}
		return nil, fmt.Errorf("line %d starts another YAML document (%q); documents must be separated by a line holding only \"---\"",
			lineNo, strings.TrimSpace(line))
	}
	// Most documents are plain block YAML, which parseBlockYAML reads as yaml/v2 would, five
	// to ten times faster; it declines the rest.
	if v, ok := parseBlockYAML(doc); ok {
		return v, nil
	}
	return parseYAMLv2(doc)
}

// parseYAMLv2 decodes a document with Kubernetes' YAML parser (the one sigs.k8s.io/yaml
// uses), straight into Go values: the YAML → JSON → Go round trip of sigs.k8s.io/yaml was a
// third of a render's time.
func parseYAMLv2(doc string) (any, error) {
	var v any
	if err := yamlv2.UnmarshalStrict([]byte(doc), &v); err != nil {
		return nil, fmt.Errorf("error converting YAML to JSON: %w", ExplainYAML(err, doc))
	}
	return jsonValue(v)
}

// jsonValue turns what the YAML parser produced into the JSON types of unstructured objects:
// string keys, int64 or float64 numbers, and maps and lists of those.
func jsonValue(v any) (any, error) {
	switch v := v.(type) {
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			var key string
			switch k := k.(type) {
			case string:
				key = k
			case nil:
				key = "null"
			default:
				key = fmt.Sprint(k)
			}
			if _, dup := out[key]; dup {
				// `true:` and `"true":`, or `9090:` and `"9090":`: which one would win is
				// the chance of Go's map order.
				return nil, collision(v)
			}
			ev, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out[key] = ev
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			ev, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = ev
		}
		return out, nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%v is not a JSON number", v)
		}
		return precedence.Normalize(v), nil
	case int, int64, uint64, float32:
		return precedence.Normalize(v), nil
	case string, bool, nil:
		return v, nil
	default:
		return fmt.Sprint(v), nil
	}
}

// collision names the first JSON key (in sorted order) that two keys of m read as, so that
// the error is the same whatever order Go's map visits them in.
func collision(m map[any]any) error {
	seen := make(map[string]int, len(m))
	for k := range m {
		seen[yamltext.JSONKey(k)]++
	}
	var dups []string
	for k, n := range seen {
		if n > 1 {
			dups = append(dups, k)
		}
	}
	slices.Sort(dups)
	return fmt.Errorf("two keys of one mapping read as the JSON key %q (YAML reads one of them as a number, a bool or a null); quote keys that must be strings", dups[0])
}

// parseDocuments splits and parses text as objects does. On error it returns the 1-based
// number of the document that is not valid YAML.
func parseDocuments(text string) (parsed []any, doc int, err error) {
	docs, _ := yamltext.SplitDocuments(text)
	out := make([]any, len(docs))
	for i, d := range docs {
		v, err := parseDocument(d)
		if err != nil {
			return nil, i + 1, err
		}
		out[i] = v
	}
	return out, 0, nil
}

// parseStatus parses text as statusObject does: one document, or nothing.
func parseStatus(text string) ([]any, int, error) {
	if yamltext.Blank(text) {
		return nil, 0, nil
	}
	v, err := parseDocument(text)
	return []any{v}, 0, err
}

// objects turns one template's output into checked objects; check (nil when the render has
// no tenant strings) makes sure that tenant strings did not shape it.
func (b *Blueprint) objects(c *compiled, text string, in *Input, check *boundary.Check) ([]Object, error) {
	fail := func(doc int, origin, format string, args ...any) error {
		return &Error{Blueprint: b.Name, Template: c.field, Document: doc, Origin: origin, Msg: fmt.Sprintf(format, args...)}
	}
	parsed, doc, err := parseDocuments(text)
	if err := b.verify(check, c, text, parsed, doc, err, resourceOutput); err != nil {
		return nil, err
	}
	if err != nil {
		e := fail(doc, "", "output is not valid YAML: %v", err).(*Error)
		if docs, _ := yamltext.SplitDocuments(text); doc >= 1 && doc <= len(docs) {
			e.Output = docs[doc-1]
		}
		return nil, e
	}
	var out []Object
	var texts []string
	if in.KeepText {
		texts, _ = yamltext.SplitDocuments(text)
	}
	for i, v := range parsed {
		if v == nil {
			continue // an empty document
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fail(i+1, "", "a document must be an object, not %T", v)
		}
		if err := b.checkObject(obj, in); err != nil {
			return nil, fail(i+1, "", "%v", err)
		}
		o := Object{Template: c.key, Object: obj}
		if i < len(texts) {
			o.Text = texts[i]
		}
		out = append(out, o)
	}
	return out, nil
}

// checkObject requires a whole object and puts it in the right namespace.
func (b *Blueprint) checkObject(obj map[string]any, in *Input) error {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	switch {
	case apiVersion == "":
		return fmt.Errorf("object has no apiVersion")
	case kind == "":
		return fmt.Errorf("object has no kind")
	case name == "":
		return fmt.Errorf("%s has no metadata.name", kind)
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return fmt.Errorf("%s %s: %w", kind, name, err)
	}
	gvk := gv.WithKind(kind)
	namespaced, err := b.namespaced(gvk, in)
	if err != nil {
		return fmt.Errorf("%s %s: %w", kind, name, err)
	}
	ns, _ := meta["namespace"].(string)
	if !namespaced {
		if !b.clusterScoped[gvk.GroupKind()] {
			return fmt.Errorf("%s %s is cluster-scoped and the blueprint does not list %s in spec.clusterScopedKinds", kind, name, gvk.GroupKind())
		}
		if ns != "" {
			return fmt.Errorf("%s %s is cluster-scoped but names namespace %q", kind, name, ns)
		}
		return nil
	}
	if ns != "" && ns != in.Namespace {
		return fmt.Errorf("%s %s names namespace %q; objects rendered here must be in namespace %q", kind, name, ns, in.Namespace)
	}
	meta["namespace"] = in.Namespace
	return nil
}

// namespaced reports a kind's scope. The controller asks its RESTMapper (in.IsNamespaced);
// offline, a kind of a group the API server serves (the built-in groups, Gateway API, Gantry)
// is looked up in servedKinds, generated from a real API server, so that a kind it does not
// serve (a typo, `v1 List`) fails as it does in the controller. Kinds of other groups are
// namespaced unless a CRD in the input (in.CustomKinds) or the blueprint's clusterScopedKinds
// says otherwise: without an API server, nothing else knows them.
func (b *Blueprint) namespaced(gvk schema.GroupVersionKind, in *Input) (bool, error) {
	if in.IsNamespaced != nil {
		return in.IsNamespaced(gvk)
	}
	gk := gvk.GroupKind()
	if ns, ok := servedKinds[gk]; ok {
		return ns, nil
	}
	if servedGroups[gk.Group] {
		return false, fmt.Errorf("%s is not a kind the API server serves (a misspelt kind? a List must be written as its items)", gvk)
	}
	if ns, ok := in.CustomKinds[gk]; ok {
		return ns, nil
	}
	return !b.clusterScoped[gk], nil
}

// KnownScope reports, for a kind of a group the API server serves by itself (the built-in
// groups, Gateway API, Gantry), whether it is namespaced; known is false for a kind of another
// group, and served false for a kind such a group does not have.
func KnownScope(gk schema.GroupKind) (namespaced, served, known bool) {
	if !servedGroups[gk.Group] {
		return false, false, false
	}
	ns, ok := servedKinds[gk]
	return ns, ok, true
}

// servedGroups are the API groups of servedKinds: a kind of one of them is either in the table
// or not served at all.
var servedGroups = func() map[string]bool {
	g := map[string]bool{}
	for gk := range servedKinds {
		g[gk.Group] = true
	}
	return g
}()

// statusObject parses the status template's output: one YAML object (or nothing).
func (b *Blueprint) statusObject(c *compiled, text string, check *boundary.Check) (map[string]any, error) {
	fail := func(origin, format string, args ...any) error {
		return &Error{Blueprint: b.Name, Template: c.field, Origin: origin, Msg: fmt.Sprintf(format, args...)}
	}
	parsed, _, err := parseStatus(text)
	if err := b.verify(check, c, text, parsed, 0, err, statusOutput); err != nil {
		return nil, err
	}
	if err != nil {
		e := fail("", "output is not valid YAML: %v", err).(*Error)
		e.Output = text
		return nil, e
	}
	if len(parsed) == 0 || parsed[0] == nil {
		return nil, nil
	}
	v := parsed[0]
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fail("", "status must be an object, not %T", v)
	}
	return m, nil
}

// deepCopyWith copies a JSON-typed value tree with cp (copyValue, or a substitution's) so
// that a template's set/unset cannot reach the caller's values.
func deepCopyWith(m map[string]any, cp func(any) any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return cp(m).(map[string]any)
}

func copyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = copyValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = copyValue(e)
		}
		return out
	default:
		return v
	}
}
