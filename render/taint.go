package render

import (
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Tainted is a tenant string and where it came from, e.g. Origin
// `GatewayConfig team-a/web value name` or `Gateway team-a/web field metadata.annotations.x`.
type Tainted struct {
	Value  string
	Origin string
}

// TaintedStrings collects the strings of a value tree that could change YAML structure if a
// template inserted them unquoted, each with an origin built from its path. Strings that
// cannot (names, hostnames, numbers, images) are left out: they need no check.
func TaintedStrings(v any, origin func(path string) string) []Tainted {
	var out []Tainted
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if structural(k) {
					out = append(out, Tainted{Value: k, Origin: origin(join(path, k)) + " (a key)"})
				}
				walk(v[k], join(path, k))
			}
		case []any:
			for i, e := range v {
				walk(e, path+"["+itoa(i)+"]")
			}
		case string:
			if structural(v) {
				out = append(out, Tainted{Value: v, Origin: origin(path)})
			}
		}
	}
	walk(v, "")
	return out
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + itoa(i%10)
}

// structural reports whether a string inserted into YAML unquoted could be read as more than
// one plain scalar: it holds a line break (YAML 1.1 also breaks lines at NEL, LS and PS), an
// indicator or flow character, a comment or mapping marker, white space at an end, or starts
// with a document end marker.
func structural(s string) bool {
	if s == "" {
		return false
	}
	if strings.ContainsAny(s, "\n\r\u0085\u2028\u2029{}[],&*!|>'\"%@`#\t") || strings.Contains(s, ": ") || strings.HasSuffix(s, ":") ||
		strings.HasPrefix(s, "...") {
		return true
	}
	switch s[0] {
	case '-', '?', ':', ' ':
		return true
	}
	return s[len(s)-1] == ' '
}

// taintedIn returns the first tainted value that occurs verbatim in text.
func taintedIn(text string, tainted []Tainted) *Tainted {
	for i := range tainted {
		if strings.Contains(text, tainted[i].Value) {
			return &tainted[i]
		}
	}
	return nil
}

// placeholder stands in for a tainted value: YAML reads it as a plain string wherever it is.
const placeholder = "gantry0tainted0value"

// structureChangedBy finds a tainted value that shaped the output instead of filling it in.
// For each one that occurs verbatim in the rendered text, the text is parsed again with every
// occurrence replaced by a placeholder that can only be a plain string. A value that was data
// gives the same documents, maps and lists, with only the value and the placeholder
// exchanged; a value that added a document, a field or a list item, or cut a line short with
// a comment, does not. (Quoted, toJson'd and toYaml'd values are escaped, so they mostly do
// not occur verbatim at all; counting occurrences instead is fooled by an escaped copy of the
// same text elsewhere in the output.)
func structureChangedBy(text string, parsed []any, tainted []Tainted, parse func(string) ([]any, error)) *Tainted {
	for i := range tainted {
		t := &tainted[i]
		if !strings.Contains(text, t.Value) {
			continue
		}
		ref, err := parse(strings.ReplaceAll(text, t.Value, placeholder))
		if err != nil || !reflect.DeepEqual(withPlaceholder(parsed, t.Value), withPlaceholder(ref, t.Value)) {
			return t
		}
	}
	return nil
}

// withPlaceholder copies a parsed value with s replaced by the placeholder in every string
// and key.
func withPlaceholder(v any, s string) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = withPlaceholder(e, s)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[strings.ReplaceAll(k, s, placeholder)] = withPlaceholder(e, s)
		}
		return out
	case string:
		return strings.ReplaceAll(v, s, placeholder)
	default:
		return v
	}
}

// withVariants adds the forms the commonest sprig functions give each tainted value (trim,
// lower, upper), so that a template piping a tenant value through one of them is checked as
// if it used the value itself. Other transformations (trunc, replace, b64dec, …) are not
// followed: templates must quote or toYaml tenant values.
func withVariants(tainted []Tainted) []Tainted {
	if len(tainted) == 0 {
		return tainted
	}
	out := slices.Clone(tainted)
	seen := make(map[string]bool, len(tainted))
	for _, t := range tainted {
		seen[t.Value] = true
	}
	for _, t := range tainted {
		for _, f := range []string{strings.TrimSpace(t.Value), strings.ToLower(t.Value), strings.ToUpper(t.Value)} {
			if !seen[f] && structural(f) {
				seen[f] = true
				out = append(out, Tainted{Value: f, Origin: t.Origin})
			}
		}
	}
	return out
}
