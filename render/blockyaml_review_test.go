package render

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// A review of parseBlockYAML against yaml/v2: documents where the two disagreed, and a wider
// generator than TestBlockYAMLRandomDocuments (tenant-like strings put where templates put
// them: plain, quoted, keys, after nindent; long and deep documents).

// deepBlockYAML is a mapping nested n deep, one space more each level.
func deepBlockYAML(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	b.WriteString(strings.Repeat(" ", n) + "b: 1\n")
	return b.String()
}

// TestBlockYAMLReviewDisagreements are documents parseBlockYAML accepted while yaml/v2 refuses
// them: an implicit key longer than 1024 characters (YAML's limit, which yaml/v2 enforces:
// "mapping values are not allowed in this context"), and block nesting deeper than yaml/v2's
// 10000 levels ("exceeded max depth"). The fast path must decline both.
func TestBlockYAMLReviewDisagreements(t *testing.T) {
	long := strings.Repeat("k", 1025)
	for _, doc := range []string{
		long + ": v\n",
		"- " + long + ": v\n",
		"metadata:\n  labels:\n    " + long + ": \"v\"\n",
		"a:\n- b: 1\n  " + long + ":\n  - x\n",
	} {
		if _, err := parseYAMLv2(doc); err == nil {
			t.Fatalf("yaml/v2 reads %.40q...; the case is moot", doc)
		}
		if _, ok := parseBlockYAML(doc); ok {
			t.Errorf("parseBlockYAML accepted %.40q... (%d bytes), which yaml/v2 refuses", doc, len(doc))
		}
	}
	// yaml/v2 refuses 10001 levels; the fast path declines any line indented more than
	// maxBlockIndent, and so any document nested past about 2*maxBlockIndent levels. The 50 MB
	// document that shows yaml/v2's limit takes seconds (ten under -race): set
	// BLOCKYAML_REVIEW_DEEP to check it.
	if _, ok := parseBlockYAML(deepBlockYAML(maxBlockIndent + 1)); ok {
		t.Errorf("parseBlockYAML accepted a line indented %d spaces", maxBlockIndent+1)
	}
	if os.Getenv("BLOCKYAML_REVIEW_DEEP") != "" {
		deep := deepBlockYAML(10001)
		if _, err := parseYAMLv2(deep); err == nil {
			t.Errorf("yaml/v2 reads 10001 levels")
		}
		if _, ok := parseBlockYAML(deep); ok {
			t.Errorf("parseBlockYAML accepted 10001 levels, which yaml/v2 refuses")
		}
	}
	// At the limits, both read the document.
	for _, doc := range []string{strings.Repeat("k", 1000) + ": v\n", deepBlockYAML(200), "a: " + strings.Repeat("v", 5000) + "\n"} {
		checkBlockYAML(t, doc)
	}
}

// reviewValues are strings a tenant might insert, raw, in a template's line.
var reviewValues = []string{
	"", "v", "a b", "x:y", "x: y", "x:", ":x", "x :y", "-x", "- x", "-", "--", "---", "...", "..x", "~", "~x",
	"0777", "0o17", "0x1F", "0X1f", "0b11", "+0b11", "-0b11", "1:20", "1:20:30", "190:20:30", "1_2", "_1", "-_1", "1_", "1__",
	".inf", "-.inf", "+.inf", ".Inf", ".nan", ".5", "+.5", "5.", "5.e3", "1e3", "1E3", "1e+3", "1e-3", "1e999", "-1e999", "0.0", "-0.0", "-0",
	"+", ".", "+.", "+-1", "--1", "0x", "0o", "0b", "0x-1", "1.2.3", "1,000", "1 000", "12e", "0x1p3", "0x1.8p1", "1i", "Inf", "NaN", "infinity",
	"y", "Y", "n", "N", "yes", "no", "on", "off", "On", "oN", "ON", "OFF", "Off", "true", "tRue", "TRUE", "null", "NULL", "Null", "nUll", "none",
	"2024-01-02", "2024-1-2", "2024-01-02T10:00:00Z", "2024-01-02 10:00:00", "20240-01-01", "123-4", "1234-", "1234-x",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
	"0x7FFFFFFFFFFFFFFF", "0x8000000000000000", "-0x8000000000000000", "0o1777777777777777777777", "0b" + strings.Repeat("1", 64),
	"a, b", "a,b", "(a)", "a=b", "a@b", "a+b", "a/b", "a.b", "a~b", "a  b", "a - b", "a -b", "a --- b", "a ... b", "x-", "x.",
	"<<", "=", "!x", "&x", "*x", "|", ">", "|-", ">+", "%x", "@x", "`x", "?x", "? x", "[x]", "{x}", "{}", "[]", "{ }", "[ ]",
	`"q"`, `""`, `"a: b"`, `"a\"b"`, `"a\nb"`, `"a'b"`, `"a b "`, `" a"`, "'s'", "''", "'a''b'", "'a\"b'", `'a\b'`, "' '", `"x" y`, `'x' y`,
	"a #b", "#", "a#b", "a\tb", "a\rb", "a\u0085b", "a\u2028b", "a\u2029b", "\ufeffa", "caf\u00e9",
	strings.Repeat("v", 1100), strings.Repeat("9", 30),
}

var reviewKeys = []string{
	"a", "b", "k", "name", "app.kubernetes.io/name", "a-b", "a_b", "A", "_a", "a.", "a/", "a..b",
	"y", "Y", "n", "yes", "No", "on", "OFF", "true", "null", "Null", "nil", "1", "01", "08", "0x1", "1e3", "1_0", "1-2", "1.5", "1234-5", "2024-01-01",
	"0o7", "0b1", "inf", ".inf", "-a", "<<", "~", "a b", "\"a\"", "'a'", "? a", "a:b",
	strings.Repeat("k", 1020), strings.Repeat("k", 1024), strings.Repeat("k", 1025), strings.Repeat("k", 1030),
}

// reviewDocument builds a random document: lines of keys, entries and values at random
// indentations, values sometimes spread over lines the way nindent would print them.
func reviewDocument(rng *rand.Rand) string {
	return reviewDocumentOf(rng, reviewKeys, reviewValues)
}

// tameList is the part of l that parseBlockYAML accepts on its own in line (as `k: v` or
// `v: 1`): a generator of documents mostly within the subset, whose nesting is then what
// varies.
func tameList(l []string, line func(string) string) []string {
	var out []string
	for _, s := range l {
		if _, ok := parseBlockYAML(line(s)); ok {
			out = append(out, s)
		}
	}
	return out
}

func reviewDocumentOf(rng *rand.Rand, reviewKeys, reviewValues []string) string {
	var b strings.Builder
	pick := func(l []string) string { return l[rng.IntN(len(l))] }
	for range 1 + rng.IntN(10) {
		indent := 2 * rng.IntN(4)
		if rng.IntN(4) == 0 {
			indent = rng.IntN(9)
		}
		pad := strings.Repeat(" ", indent)
		b.WriteString(pad)
		k, v := pick(reviewKeys), pick(reviewValues)
		if rng.IntN(6) == 0 {
			// A value with a line break, as nindent or a template's own lines would print it.
			v = v + "\n" + strings.Repeat(" ", rng.IntN(indent+4)) + pick(reviewValues)
		}
		switch rng.IntN(9) {
		case 0, 1, 2:
			b.WriteString(k + ": " + v)
		case 3:
			b.WriteString(k + ":")
		case 4:
			b.WriteString("- " + v)
		case 5:
			b.WriteString("- " + k + ": " + v)
		case 6:
			b.WriteString("- " + k + ":")
		case 7:
			b.WriteString(k + ":" + strings.Repeat(" ", 1+rng.IntN(3)) + v)
		case 8:
			b.WriteString("-" + strings.Repeat(" ", 1+rng.IntN(3)) + k + ": " + v)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestBlockYAMLReviewRandom holds parseBlockYAML to yaml/v2 on generated documents
// (BLOCKYAML_REVIEW_DOCS sets how many).
func TestBlockYAMLReviewRandom(t *testing.T) {
	n := 20000
	if s := os.Getenv("BLOCKYAML_REVIEW_DOCS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	seed := uint64(3)
	if s := os.Getenv("BLOCKYAML_REVIEW_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	rng := rand.New(rand.NewPCG(seed, 4))
	accepted := 0
	for range n {
		doc := reviewDocument(rng)
		if rng.IntN(3) == 0 {
			doc = strings.TrimRight(doc, "\n")
		}
		if checkBlockYAML(t, doc) {
			accepted++
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("accepted %d of %d", accepted, n)
	keys := tameList(reviewKeys, func(k string) string { return k + ": 1\n" })
	values := tameList(reviewValues, func(v string) string { return "k: " + v + "\n" })
	accepted = 0
	for range n {
		doc := reviewDocumentOf(rng, keys, values)
		if checkBlockYAML(t, doc) {
			accepted++
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("within the subset line by line: accepted %d of %d (%d keys, %d values)", accepted, n, len(keys), len(values))
}

// FuzzBlockYAMLReview drives reviewDocument's generator from the fuzzer's seed, then lets it
// change single bytes: whatever parseBlockYAML accepts, yaml/v2 reads to the same value.
//
//	go test -run='^$' -fuzz=FuzzBlockYAMLReview -fuzztime=60s ./render
func FuzzBlockYAMLReview(f *testing.F) {
	for i := range 20 {
		f.Add(uint64(i), uint64(0), byte(0))
	}
	f.Fuzz(func(t *testing.T, seed, at uint64, c byte) {
		doc := reviewDocument(rand.New(rand.NewPCG(seed, 5)))
		if len(doc) > 0 && c != 0 {
			i := int(at % uint64(len(doc)))
			doc = doc[:i] + string(c) + doc[i+1:]
		}
		checkBlockYAML(t, doc)
	})
}

// emitTree prints a random tree as block YAML: random indentation steps, sequences at their
// key's indentation or further, `- key: v` items with extra spaces after the dash.
func emitTree(rng *rand.Rand, b *strings.Builder, depth, indent int, keys, values []string) {
	pick := func(l []string) string { return l[rng.IntN(len(l))] }
	pad := strings.Repeat(" ", indent)
	if depth > 0 && rng.IntN(3) == 0 {
		// A sequence.
		for range 1 + rng.IntN(3) {
			dash := "-" + strings.Repeat(" ", 1+rng.IntN(3))
			switch rng.IntN(3) {
			case 0:
				b.WriteString(pad + dash + pick(values) + "\n")
			case 1:
				b.WriteString(pad + dash)
				sub := indent + len(dash)
				var inner strings.Builder
				emitMapping(rng, &inner, depth-1, sub, keys, values)
				b.WriteString(strings.TrimPrefix(inner.String(), strings.Repeat(" ", sub)))
			case 2:
				b.WriteString(pad + dash + "{}\n")
			}
		}
		return
	}
	emitMapping(rng, b, depth, indent, keys, values)
}

func emitMapping(rng *rand.Rand, b *strings.Builder, depth, indent int, keys, values []string) {
	pick := func(l []string) string { return l[rng.IntN(len(l))] }
	pad := strings.Repeat(" ", indent)
	used := map[string]bool{}
	for range 1 + rng.IntN(3) {
		k := pick(keys)
		if used[k] {
			continue
		}
		used[k] = true
		if depth == 0 || rng.IntN(2) == 0 {
			b.WriteString(pad + k + ": " + pick(values) + "\n")
			continue
		}
		b.WriteString(pad + k + ":\n")
		step := rng.IntN(4) // 0: a sequence at the key's indentation, if one comes
		emitTree(rng, b, depth-1, indent+step, keys, values)
	}
}

// TestBlockYAMLReviewTrees: nested documents the subset reads, printed with varied
// indentation, then with one line's indentation moved by one or two spaces, or two lines
// joined: parseBlockYAML must agree with yaml/v2 on all of them.
func TestBlockYAMLReviewTrees(t *testing.T) {
	n := 20000
	if s := os.Getenv("BLOCKYAML_REVIEW_DOCS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	keys := tameList(reviewKeys, func(k string) string { return k + ": 1\n" })
	values := tameList(reviewValues, func(v string) string { return "k: " + v + "\n" })
	accepted, mutants := 0, 0
	for range n {
		var b strings.Builder
		emitTree(rng, &b, 1+rng.IntN(4), rng.IntN(3), keys, values)
		doc := b.String()
		if checkBlockYAML(t, doc) {
			accepted++
		}
		lines := strings.SplitAfter(doc, "\n")
		for range 3 {
			m := append([]string(nil), lines...)
			i := rng.IntN(len(m))
			switch rng.IntN(4) {
			case 0:
				m[i] = strings.Repeat(" ", 1+rng.IntN(2)) + m[i]
			case 1:
				m[i] = strings.TrimPrefix(m[i], " ")
				m[i] = strings.TrimPrefix(m[i], " ")
			case 2:
				if i+1 < len(m) {
					m[i] = strings.TrimSuffix(m[i], "\n") + " " + strings.TrimLeft(m[i+1], " ")
					m[i+1] = ""
				}
			case 3:
				m[i] = strings.Replace(m[i], ": ", ":\n"+strings.Repeat(" ", rng.IntN(8)), 1)
			}
			if checkBlockYAML(t, strings.Join(m, "")) {
				mutants++
			}
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("accepted %d of %d trees, %d of %d mutants", accepted, n, mutants, 3*n)
}
