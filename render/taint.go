package render

import (
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"
)

// Tainted is a tenant string and where it came from, e.g. Origin
// `GatewayConfig team-a/web value name` or `Gateway team-a/web field metadata.annotations.x`.
type Tainted struct {
	Value  string
	Origin string
}

// TaintedStrings collects the non-empty strings and map keys of a value tree, each with an
// origin built from its path. Every one counts, however harmless it looks: a template can turn
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

// inert reports whether a string put anywhere in YAML text in place of a plain word (inside a
// plain, quoted or block scalar, or a key) leaves the text's structure as it is: no line break
// (YAML 1.1 also breaks lines at NEL, LS and PS), no indicator, flow, quote, escape or comment
// character, no mapping marker, no white space at an end, no document marker, and no '<':
// "<<" in key position is YAML 1.1's merge key, which hoists the map under it into its parent,
// and two strings, or a string and the template's text, can make one.
func inert(s string) bool {
	if s == "" {
		return true
	}
	if strings.ContainsAny(s, "\n\r\u0085\u2028\u2029\ufeff{}[],&*!|>'\"%@`#\t\\"+mergeKeyChar) || strings.Contains(s, ": ") ||
		strings.HasSuffix(s, ":") || strings.HasPrefix(s, "...") {
		return false
	}
	switch s[0] {
	case '-', '?', ':', ' ':
		return false
	}
	return s[len(s)-1] != ' '
}

// mergeKeyChar is not inert: see inert.
const mergeKeyChar = "<"

// interchangeable reports whether a tenant string and its placeholder give text of one
// structure and one type wherever they stand: s is inert, and any plain scalar holding s reads
// as a string, as the placeholder's does: s is no part of a word YAML 1.1 reads as a bool, a
// null, an infinity or a NaN, and has a byte that no number or timestamp can hold. This is the
// fast path's condition only: where it does not hold, the check compares the parsed outputs
// (identity.go), which decides by what YAML read, not by the string.
func interchangeable(s string) bool {
	if !inert(s) {
		return false
	}
	for _, w := range nonStringWords {
		if strings.Contains(w, s) {
			return false
		}
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(numberBytes, s[i]) < 0 {
			return true
		}
	}
	return false
}

// numberBytes are the bytes of the numbers yaml/v2 reads (any base, underscores, floats with
// exponents) and of timestamps.
const numberBytes = "0123456789abcdefABCDEFxXoObB+-._:tTzZ \t"

// nonStringWords are the other plain scalars yaml/v2 does not read as strings (resolve.go).
var nonStringWords = []string{
	"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON",
	"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF",
	"~", "null", "Null", "NULL", "<<",
	".nan", ".NaN", ".NAN", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
}

// placeholderPrefix starts every placeholder; the rest is a zero-padded number, so that
// placeholders sort as the strings they stand for do and a `range` over a map with tenant keys
// visits the entries in the same order with either. Placeholders are short, so that names
// shortened with a hash (`shortname 15 "l" .name`) keep them whole and the cheap comparison
// applies; "qz" followed by digits does not occur in hex hashes or ordinary words (where it
// does, the check only takes its slower path).
const placeholderPrefix = "qz"

// otherPrefix starts C's placeholders (see identity.go): other words that sort as B's do.
const otherPrefix, otherSuffix = "qy", "x"

// substitution maps each distinct tenant string to its placeholder, a plain word that YAML
// reads as one string in any context.
type substitution struct {
	originals []string       // distinct tenant strings, sorted; placeholder i stands for originals[i]
	index     map[string]int // original → i
	origins   []string       // where originals[i] first came from
	width     int            // digits of a placeholder's number
	// keep holds the map keys that stay as they are: names the blueprint's templates spell out
	// (`.Values.service`, `index .Gateway.metadata.labels "app"`), which it must be able to
	// look up, and which are its own words rather than tenant content.
	keep map[string]bool
	// limit substitutes only originals[:limit] (the search for a culprit); the others stay.
	limit int
	// allInert is true when every tenant string is interchangeable with its placeholder in any
	// text (see interchangeable).
	allInert bool
	// pfx starts every placeholder: placeholderPrefix for B, otherPrefix for C; C's also end
	// in sfx, so that they differ from B's in length too (`len`, `trunc` see it). Only B's
	// placeholders are restored or looked for in text.
	pfx, sfx string
}

func newSubstitution(tainted []Tainted, keep map[string]bool) *substitution {
	// One map serves twice: first from each distinct string to its first Tainted, then to its
	// place in sorted order (a second map of origins was a twentieth of a render's garbage).
	s := &substitution{index: make(map[string]int, len(tainted)), keep: keep, allInert: true, pfx: placeholderPrefix}
	for i, t := range tainted {
		if t.Value == "" {
			continue
		}
		if _, ok := s.index[t.Value]; !ok {
			s.index[t.Value] = i
			s.originals = append(s.originals, t.Value)
			s.allInert = s.allInert && interchangeable(t.Value)
		}
	}
	sort.Strings(s.originals)
	s.origins = make([]string, len(s.originals))
	for i, o := range s.originals {
		s.origins[i] = tainted[s.index[o]].Origin
		s.index[o] = i
	}
	s.width = len(strconv.Itoa(len(s.originals)))
	s.limit = len(s.originals)
	return s
}

// other is the same substitution with other placeholders (C's), which sort as B's do.
func (s *substitution) other() *substitution {
	c := *s
	c.pfx, c.sfx = otherPrefix, otherSuffix
	return &c
}

// prefix is the same substitution limited to the first n originals.
func (s *substitution) prefix(n int) *substitution {
	c := *s
	c.limit = n
	return &c
}

func (s *substitution) placeholder(i int) string {
	n := strconv.Itoa(i)
	return s.pfx + strings.Repeat("0", s.width-len(n)) + n + s.sfx
}

// str returns the placeholder of a tenant string, or the string itself.
func (s *substitution) str(v string) string {
	if i, ok := s.index[v]; ok && i < s.limit {
		return s.placeholder(i)
	}
	return v
}

// copyValue copies a JSON-typed value tree with tenant strings and keys replaced: B's input,
// made by the same single copy that shields the caller's values from set and unset.
func (s *substitution) copyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if !s.keep[k] {
				k = s.str(k)
			}
			out[k] = s.copyValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = s.copyValue(e)
		}
		return out
	case string:
		return s.str(v)
	default:
		return v
	}
}

// restore replaces every placeholder in text by its original, in one pass. inert reports
// whether each one it replaced stands for an inert string.
func (s *substitution) restore(text string) (restored string, inertOnly bool) {
	if !strings.Contains(text, s.pfx) {
		return text, true
	}
	var b strings.Builder
	b.Grow(len(text))
	inertOnly = true
	for {
		at := strings.Index(text, s.pfx)
		if at < 0 {
			b.WriteString(text)
			return b.String(), inertOnly
		}
		b.WriteString(text[:at])
		text = text[at+len(s.pfx):]
		i, ok := s.number(text)
		if !ok {
			b.WriteString(s.pfx)
			continue
		}
		o := s.originals[i]
		inertOnly = inertOnly && (s.allInert || interchangeable(o))
		b.WriteString(o)
		text = text[s.width:]
	}
}

// restoresTo reports whether text with every placeholder replaced by its original is want,
// each original inert: restore(text) == want with inertOnly, compared as it goes, without
// building the restored text (a copy of every template's output, for the common case).
func (s *substitution) restoresTo(text, want string) bool {
	for {
		at := strings.Index(text, s.pfx)
		if at < 0 {
			return text == want
		}
		if !strings.HasPrefix(want, text[:at]) {
			return false
		}
		want, text = want[at:], text[at+len(s.pfx):]
		i, ok := s.number(text)
		if !ok {
			if !strings.HasPrefix(want, s.pfx) {
				return false
			}
			want = want[len(s.pfx):]
			continue
		}
		o := s.originals[i]
		if !s.allInert && !interchangeable(o) || !strings.HasPrefix(want, o) {
			return false
		}
		want, text = want[len(o):], text[s.width:]
	}
}

// number reads a placeholder's number at the start of text.
func (s *substitution) number(text string) (int, bool) {
	if len(text) < s.width {
		return 0, false
	}
	i, err := strconv.Atoi(text[:s.width])
	if err != nil || i < 0 || i >= s.limit || strings.HasPrefix(text[:s.width], "-") || strings.HasPrefix(text[:s.width], "+") {
		return 0, false
	}
	return i, true
}

// holds reports whether text holds a placeholder of s.
func (s *substitution) holds(text string) bool {
	for {
		at := strings.Index(text, s.pfx)
		if at < 0 {
			return false
		}
		text = text[at+len(s.pfx):]
		if _, ok := s.number(text); ok {
			return true
		}
	}
}

// templateWords collects the names a template set spells out: fields (`.Values.service`),
// variable fields and string constants (`index .Gateway.metadata.labels "app"`). Map keys with
// these names keep them in B, so that the templates still find what they look up.
func templateWords(t *template.Template) map[string]bool {
	words := map[string]bool{}
	inspectAll(t, func(n parse.Node) {
		switch n := n.(type) {
		case *parse.FieldNode:
			for _, w := range n.Ident {
				words[w] = true
			}
		case *parse.ChainNode:
			for _, w := range n.Field {
				words[w] = true
			}
		case *parse.VariableNode:
			for _, w := range n.Ident[1:] {
				words[w] = true
			}
		case *parse.StringNode:
			words[n.Text] = true
		case *parse.TemplateNode:
			words[n.Name] = true
		}
	})
	// A word that could change structure itself (a "\n" the template passes to replace) is
	// no name to look up: a tenant key equal to it is still replaced.
	maps.DeleteFunc(words, func(w string, _ bool) bool { return !inert(w) })
	return words
}

// cutShort reports whether a scalar of A is B's scalar, with its placeholders put back,
// cut short where the rest starts with a comment, a closing quote, a line break or a flow
// indicator (`,`, `]`, `}`): a tenant string ended the scalar early and what the template
// wrote after it (`--admin=false`, or in a flow mapping `privileged: false`) was lost or
// replaced, though the structure is the same. A transformed string (trunc, a hash) does not
// look like that.
func cutShort(a, restored string) bool {
	if len(restored) <= len(a) || !strings.HasPrefix(restored, a) {
		return false
	}
	rest := strings.TrimLeft(restored[len(a):], " \t")
	// A line break too: what followed it went to another document, or was dropped.
	return rest != "" && strings.ContainsRune("#\"'\n\r,]}", rune(rest[0]))
}
