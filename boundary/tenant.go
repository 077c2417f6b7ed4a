package boundary

import (
	"fmt"
	"slices"
	"strconv"
)

// Tainted is a tenant value and where it came from, e.g. Origin
// `GatewayConfig team-a/web value name` or `Gateway team-a/web field metadata.annotations.x`.
// A string (a value or a key) is Value; a number or a bool is Scalar (int64, float64 or bool),
// with its text in Value: numbers and bools are tenant input as much as strings (a number can
// be an indentation, a bool a branch).
type Tainted struct {
	Value  string
	Origin string
	Scalar any
}

// TaintedStrings collects the non-empty strings and map keys, the numbers and the bools of a
// Value tree, each with an origin built from its path. Every one counts, however harmless it looks: a template can turn
// any string into another (b64dec, replace, tpl), so the check cannot tell from the string
// alone which ones are safe.
func TaintedStrings(v any, origin func(path string) string) []Tainted {
	var out []Tainted
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				at := join(path, k)
				if k != "" {
					out = append(out, Tainted{Value: k, Origin: origin(at) + " (a key)"})
				}
				walk(v[k], at)
			}
		case []any:
			for i, e := range v {
				walk(e, path+"["+strconv.Itoa(i)+"]")
			}
		case string:
			if v != "" {
				out = append(out, Tainted{Value: v, Origin: origin(path)})
			}
		case bool, int, int64, float64:
			out = append(out, TaintedScalar(v, origin(path)))
		}
	}
	walk(v, "")
	return out
}

// TaintedScalar is a tenant number or bool.
func TaintedScalar(v any, origin string) Tainted {
	if i, ok := v.(int); ok {
		v = int64(i)
	}
	return Tainted{Value: fmt.Sprint(v), Origin: origin, Scalar: v}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// KeyTree marks where a tenant's keys are in a values tree: under Keys, the keys a tenant
// wrote at that level (a key the platform wrote too is the tenant's as well: it cannot be told
// apart); All, a subtree the tenant wrote whole.
type KeyTree struct {
	All  bool
	Keys map[string]*KeyTree
}

// Add marks the keys of path as the tenant's, and what is under it as the tenant's whole.
func (t *KeyTree) Add(path []string) {
	for _, k := range path {
		if t.All {
			return
		}
		if t.Keys == nil {
			t.Keys = map[string]*KeyTree{}
		}
		next := t.Keys[k]
		if next == nil {
			next = &KeyTree{}
			t.Keys[k] = next
		}
		t = next
	}
	t.All = true
}

// At is the tree under key k, nil when no tenant key is under it.
func (t *KeyTree) At(k string) *KeyTree {
	if t == nil {
		return nil
	}
	if t.All {
		return t
	}
	return t.Keys[k]
}

// Everywhere marks every key as the tenant's: keys equal to a tenant string are replaced
// wherever they are (every tree but .Values with Input.TenantKeys).
var Everywhere = &KeyTree{All: true}
