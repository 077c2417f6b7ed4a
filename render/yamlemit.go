package render

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	yamlv2 "go.yaml.in/yaml/v2"
)

// appendYAML writes v as yamlv2.Marshal writes it, for the trees of maps, lists and scalars a
// render returns, without yaml/v2's event emitter (most of `gantry render`'s printing). It
// declines (ok false) anything it is not sure to write as yaml/v2 does: what plainJSON
// declines, a string yaml/v2 would write on several lines or might fold (a long line with a
// space), a key yaml/v2 would not write as a simple key; MarshalYAML then calls yaml/v2.
// TestAppendYAMLIsYAMLv2 holds the two to the same bytes.
func appendYAML(buf []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return buf, false
		}
		if len(v) == 0 {
			return append(buf, "{}\n"...), true
		}
		return appendMap(buf, v, 0, false, 0)
	case []any:
		if v == nil {
			return buf, false
		}
		if len(v) == 0 {
			return append(buf, "[]\n"...), true
		}
		return appendList(buf, v, 0, false, 0)
	}
	return buf, false // a scalar document: not what a render prints
}

// yamlWidth is yaml/v2's best width: past it, the emitter breaks a scalar's line at a space.
const yamlWidth = 80

func indent(buf []byte, n int) []byte {
	for range n {
		buf = append(buf, ' ')
	}
	return buf
}

// appendMap writes a non-empty map at column ind; inItem says the first key follows "- ".
func appendMap(buf []byte, m map[string]any, ind int, inItem bool, depth int) ([]byte, bool) {
	if depth > maxPlainDepth {
		return buf, false
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		switch {
		case yamlKeyLess(a, b):
			return -1
		case yamlKeyLess(b, a):
			return 1
		}
		return 0
	})
	for i, k := range keys {
		if i > 0 || !inItem {
			buf = indent(buf, ind)
		}
		// A simple key is at most 128 bytes long (yaml_emitter_check_simple_key).
		if len(k) > 128 {
			return buf, false
		}
		kf, ok := scalarForm(k, ind)
		if !ok {
			return buf, false
		}
		buf = append(buf, kf...)
		buf = append(buf, ':')
		if buf, ok = appendValue(buf, m[k], ind, ind+len(kf)+2, true, depth); !ok {
			return buf, false
		}
	}
	return buf, true
}

// appendList writes a non-empty list at column ind; inItem says the first item follows "- ".
func appendList(buf []byte, l []any, ind int, inItem bool, depth int) ([]byte, bool) {
	if depth > maxPlainDepth {
		return buf, false
	}
	var ok bool
	for i, e := range l {
		if i > 0 || !inItem {
			buf = indent(buf, ind)
		}
		buf = append(buf, '-')
		if buf, ok = appendValue(buf, e, ind+2, ind+2, false, depth); !ok {
			return buf, false
		}
	}
	return buf, true
}

// appendValue writes what follows a key's ":" (inMap) or an item's "-": a scalar at column col,
// or a nested map or list, whose column is ind (a list under a key is not indented further).
func appendValue(buf []byte, v any, ind, col int, inMap bool, depth int) ([]byte, bool) {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return buf, false
		}
		if len(v) == 0 {
			return append(buf, " {}\n"...), true
		}
		if inMap {
			buf = append(buf, '\n')
			return appendMap(buf, v, ind+2, false, depth+1)
		}
		buf = append(buf, ' ')
		return appendMap(buf, v, ind, true, depth+1)
	case []any:
		if v == nil {
			return buf, false
		}
		if len(v) == 0 {
			return append(buf, " []\n"...), true
		}
		if inMap {
			buf = append(buf, '\n')
			return appendList(buf, v, ind, false, depth+1)
		}
		buf = append(buf, ' ')
		return appendList(buf, v, ind, true, depth+1)
	}
	buf = append(buf, ' ')
	switch v := v.(type) {
	case string:
		f, ok := scalarForm(v, col)
		if !ok {
			return buf, false
		}
		buf = append(buf, f...)
	case nil:
		buf = append(buf, "null"...)
	case bool:
		buf = strconv.AppendBool(buf, v)
	case int:
		buf = strconv.AppendInt(buf, int64(v), 10)
	case int64:
		buf = strconv.AppendInt(buf, v, 10)
	case int32:
		buf = strconv.AppendInt(buf, int64(v), 10)
	case float64:
		// plainJSON's floats: finite, not whole (JSON writes those as integers).
		if math.IsNaN(v) || math.IsInf(v, 0) || v == math.Trunc(v) {
			return buf, false
		}
		buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
	default:
		return buf, false
	}
	return append(buf, '\n'), true
}

// scalarForm is string s as yaml/v2 writes it starting at column col: plain when it surely
// is (a letter first, then letters, digits and -._/, and not a word YAML 1.1 reads as a
// boolean or null), else the form yaml/v2 gives it as a document of its own, kept when that is
// one line and cannot be folded at col (no space, or the line ends within yamlWidth).
func scalarForm(s string, col int) (string, bool) {
	if plainWord(s) {
		return s, true
	}
	if !plainString(s) {
		return "", false // JSON would change it: plainJSON's rule
	}
	f, ok := standaloneForm(s)
	if !ok || strings.IndexByte(f, ' ') >= 0 && col+len(f) > yamlWidth {
		return "", false
	}
	return f, true
}

// plainWord reports whether yaml/v2 surely writes s plain: a letter first, then ASCII letters,
// digits and -._/ (no indicator, space or ": "), and not a YAML 1.1 boolean or null word.
func plainWord(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	if c := s[0]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '/':
		default:
			return false
		}
	}
	if len(s) <= 5 {
		switch strings.ToLower(s) {
		case "y", "yes", "n", "no", "on", "off", "true", "false", "null":
			return false
		}
	}
	return true
}

// standaloneForms caches yaml/v2's form of the strings plainWord does not settle (quantities
// such as 100m, images with a tag, hostnames with a wildcard): a few per blueprint, repeated in
// every object. It stops growing at maxStandaloneForms, so that tenant strings cannot grow it
// without bound.
var (
	standaloneForms    sync.Map // string -> string, "" when yaml/v2 writes it on several lines
	standaloneCount    atomic.Int64
	maxStandaloneForms = int64(4096)
)

func standaloneForm(s string) (string, bool) {
	if f, ok := standaloneForms.Load(s); ok {
		return f.(string), f.(string) != ""
	}
	b, err := yamlv2.Marshal(s)
	f := strings.TrimSuffix(string(b), "\n")
	if err != nil || strings.IndexByte(f, '\n') >= 0 || f == "" {
		f = ""
	}
	if standaloneCount.Load() < maxStandaloneForms {
		if _, loaded := standaloneForms.LoadOrStore(s, f); !loaded {
			standaloneCount.Add(1)
		}
	}
	return f, f != ""
}

// yamlKeyLess is yaml/v2's order of string keys (keyList.Less in its sorter.go): runs of digits
// compare as numbers, letters before other characters.
func yamlKeyLess(a, b string) bool {
	ar, br := []rune(a), []rune(b)
	for i := 0; i < len(ar) && i < len(br); i++ {
		if ar[i] == br[i] {
			continue
		}
		al := unicode.IsLetter(ar[i])
		bl := unicode.IsLetter(br[i])
		if al && bl {
			return ar[i] < br[i]
		}
		if al || bl {
			return bl
		}
		var ai, bi int
		var an, bn int64
		if ar[i] == '0' || br[i] == '0' {
			for j := i - 1; j >= 0 && unicode.IsDigit(ar[j]); j-- {
				if ar[j] != '0' {
					an = 1
					bn = 1
					break
				}
			}
		}
		for ai = i; ai < len(ar) && unicode.IsDigit(ar[ai]); ai++ {
			an = an*10 + int64(ar[ai]-'0')
		}
		for bi = i; bi < len(br) && unicode.IsDigit(br[bi]); bi++ {
			bn = bn*10 + int64(br[bi]-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return ar[i] < br[i]
	}
	return len(ar) < len(br)
}
