package boundary

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

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
	if !inertBytes(s) || strings.Contains(s, ": ") || strings.HasSuffix(s, ":") || strings.HasPrefix(s, "...") {
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

// notInert are the characters no inert string holds (see inert).
const notInert = "\n\r\u0085\u2028\u2029\ufeff{}[],&*!|>'\"%@`#\t\\" + mergeKeyChar

// notInertASCII marks the ASCII bytes of notInert.
var notInertASCII = func() (t [utf8.RuneSelf]bool) {
	for _, r := range notInert {
		if r < utf8.RuneSelf {
			t[r] = true
		}
	}
	return t
}()

// inertBytes reports whether s holds none of notInert: strings.ContainsAny(s, notInert),
// which decodes s rune by rune against a set with runes outside ASCII, was the largest part
// of building a render's stand-ins. A byte of ASCII is looked up; the other runes of notInert
// are looked for as their UTF-8 bytes, which occur in s only as those runes (a lead byte is
// never inside another rune's encoding). TestInertBytesIsContainsAny holds it to ContainsAny.
func inertBytes(s string) bool {
	other := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			other = true
		} else if notInertASCII[c] {
			return false
		}
	}
	return !other || !strings.Contains(s, "\u0085") && !strings.Contains(s, "\u2028") &&
		!strings.Contains(s, "\u2029") && !strings.Contains(s, "\ufeff")
}

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
	if len(s) <= maxNonStringWord && nonStringParts[s] {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !numberByte[s[i]] {
			return true
		}
	}
	return false
}

// nonStringParts are the substrings of nonStringWords, and numberByte marks numberBytes:
// lookups in place of a search through each (interchangeable runs for every tenant string of
// every render).
var (
	nonStringParts = func() map[string]bool {
		m := map[string]bool{"": true}
		for _, w := range nonStringWords {
			for i := range len(w) {
				for j := i + 1; j <= len(w); j++ {
					m[w[i:j]] = true
				}
			}
		}
		return m
	}()
	numberByte = func() (t [256]bool) {
		for i := 0; i < len(numberBytes); i++ {
			t[numberBytes[i]] = true
		}
		return t
	}()
)

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

// maxNonStringWord is the length of the longest of nonStringWords.
const maxNonStringWord = 5

// placeholderPrefix starts every placeholder; the rest is a zero-padded number, so that
// placeholders sort as the strings they stand for do and a `range` over a map with tenant keys
// visits the entries in the same order with either. Placeholders are short, so that names
// shortened with a hash (`shortname 15 "l" .name`) keep them whole and the cheap comparison
// applies; "qz" followed by digits does not occur in hex hashes or ordinary words (where it
// does, the check only takes its slower path).
const placeholderPrefix = "qz"

// otherPrefix starts C's placeholders (see identity.go): other words that sort as B's do.
const otherPrefix, otherSuffix = "qy", "x"

// Part placeholders stand for the parts a splitting function cut from a tenant string
// (Substitution.Part): B's start with partPrefix, C's with otherPartPrefix (and end in
// otherSuffix), each followed by partWidth digits. They are numbered as they are first asked
// for, so they do not sort as their texts do: a template that sorts parts gives B another
// order than A, and the check refuses it.
const (
	partPrefix, otherPartPrefix = "qw", "qv"
	partWidth                   = 6
	maxParts                    = 999_999
)

// parts are the texts of the part placeholders given so far, shared by a substitution's copies
// (C's, the culprit search's), so that a number means one text in all of them.
type parts struct {
	texts []string
	index map[string]int
}

// Substitution maps each distinct tenant string to its placeholder, a plain word that YAML
// reads as one string in any context.
type Substitution struct {
	// parts holds the part placeholders; ppfx starts them (partPrefix for B).
	parts     *parts
	ppfx      string
	originals []string       // distinct tenant strings, sorted; placeholder i stands for originals[i]
	index     map[string]int // original → i
	origins   []string       // where originals[i] first came from
	width     int            // digits of a placeholder's number
	// nums are the distinct tenant numbers (int64 or float64), in order of value; numIndex
	// maps each to its place. Their placeholders are numbers too (see num).
	nums     []any
	numIndex map[any]int
	// bools says, for false and true, where it is among the tenant values (-1: no tenant gave
	// it). B reads each tenant bool as its opposite; C as it is (flip false).
	bools [2]int
	flip  bool
	// numBase is the first number placeholder: numberBase for B, otherNumberBase for C.
	numBase int64
	// keep holds the map keys that stay as they are: names the blueprint's templates spell out
	// (`.Values.service`, `index .Gateway.metadata.labels "app"`), which it must be able to
	// look up, and which are its own words rather than tenant content.
	keep map[string]bool
	// limit substitutes only the first limit tenant values (the search for a culprit): the
	// strings in sorted order, then the numbers, then true and false; the others stay.
	limit int
	// allInert is true when every tenant string is interchangeable with its placeholder in any
	// text (see interchangeable).
	allInert bool
	// pfx starts every placeholder: placeholderPrefix for B, otherPrefix for C; C's also end
	// in sfx, so that they differ from B's in length too (`len`, `trunc` see it). Only B's
	// placeholders are restored or looked for in text.
	pfx, sfx string
}

func NewSubstitution(tainted []Tainted, keep map[string]bool) *Substitution {
	// One map serves twice: first from each distinct string to its first Tainted, then to its
	// place in sorted order (a second map of origins was a twentieth of a render's garbage).
	s := &Substitution{index: make(map[string]int, len(tainted)), keep: keep, allInert: true, pfx: placeholderPrefix,
		parts: &parts{}, ppfx: partPrefix,
		bools: [2]int{-1, -1}, flip: true, numBase: numberBase}
	numFirst := map[any]int{}
	boolFirst := [2]int{-1, -1}
	for i, t := range tainted {
		switch v := t.Scalar.(type) {
		case bool:
			if b := boolIndex(v); boolFirst[b] < 0 {
				boolFirst[b] = i
			}
			continue
		case int64, float64:
			if _, ok := numFirst[v]; !ok {
				numFirst[v] = i
				s.nums = append(s.nums, v)
			}
			continue
		}
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
	s.origins = make([]string, len(s.originals), len(s.originals)+len(s.nums)+2)
	for i, o := range s.originals {
		s.origins[i] = tainted[s.index[o]].Origin
		s.index[o] = i
	}
	slices.SortFunc(s.nums, func(a, b any) int { return cmpNumber(a, b) })
	if len(s.nums) > 0 {
		s.numIndex = make(map[any]int, len(s.nums))
	}
	for j, n := range s.nums {
		s.numIndex[n] = j
		s.origins = append(s.origins, tainted[numFirst[n]].Origin)
	}
	for b := range 2 {
		if boolFirst[b] >= 0 {
			s.bools[b] = len(s.origins)
			s.origins = append(s.origins, tainted[boolFirst[b]].Origin)
		}
	}
	s.width = len(strconv.Itoa(len(s.originals)))
	s.limit = len(s.origins)
	return s
}

// Holders names every source in tainted of s's i-th tenant value (a string, a number or a bool,
// in the order NewSubstitution numbers them), in input order; nil when there is one only.
func (s *Substitution) Holders(i int, tainted []Tainted) []string {
	var match func(t Tainted) bool
	switch {
	case i < len(s.originals):
		o := s.originals[i]
		match = func(t Tainted) bool { return t.Scalar == nil && t.Value == o }
	case i < len(s.originals)+len(s.nums):
		n := s.nums[i-len(s.originals)]
		match = func(t Tainted) bool { return t.Scalar == n }
	default:
		b := s.bools[1] == i
		match = func(t Tainted) bool { v, ok := t.Scalar.(bool); return ok && v == b }
	}
	var out []string
	for _, t := range tainted {
		if match(t) && !slices.Contains(out, t.Origin) {
			out = append(out, t.Origin)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// Total is how many tenant values s substitutes, without a limit.
func (s *Substitution) Total() int { return len(s.origins) }

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cmpNumber(a, b any) int {
	fa, fb := toFloat(a), toFloat(b)
	switch {
	case fa < fb:
		return -1
	case fa > fb:
		return 1
	}
	_, ia := a.(int64)
	_, ib := b.(int64)
	switch {
	case ia && !ib:
		return -1
	case ib && !ia:
		return 1
	case ia && ib:
		return cmpInt(a.(int64), b.(int64))
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func toFloat(v any) float64 {
	if i, ok := v.(int64); ok {
		return float64(i)
	}
	return v.(float64)
}

// Number placeholders: B's j-th tenant number reads numberBase + numberStep*j (plus one half
// for a float), C's otherNumberBase + numberStep*j. B's are six digits, which text/template
// prints as they are whether a template holds them as an int or as a float (fromJson makes
// floats; a float of seven digits or more prints with an exponent), so that identity.go and
// Restore find them in text; they are far from any number a template writes. A template that
// uses a tenant number as a width (nindent, repeat) meets a budget with them, which fails the
// render: such a template lets the tenant shape the output.
const (
	numberBase      int64 = 900_007
	otherNumberBase int64 = 5_000_000_011
	numberStep      int64 = 10
	// visibleNumbers is how many of B's number placeholders print as six digits.
	visibleNumbers = 9_999
)

// Num returns the placeholder of a tenant number, or the number itself.
func (s *Substitution) Num(v any) any {
	if i, ok := v.(int); ok {
		v = int64(i)
	}
	j, ok := s.numIndex[v]
	if !ok || len(s.originals)+j >= s.limit {
		return v
	}
	p := s.numBase + numberStep*int64(j)
	if _, isFloat := v.(float64); isFloat {
		return float64(p) + 0.5
	}
	return p
}

// Boolean returns B's stand-in for a tenant bool (its opposite), or the bool itself.
func (s *Substitution) Boolean(v bool) bool {
	if at := s.bools[boolIndex(v)]; s.flip && at >= 0 && at < s.limit {
		return !v
	}
	return v
}

// numberPlaceholder reports which tenant number a number of B's output stands for.
func (s *Substitution) numberPlaceholder(v int64) (j int, ok bool) {
	d := v - s.numBase
	if d < 0 || d%numberStep != 0 || d/numberStep >= int64(len(s.nums)) {
		return 0, false
	}
	j = int(d / numberStep)
	return j, len(s.originals)+j < s.limit
}

// nextNumber finds the first of B's number placeholders printed in text: where it starts, its
// length, and the text of the number it stands for, as text/template prints it.
func (s *Substitution) nextNumber(text string) (at, n int, original string, ok bool) {
	if len(s.nums) == 0 {
		return 0, 0, "", false
	}
	const digits = 6
	for from := 0; ; {
		i := strings.IndexByte(text[from:], '9')
		if i < 0 {
			return 0, 0, "", false
		}
		i += from
		from = i + 1
		if i > 0 && isDigit(text[i-1]) || i+digits > len(text) || i+digits < len(text) && isDigit(text[i+digits]) {
			continue
		}
		v, err := strconv.ParseInt(text[i:i+digits], 10, 64)
		if err != nil {
			continue
		}
		j, ok := s.numberPlaceholder(v)
		if !ok || j >= visibleNumbers {
			continue
		}
		switch o := s.nums[j].(type) {
		case int64:
			return i, digits, strconv.FormatInt(o, 10), true
		case float64:
			if strings.HasPrefix(text[i+digits:], ".5") && !(i+digits+2 < len(text) && isDigit(text[i+digits+2])) {
				return i, digits + 2, fmt.Sprint(o), true
			}
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Other is the same substitution with other placeholders (C's), which sort as B's do.
func (s *Substitution) Other() *Substitution {
	c := *s
	c.pfx, c.sfx, c.numBase, c.flip, c.ppfx = otherPrefix, otherSuffix, otherNumberBase, false, otherPartPrefix
	return &c
}

// Prefix is the same Substitution limited to the first n originals.
func (s *Substitution) Prefix(n int) *Substitution {
	c := *s
	c.limit = n
	return &c
}

func (s *Substitution) placeholder(i int) string {
	n := strconv.Itoa(i)
	return s.pfx + strings.Repeat("0", s.width-len(n)) + n + s.sfx
}

// Str returns the placeholder of a tenant string, or the string itself.
func (s *Substitution) Str(v string) string {
	if i, ok := s.index[v]; ok && i < s.limit {
		return s.placeholder(i)
	}
	return v
}

// PartID is what A records of a part its split cut, for B to stand in for it (PartStandIn):
// the tenant string it equals (2i+1 for the i-th), the empty string (-2), or its number in
// the check's table of parts, which the renders with stand-ins share (2j); -1 once maxParts
// are held. Which of them a part is belongs in the record: B's output, which the check's
// memory keys by B's input and A's decisions, depends on it (a part equal to another tenant
// string shares its placeholder; a review's case).
func (s *Substitution) PartID(text string) int64 {
	if text == "" {
		return -2
	}
	if i, ok := s.index[text]; ok {
		return 2*int64(i) + 1
	}
	if j, ok := s.parts.index[text]; ok {
		return 2 * int64(j)
	}
	if len(s.parts.texts) >= maxParts {
		return -1
	}
	if s.parts.index == nil {
		s.parts.index = map[string]int{}
	}
	j := len(s.parts.texts)
	s.parts.index[text] = j
	s.parts.texts = append(s.parts.texts, text)
	return 2 * int64(j)
}

// PartStandIn is the stand-in for what A recorded of a part (PartID): the placeholder of the
// tenant string it equals (or that string, where s leaves it: the search for a culprit), a
// part placeholder, or the empty string. ok is false for a record s cannot stand in for.
func (s *Substitution) PartStandIn(v int64) (standIn string, ok bool) {
	switch {
	case v == -2:
		return "", true // as NewSubstitution leaves an empty tenant string
	case v < 0:
		return "", false
	case v%2 == 1:
		i := int((v - 1) / 2)
		if i >= len(s.originals) {
			return "", false
		}
		return s.Str(s.originals[i]), true
	}
	j := v / 2
	if j >= int64(len(s.parts.texts)) {
		return "", false
	}
	n := strconv.FormatInt(j, 10)
	return s.ppfx + strings.Repeat("0", partWidth-len(n)) + n + s.sfx, true
}

// HoldsStandIn reports whether text holds a string or part placeholder of s (B's or C's).
func (s *Substitution) HoldsStandIn(text string) bool {
	for i := 0; i < len(text); i++ {
		if _, n, _ := s.standInAt(text, i); n > 0 {
			return true
		}
	}
	return false
}

// standInAt reads a string or part placeholder of s that starts at text[i]: its length (0: none)
// and the text it stands for.
func (s *Substitution) standInAt(text string, i int) (at, n int, original string) {
	rest := text[i:]
	if strings.HasPrefix(rest, s.pfx) {
		if j, ok := s.number(rest[len(s.pfx):]); ok && strings.HasPrefix(rest[len(s.pfx)+s.width:], s.sfx) {
			return i, len(s.pfx) + s.width + len(s.sfx), s.originals[j]
		}
	}
	if strings.HasPrefix(rest, s.ppfx) {
		if j, ok := s.partNumber(rest[len(s.ppfx):]); ok && strings.HasPrefix(rest[len(s.ppfx)+partWidth:], s.sfx) {
			return i, len(s.ppfx) + partWidth + len(s.sfx), s.parts.texts[j]
		}
	}
	return i, 0, ""
}

// partNumber reads a part placeholder's number at the start of text.
func (s *Substitution) partNumber(text string) (int, bool) {
	if len(text) < partWidth {
		return 0, false
	}
	for k := range partWidth {
		if !isDigit(text[k]) {
			return 0, false
		}
	}
	j, _ := strconv.Atoi(text[:partWidth])
	return j, j < len(s.parts.texts)
}

// CopyValue copies a JSON-typed value tree with tenant strings and keys replaced: B's input,
// made by the same single copy that shields the caller's values from set and unset.
func (s *Substitution) CopyValue(v any) any { return s.CopyAt(v, Everywhere) }

// placeholderScan walks the placeholders of B in a text, strings' and numbers' in order.
type placeholderScan struct {
	s    *Substitution
	text string
	// numAt, numOrig: the next number placeholder at or after the position (numAt < 0: none
	// left), found once and kept until passed, so that a text with many strings and no number
	// is not searched for numbers again at each one.
	numAt, numLen int
	numOrig       string
	numDone       bool
}

// next finds the first placeholder at or after from: where it starts, how long it is, the text
// it stands for, and whether that text is interchangeable with it (a string, see
// interchangeable; a positive integer's digits, for another run of digits).
func (p *placeholderScan) next(from int) (at, n int, original string, safe, ok bool) {
	s, text := p.s, p.text
	at = -1
	for f := from; ; {
		i := strings.Index(text[f:], s.pfx)
		if i < 0 {
			break
		}
		i += f
		if j, ok := s.number(text[i+len(s.pfx):]); ok {
			original = s.originals[j]
			at, n, safe = i, len(s.pfx)+s.width, s.allInert || interchangeable(original)
			break
		}
		f = i + len(s.pfx)
	}
	if len(s.parts.texts) > 0 {
		for f := from; ; {
			i := strings.Index(text[f:], s.ppfx)
			if i < 0 || at >= 0 && f+i >= at {
				break
			}
			i += f
			if j, ok := s.partNumber(text[i+len(s.ppfx):]); ok {
				// A part of an inert string need not be inert ("a:b" cut at "b" ends in ':').
				original = s.parts.texts[j]
				at, n, safe = i, len(s.ppfx)+partWidth, interchangeable(original)
				break
			}
			f = i + len(s.ppfx)
		}
	}
	if !p.numDone && (p.numAt < from) {
		i, n, o, found := s.nextNumber(text[from:])
		if found {
			p.numAt, p.numLen, p.numOrig = from+i, n, o
		} else {
			p.numDone = true
		}
	}
	if !p.numDone && p.numAt >= from && (at < 0 || p.numAt < at) {
		// A positive integer is, for another run of digits: a float's text or a negative
		// number's is not (its '.' or '-' meets the template's text).
		safe := p.numLen == 6 && p.numOrig[0] >= '1' && p.numOrig[0] <= '9' && strings.IndexFunc(p.numOrig, func(r rune) bool { return r < '0' || r > '9' }) < 0
		return p.numAt, p.numLen, p.numOrig, safe, true
	}
	return at, n, original, safe, at >= 0
}

// CopyAt is CopyValue with keys replaced only where t marks the tenant's (strings, numbers and
// bools are replaced wherever they are).
func (s *Substitution) CopyAt(v any, t *KeyTree) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			sub := t.At(k)
			if sub != nil && !s.keep[k] {
				k = s.Str(k)
			}
			out[k] = s.CopyAt(e, sub)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = s.CopyAt(e, t)
		}
		return out
	case string:
		return s.Str(v)
	case bool:
		return s.Boolean(v)
	case int, int64, float64:
		return s.Num(v)
	default:
		return v
	}
}

// Restore replaces every placeholder in text by its original, in one pass. inertOnly reports
// whether each one it replaced is interchangeable with its original.
func (s *Substitution) Restore(text string) (restored string, inertOnly bool) {
	p := placeholderScan{s: s, text: text, numAt: -1}
	at, n, o, safe, ok := p.next(0)
	if !ok {
		return text, true
	}
	var b strings.Builder
	b.Grow(len(text))
	inertOnly = true
	last := 0
	for ok {
		b.WriteString(text[last:at])
		b.WriteString(o)
		inertOnly = inertOnly && safe
		last = at + n
		at, n, o, safe, ok = p.next(last)
	}
	b.WriteString(text[last:])
	return b.String(), inertOnly
}

// Mask replaces every placeholder of B in text by "<stand-in>": a message about a render
// with stand-ins says where one stood without showing Gantry's words for it, or the tenant's
// text, which did not fail.
func (s *Substitution) Mask(text string) string {
	p := placeholderScan{s: s, text: text, numAt: -1}
	var b strings.Builder
	last := 0
	for {
		at, n, _, _, ok := p.next(last)
		if !ok {
			break
		}
		b.WriteString(text[last:at])
		b.WriteString("<stand-in>")
		last = at + n
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// RestoresTo reports whether text with every placeholder replaced by its original is want,
// each original interchangeable: restore(text) == want with inertOnly, compared as it goes,
// without building the restored text (a copy of every template's output, for the common case).
func (s *Substitution) RestoresTo(text, want string) bool {
	p := placeholderScan{s: s, text: text, numAt: -1}
	last := 0
	for {
		at, n, o, safe, ok := p.next(last)
		if !ok {
			return text[last:] == want
		}
		if !safe || !strings.HasPrefix(want, text[last:at]) {
			return false
		}
		want = want[at-last:]
		if !strings.HasPrefix(want, o) {
			return false
		}
		want, last = want[len(o):], at+n
	}
}

// number reads a placeholder's number at the start of text.
func (s *Substitution) number(text string) (int, bool) {
	if len(text) < s.width {
		return 0, false
	}
	i, err := strconv.Atoi(text[:s.width])
	if err != nil || i < 0 || i >= s.limit || i >= len(s.originals) || strings.HasPrefix(text[:s.width], "-") || strings.HasPrefix(text[:s.width], "+") {
		return 0, false
	}
	return i, true
}

// Holds reports whether text holds a placeholder of B.
func (s *Substitution) Holds(text string) bool {
	p := placeholderScan{s: s, text: text, numAt: -1}
	_, _, _, _, ok := p.next(0)
	return ok
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
