package render

import (
	"strings"

	"gantry.dev/gantry/internal/yamltext"
)

// A fast path for the YAML that templates print: block mappings and sequences of one-line
// scalars, the shape of nearly every Kubernetes object a blueprint renders.
//
// Parsing the rendered documents with Kubernetes' YAML parser (go.yaml.in/yaml/v2, decoded
// through reflection into map[any]any, then converted to JSON types) was about 40% of a
// render's time, and three quarters of its allocations. parseBlockYAML reads a strict subset
// of YAML directly into JSON types, and declines (ok false) anything outside it, which
// parseDocument then hands to yaml/v2 as before. It never decides what yaml/v2 would reject
// or read differently: whatever it accepts, yaml/v2 reads to the same value
// (TestBlockYAMLAgreesWithTheParser, FuzzBlockYAML), so the objects, the errors and the
// structure check's comparisons are what they were.
//
// The subset, line by line (anything else declines):
//   - only printable ASCII, no tab, no carriage return, and no '#' anywhere (so no comments);
//   - indentation by spaces, at most maxBlockIndent of them; no trailing spaces;
//   - `key: value`, `key:` followed by a nested block (more indented, or a sequence at the same
//     indentation) or by nothing (null); keys are plain words of [A-Za-z0-9_./-] that YAML 1.1
//     reads as strings, not numbers, booleans or null, at most maxBlockKey bytes long; no
//     duplicate keys;
//   - `- value` and `- key: value` (the item's mapping continues at the key's column);
//   - values: a plain scalar of letters, digits and ` ._/-:=+~@(),` (no `: `, no ':' at the
//     end, on one line), resolved as yaml/v2 resolves it; a double-quoted string without
//     escapes; a single-quoted string without quotes in it; `{}` and `[]`.

// maxBlockKey bounds a key's length: YAML limits an implicit key to 1024 characters, and
// yaml/v2 refuses a longer one ("mapping values are not allowed in this context"), which a
// tenant's label key could be. Longer keys are left to yaml/v2, with a margin.
const maxBlockKey = 1000

// maxBlockIndent bounds a line's indentation, and so the nesting: yaml/v2 refuses documents
// nested deeper than 10000 levels ("exceeded max depth"), and with every line indented at most
// 1000 spaces the subset nests at most about 2000 (each level indents further, or is a
// sequence at its key's indentation). Deeper documents are left to yaml/v2.
const maxBlockIndent = 1000

// blockLine is one non-blank line: its indentation and the rest.
type blockLine struct {
	indent int
	text   string
}

type blockParser struct {
	lines []blockLine
	i     int
}

// parseBlockYAML parses doc when it is within the subset above; ok is false otherwise.
func parseBlockYAML(doc string) (v any, ok bool) {
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		if c >= 0x7f || c < 0x20 && c != '\n' || c == '#' {
			return nil, false
		}
	}
	p := blockParser{lines: make([]blockLine, 0, strings.Count(doc, "\n")+1)}
	for l := range strings.Lines(doc) {
		l = strings.TrimSuffix(l, "\n")
		text := strings.TrimLeft(l, " ")
		if text == "" {
			continue
		}
		if text[len(text)-1] == ' ' || len(l)-len(text) > maxBlockIndent {
			return nil, false
		}
		p.lines = append(p.lines, blockLine{indent: len(l) - len(text), text: text})
	}
	if len(p.lines) == 0 {
		return nil, false
	}
	v, ok = p.block(p.lines[0].indent)
	return v, ok && p.i == len(p.lines)
}

// block parses the mapping or sequence whose first line is the current one, at indent.
func (p *blockParser) block(indent int) (any, bool) {
	if isEntry(p.lines[p.i].text) {
		return p.sequence(indent, false)
	}
	return p.mapping(indent)
}

// isEntry reports whether a line's text is a block sequence entry.
func isEntry(text string) bool {
	return text == "-" || strings.HasPrefix(text, "- ")
}

func (p *blockParser) mapping(indent int) (any, bool) {
	m := map[string]any{}
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if l.indent < indent {
			break
		}
		if l.indent > indent || isEntry(l.text) {
			return nil, false
		}
		key, rest, ok := splitKey(l.text)
		if !ok {
			return nil, false
		}
		if _, dup := m[key]; dup {
			return nil, false // yaml/v2 says which key: its error
		}
		p.i++
		var v any
		if rest == "" {
			switch {
			case p.i < len(p.lines) && p.lines[p.i].indent > indent:
				v, ok = p.block(p.lines[p.i].indent)
			case p.i < len(p.lines) && p.lines[p.i].indent == indent && isEntry(p.lines[p.i].text):
				v, ok = p.sequence(indent, true) // a sequence may sit at its key's indentation
			}
		} else {
			v, ok = p.scalar(rest, indent)
		}
		if !ok {
			return nil, false
		}
		m[key] = v
	}
	return m, true
}

// sequence parses entries at indent. An indentless sequence (the value of a key at the same
// indentation) ends at a line that is not an entry; any other sequence must not have one.
func (p *blockParser) sequence(indent int, indentless bool) (any, bool) {
	s := []any{}
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if l.indent < indent {
			break
		}
		if l.indent > indent {
			return nil, false
		}
		if !isEntry(l.text) {
			if indentless {
				break
			}
			return nil, false
		}
		rest := strings.TrimLeft(l.text[1:], " ")
		if rest == "" || isEntry(rest) {
			return nil, false // an empty entry, or a sequence in a sequence: left to yaml/v2
		}
		col := l.indent + len(l.text) - len(rest)
		var v any
		var ok bool
		if _, _, isKey := splitKey(rest); isKey {
			p.lines[p.i] = blockLine{indent: col, text: rest} // the item's mapping starts here
			v, ok = p.mapping(col)
		} else {
			p.i++
			v, ok = p.scalar(rest, indent)
		}
		if !ok {
			return nil, false
		}
		s = append(s, v)
	}
	return s, true
}

// scalar reads a one-line value; a more indented line after it would continue it (or be an
// error), which is left to yaml/v2.
func (p *blockParser) scalar(text string, indent int) (any, bool) {
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		return nil, false
	}
	switch text[0] {
	case '"':
		if len(text) < 2 || text[len(text)-1] != '"' || strings.ContainsAny(text[1:len(text)-1], "\"\\") {
			return nil, false
		}
		return text[1 : len(text)-1], true
	case '\'':
		if len(text) < 2 || text[len(text)-1] != '\'' || strings.Contains(text[1:len(text)-1], "'") {
			return nil, false
		}
		return text[1 : len(text)-1], true
	}
	switch text {
	case "{}":
		return map[string]any{}, true
	case "[]":
		return []any{}, true
	}
	if !plainValue(text) {
		return nil, false
	}
	return yamltext.ResolvePlain(text)
}

// splitKey splits `key: rest` or `key:`; ok is false unless key is a plain word that YAML 1.1
// reads as a string.
func splitKey(text string) (key, rest string, ok bool) {
	at := strings.IndexByte(text, ':')
	if at <= 0 || at+1 < len(text) && text[at+1] != ' ' {
		return "", "", false
	}
	key = text[:at]
	if len(key) > maxBlockKey {
		return "", "", false // longer than an implicit key may be (see maxBlockKey)
	}
	if c := key[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
		return "", "", false
	}
	for i := 1; i < len(key); i++ {
		if c := key[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./-", c) >= 0) {
			return "", "", false
		}
	}
	if !yamltext.ReadsAsString(key) {
		return "", "", false // a number, a boolean or null as a key: left to yaml/v2
	}
	return key, strings.TrimLeft(text[at+1:], " "), true
}

// plainValue reports whether text is a one-line plain scalar of the subset: it starts with a
// letter, a digit or one of `._/~+` (or '-' before something other than a space), holds only
// letters, digits and ` ._/-:=+~@(),` (a comma ends a scalar only inside a flow collection), and
// has no `: ` nor ':' at its end (a mapping, to YAML).
func plainValue(text string) bool {
	switch c := text[0]; {
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._/~+", c) >= 0:
	case c == '-' && len(text) > 1 && text[1] != ' ':
	default:
		return false
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(" ._/-:=+~@(),", c) >= 0) {
			return false
		}
	}
	return !strings.Contains(text, ": ") && text[len(text)-1] != ':'
}
