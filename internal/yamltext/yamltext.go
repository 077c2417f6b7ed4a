// Package yamltext reads YAML text as the engine and the tenant boundary both must: where its
// documents start and end, and what yaml/v2 makes of a plain scalar. Two readers that split or
// type a text differently would let a tenant string mean one thing to the check and another to
// the API server, so there is one.
package yamltext

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gantry.dev/gantry/precedence"
)

// isSeparator reports whether a line separates YAML documents: "---" alone, or followed by
// blanks and a comment. Helm's releaseutil.SplitManifests also splits where "---" follows
// spaces inside a line; we split on whole separator lines only, so that no string, however it
// was inserted, can start a document in the middle of a line.
func isSeparator(line string) bool {
	rest, ok := strings.CutPrefix(line, "---")
	if !ok || rest != "" && !strings.ContainsRune(" \t\r", rune(rest[0])) {
		return false // "---#" starts no document in YAML: a Blank must follow the marker
	}
	rest = strings.TrimLeft(rest, " \t\r")
	return rest == "" || rest[0] == '#'
}

// IsMarker reports whether a line starts another YAML document or ends one ("---" or "..."
// followed by nothing or white space): inside one document such a line would make the parser
// drop what follows it.
func IsMarker(line string) bool {
	for _, m := range []string{"---", "..."} {
		if rest, ok := strings.CutPrefix(line, m); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r') {
			return true
		}
	}
	return false
}

// SplitDocuments splits YAML text into documents on separator lines. Documents that hold only
// white space and comments are dropped; the line each document starts on is returned with it.
func SplitDocuments(text string) (docs []string, lines []int) {
	eachDocument(text, func(doc string, at int) {
		docs = append(docs, doc)
		lines = append(lines, at)
	})
	return docs, lines
}

// CountDocuments is len(SplitDocuments(text)), without building the lists (the render's object
// budget counts every template's documents).
func CountDocuments(text string) int {
	n := 0
	eachDocument(text, func(string, int) { n++ })
	return n
}

// eachDocument calls add with each document SplitDocuments returns, and the line it starts on.
func eachDocument(text string, add func(doc string, line int)) {
	start, line := 0, 1
	addNonBlank := func(doc string, at int) {
		if !Blank(doc) {
			add(doc, at)
		}
	}
	at, lineNo := 0, 1 // offset and number of the current line
	for at <= len(text) {
		end := strings.IndexByte(text[at:], '\n')
		next := at + end + 1
		if end < 0 {
			end, next = len(text)-at, len(text)+1
		}
		if isSeparator(text[at : at+end]) {
			addNonBlank(text[start:at], line)
			start, line = min(next, len(text)), lineNo+1
		}
		at, lineNo = next, lineNo+1
	}
	addNonBlank(text[start:], line)
}

func Blank(doc string) bool {
	for l := range strings.Lines(doc) {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

// yamlStyleFloat is yaml/v2's (resolve.go).
var yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// ReadsAsString reports whether yaml/v2 reads plain scalar s as the string s (as ResolvePlain
// would, without boxing the answer).
func ReadsAsString(s string) bool {
	if c := s[0]; c >= 'a' && c <= 'z' && c != 'y' && c != 'n' && c != 't' && c != 'f' && c != 'o' {
		return true // no number, boolean or null starts so: the common case, quickly
	}
	v, ok := ResolvePlain(s)
	str, isString := v.(string)
	return ok && isString && str == s
}

// ResolvePlain is yaml/v2's resolution of an untagged plain scalar (resolve.go), with its
// result converted as the engine's parse converts it; ok is false where it declines: timestamps, binary
// numbers, numbers beyond int64, NaN and infinities, which are rare and left to yaml/v2.
func ResolvePlain(s string) (any, bool) {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return true, true
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return false, true
	case "", "~", "null", "Null", "NULL":
		return nil, true
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return nil, false
	}
	switch c := s[0]; {
	case c == '.':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return nil, false
		}
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		if looksLikeTimestamp(s) {
			return nil, false
		}
		if strings.HasPrefix(s, "0b") || strings.HasPrefix(s, "-0b") {
			return nil, false
		}
		if strings.IndexFunc(s, notInNumbers) >= 0 {
			return s, true // 100m, 128Mi: no number parses (and each failed parse allocates)
		}
		plain := strings.ReplaceAll(s, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return i, true
		}
		if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return nil, false
		}
		if yamlStyleFloat.MatchString(plain) {
			if f, err := strconv.ParseFloat(plain, 64); err == nil {
				return precedence.Normalize(f), true
			}
		}
		if strings.HasPrefix(plain, "0b") || strings.HasPrefix(plain, "-0b") {
			return nil, false
		}
	}
	return s, true
}

// notInNumbers reports a character that none of the numbers yaml/v2 tries can hold: Go's
// integers of any base with their prefixes and underscores, and its YAML-style floats.
func notInNumbers(r rune) bool {
	return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' || strings.ContainsRune("xXoO_+-.", r))
}

// looksLikeTimestamp is yaml/v2's quick check before it tries timestamp formats: four digits
// and a dash.
func looksLikeTimestamp(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i == 4 && i < len(s) && s[i] == '-'
}

// JSONKey is the JSON key a YAML key of yaml/v2 becomes, as the engine's parse makes it.
func JSONKey(k any) string {
	switch k := k.(type) {
	case string:
		return k
	case nil:
		return "null"
	}
	return fmt.Sprint(k)
}
