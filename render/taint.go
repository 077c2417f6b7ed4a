package render

import (
	"maps"
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
// one plain scalar: it holds a line break, an indicator or flow character, a comment or mapping
// marker, or white space at an end.
func structural(s string) bool {
	if s == "" {
		return false
	}
	if strings.ContainsAny(s, "\n\r{}[],&*!|>'\"%@`#\t") || strings.Contains(s, ": ") || strings.HasSuffix(s, ":") {
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

// structureChangedBy finds a tainted value that the YAML parser did not read as (part of) a
// scalar: it occurs verbatim in the rendered text more often than in the parsed strings. A
// quoted or toYaml'd value is escaped in the text, so it does not occur verbatim at all; an
// unquoted value that stays one scalar occurs in both equally often.
func structureChangedBy(text string, parsed []any, tainted []Tainted) *Tainted {
	for i := range tainted {
		t := &tainted[i]
		raw := strings.Count(text, t.Value)
		if raw == 0 {
			continue
		}
		if countInScalars(parsed, t.Value) < raw {
			return t
		}
	}
	return nil
}

func countInScalars(v any, s string) int {
	switch v := v.(type) {
	case []any:
		n := 0
		for _, e := range v {
			n += countInScalars(e, s)
		}
		return n
	case map[string]any:
		n := 0
		for k, e := range v {
			n += strings.Count(k, s) + countInScalars(e, s)
		}
		return n
	case string:
		return strings.Count(v, s)
	default:
		return 0
	}
}
