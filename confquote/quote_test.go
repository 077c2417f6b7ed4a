package confquote

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestNginxQuotes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{"a b", `"a b"`},
		{`"`, `"\""`},
		{`\`, `"\\"`},
		{`\"`, `"\\\""`},
		{`'`, `"'"`},
		{`x; return 500 "pwned"; #`, `"x; return 500 \"pwned\"; #"`},
		{"a{b}c", `"a{b}c"`},
		{"line1\nline2;\n}", `"line1\nline2;\n}"`},
		{"\r\n\t", `"\r\n\t"`},
		{`\n`, `"\\n"`},
		{"\x01\x1b\x7f", "\"\x01\x1b\x7f\""},
		{"日本語 😀", `"日本語 😀"`},
		{"\xff\xc3\x28", "\"\xff\xc3\x28\""},
		{"%[env(HOME)]", `"%[env(HOME)]"`},
	} {
		got, err := Nginx(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Nginx(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestHAProxyQuotes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", `'plain'`},
		{"a b", `'a b'`},
		{`'`, `\'`},
		{"it's", `'it'\''s'`},
		{`''`, `\'\'`},
		{`"`, `'"'`},
		{`\`, `'\'`},
		{"$HOME ${HOME}", `'$HOME ${HOME}'`},
		{"# comment", `'# comment'`},
		{"a\nb", `'a'\n'b'`},
		{"\r\n\t", `\r\n\t`},
		{"\x01\x1b\x7f", `\x01\x1b\x7f`},
		{"a\x0b", `'a'\x0b`},
		{`\x41`, `'\x41'`},
		{"%[env(HOME)]", `'%[env(HOME)]'`},
		{"日本語 😀", `'日本語 😀'`},
		{"\xff\xc3\x28", "'\xff\xc3\x28'"},
	} {
		got, err := HAProxy(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("HAProxy(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestHAProxyLogFormatQuotes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"100%", `'100%%'`},
		{"%[env(HOME)]", `'%%[env(HOME)]'`},
		{"%%", `'%%%%'`},
		{"it's 50%", `'it'\''s 50%%'`},
		{"no percent", `'no percent'`},
	} {
		got, err := HAProxyLogFormat(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("HAProxyLogFormat(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// refusal is one string a function must refuse, with the offset and reason it must report.
type refusal struct {
	in     string
	offset int
	reason string
}

func TestNginxRefuses(t *testing.T) {
	for _, tc := range []refusal{
		{"\x00", 0, "NUL"},
		{"abc\x00def", 3, "NUL"},
		{"$host", 0, `"$"`},
		{"${host}", 0, `"$"`},
		{`a\$b`, 2, `"$"`},
		{"a$", 1, `"$"`},
		{"ab$c\x00", 2, `"$"`},
		{"ab\x00c$", 2, "NUL"},
		{strings.Repeat("a", nginxMaxToken-1), -1, "longer than 4095"},
		{strings.Repeat(`"`, 2047), -1, "longer than 4095"},
	} {
		_, err := Nginx(tc.in)
		checkRefusal(t, "nginx", tc, err)
	}
}

func TestHAProxyRefuses(t *testing.T) {
	for _, tc := range []refusal{
		{"", -1, "empty"},
		{"\x00", 0, "NUL"},
		{"abc\x00def", 3, "NUL"},
		{"%\x00", 1, "NUL"},
	} {
		_, err := HAProxy(tc.in)
		checkRefusal(t, "haproxy", tc, err)
		_, err = HAProxyLogFormat(tc.in)
		checkRefusal(t, "haproxy", tc, err)
	}
}

// checkRefusal checks that err refuses tc.in as tc says, and that its message does not repeat
// the input.
func checkRefusal(t *testing.T, lang string, tc refusal, err error) {
	t.Helper()
	var qe *Error
	if !errors.As(err, &qe) {
		t.Errorf("%s: %.40q: got %v, want an *Error", lang, tc.in, err)
		return
	}
	msg := err.Error()
	if qe.Language != lang || qe.Offset != tc.offset || !strings.Contains(msg, tc.reason) ||
		!strings.HasPrefix(msg, lang+": cannot quote ") {
		t.Errorf("%s: %.40q: got %+v (%q), want offset %d and reason %q", lang, tc.in, qe, msg, tc.offset, tc.reason)
	}
	if tc.offset >= 0 && !strings.Contains(msg, "(at byte ") {
		t.Errorf("%s: %q does not give the offset", lang, msg)
	}
	if len(tc.in) > 3 && strings.Contains(msg, tc.in) {
		t.Errorf("%s: message %q repeats the input", lang, msg)
	}
}

func TestErrorsNeverQuoteTheInput(t *testing.T) {
	secret := "SECRET-tenant-value-" + strings.Repeat("x", 5000)
	for _, in := range []string{secret + "$", secret + "\x00", "$" + secret, secret} {
		for name, quote := range quoters {
			if _, err := quote(in); err != nil && strings.Contains(err.Error(), "SECRET") {
				t.Errorf("%s: error %q repeats the input", name, err)
			}
		}
	}
}

func TestNginxLengthLimit(t *testing.T) {
	// 4093 bytes that need no escape fill a 4095-byte token exactly; 2046 that all need one
	// make 4094 bytes, and 2047 would make 4096.
	for _, tc := range []struct {
		in   string
		want int
	}{
		{strings.Repeat("a", 4093), 4095},
		{strings.Repeat("a", 4091) + `\`, 4095},
		{strings.Repeat(`\`, 2046), 4094},
		{strings.Repeat("\n", 2046), 4094},
	} {
		got, err := Nginx(tc.in)
		if err != nil || len(got) != tc.want {
			t.Errorf("Nginx(%d bytes) = %d bytes, %v; want a %d-byte token", len(tc.in), len(got), err, tc.want)
		}
	}
	for _, in := range []string{strings.Repeat("a", 4094), strings.Repeat("a", 4092) + `"`, strings.Repeat(`\`, 2047), strings.Repeat("a", 1<<20)} {
		if _, err := Nginx(in); err == nil {
			t.Errorf("Nginx(%d bytes) did not refuse a token over %d bytes", len(in), nginxMaxToken)
		}
	}
}

func TestHAProxyHasNoLengthLimit(t *testing.T) {
	in := strings.Repeat("a'b\n", 1<<18)
	got, err := HAProxy(in)
	if err != nil {
		t.Fatal(err)
	}
	if words, err := haproxyLine(got); err != nil || len(words) != 1 || words[0] != in {
		t.Errorf("a %d-byte string did not read back as itself (%v)", len(in), err)
	}
}

// quoters are the functions under test, by name.
var quoters = map[string]func(string) (string, error){
	"Nginx":            Nginx,
	"HAProxy":          HAProxy,
	"HAProxyLogFormat": HAProxyLogFormat,
}

func TestHostileInputsReadBack(t *testing.T) {
	inputs := slices.Clone(hostileInputs)
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		inputs = append(inputs, randomInput(r, 40))
	}
	for _, in := range inputs {
		checkNginx(t, in)
		checkHAProxy(t, in, HAProxy, in)
		checkHAProxy(t, in, HAProxyLogFormat, strings.ReplaceAll(in, "%", "%%"))
	}
}

// checkNginx checks Nginx's pure properties on in: refused exactly when it should be, and
// otherwise one token that the reader model turns back into in, with no raw line break, no "$"
// and no unescaped double quote.
func checkNginx(t *testing.T, in string) {
	t.Helper()
	got, err := Nginx(in)
	wantErr := strings.ContainsAny(in, "\x00$")
	if err != nil {
		if !wantErr && nginxQuotedLen(in) <= nginxMaxToken {
			t.Errorf("Nginx(%q) refused: %v", in, err)
		}
		return
	}
	if wantErr {
		t.Fatalf("Nginx(%q) = %q; want a refusal", in, got)
	}
	if len(got) > nginxMaxToken || strings.ContainsAny(got, "\n\r\t$\x00") {
		t.Errorf("Nginx(%q) = %q: too long, or has a raw line break, tab, $ or NUL", in, got)
	}
	words, end, rerr := nginxDirective("return 200 " + got + ";")
	if rerr != nil || end != ';' || len(words) != 3 || words[2] != in {
		t.Errorf("Nginx(%q) = %q reads back as %q, %q (%v)", in, got, words, end, rerr)
	}
	words, end, rerr = nginxDirective("add_header X " + got + " always;")
	if rerr != nil || end != ';' || len(words) != 4 || words[2] != in {
		t.Errorf("Nginx(%q) = %q reads back as %q, %q (%v)", in, got, words, end, rerr)
	}
}

// nginxQuotedLen is the length of Nginx's token for in: two quotes, and two bytes for each
// byte it escapes.
func nginxQuotedLen(in string) int {
	n := len(in) + 2
	for i := 0; i < len(in); i++ {
		if strings.IndexByte("\"\\\t\n\r", in[i]) >= 0 {
			n++
		}
	}
	return n
}

// checkHAProxy checks a HAProxy quoting function's pure properties on in: refused exactly when
// it should be, and otherwise one word that the reader model turns back into want, with no byte
// that ends a line and no double quote outside single quotes.
func checkHAProxy(t *testing.T, in string, quote func(string) (string, error), want string) {
	t.Helper()
	got, err := quote(in)
	wantErr := in == "" || strings.Contains(in, "\x00")
	if (err != nil) != wantErr {
		t.Fatalf("quote(%q) = %q, %v; want refused: %v", in, got, err, wantErr)
	}
	if err != nil {
		return
	}
	if strings.ContainsAny(got, "\x00\n\r") {
		t.Errorf("quote(%q) = %q has a byte that ends a line", in, got)
	}
	words, rerr := haproxyLine("kw " + got + " after")
	if rerr != nil || len(words) != 3 || words[1] != want || words[2] != "after" {
		t.Errorf("quote(%q) = %q reads back as %q (%v); want %q", in, got, words, rerr, want)
	}
}

// TestReaderModels checks the reader models on what nginx and HAProxy are documented to do, so
// that the property checks above cannot pass against a model that accepts anything.
func TestReaderModels(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{`return 200 "a;b";`, []string{"return", "200", "a;b"}},
		{`return 200 a;b;`, []string{"return", "200", "a"}},
		{`return 200 "a\"b\\c\nd\qe";`, []string{"return", "200", "a\"b\\c\nd\\qe"}},
		{`return 200 'a"b';`, []string{"return", "200", `a"b`}},
		{"return 200 a#b;", []string{"return", "200", "a#b"}},
		{"return # c\n200;", []string{"return", "200"}},
		{"set $a ${b}c;", []string{"set", "$a", "${b}c"}},
	} {
		words, _, err := nginxDirective(tc.src)
		if err != nil || !slices.Equal(words, tc.want) {
			t.Errorf("nginxDirective(%q) = %q, %v; want %q", tc.src, words, err, tc.want)
		}
	}
	for _, src := range []string{`return 200 "a"b;`, `return 200 "a`, "return 200 }"} {
		if words, _, err := nginxDirective(src); err == nil {
			t.Errorf("nginxDirective(%q) = %q; want an error", src, words)
		}
	}
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{`a 'b c' "d e" f\ g`, []string{"a", "b c", "d e", "f g"}},
		{`a 'x'\''y' "\x41\$" \#`, []string{"a", "x'y", "A$", "#"}},
		{`a '\n' \n "\n" \q`, []string{"a", `\n`, "\n", "\n", `\q`}},
		{"a\t\vb", []string{"a", "b"}},
	} {
		words, err := haproxyLine(tc.src)
		if err != nil || !slices.Equal(words, tc.want) {
			t.Errorf("haproxyLine(%q) = %q, %v; want %q", tc.src, words, err, tc.want)
		}
	}
	for _, src := range []string{`a "$HOME"`, "a # c", "a 'b", "a\nb", `a \xZZ`} {
		if words, err := haproxyLine(src); err == nil {
			t.Errorf("haproxyLine(%q) = %q; want an error", src, words)
		}
	}
}
