package confquote

import (
	"math/rand/v2"
	"strings"
)

// hostileInputs are strings that try to break out of a quoted argument, expand something, or
// confuse a reader. The unit tests, the fuzz targets' seed corpus and the oracle tests share them.
var hostileInputs = []string{
	"", "plain", "a b", "  lead and trail  ", "two  spaces",
	`"`, `'`, `\`, `\\`, `\"`, `"\`, `\'`, `'\`, `''`, `""`, `"'"`, `'"'`,
	";", "{", "}", "#", "# comment", "a;b", "a{b}c", "}}}", "{{", ";;",
	`x; return 500 "pwned"; #`, `"; return 500 pwned; #`, `" always; add_header X-Evil 1; #`,
	`\"; return 500; #`, `'; http-request deny #`, `' if TRUE #`, `" } server { listen 1; #`,
	"$host", "${host}", "$1", "$", "a$", `\$host`, "$$", "${", "${HOME}", "$HOME", "${HOME-x}",
	"${HOME[*]}", "$.LINE", `"$HOME"`, `\"$HOME\"`,
	"\n", "\r", "\t", "\r\n", "a\nb", "line1\nline2;\n}", "\n#x\n", "a\rb", "\ta\t",
	"\x00", "a\x00b", "\x00$", "\x01", "\x1b[31mred\x1b[0m", "\x7f", "\x0b\x0c", "\x08\x1f",
	"é", "日本語", "😀", "\u2028\u2029", "\ufeff", "\u00a0", "\xff\xfe", "\xc3\x28", "\x80", "\xed\xa0\x80",
	"%", "%%", "%[env(HOME)]", "%{+Q}o", "%ci", "% ", "%1", "100%",
	`\n`, `\t`, `\r`, `\x41`, `\\x41`, `\x`, `\xZZ`, `\#`, `\ `, `\$`, `\0`,
	"-i", "--", "||", "!", "or", "if", "unless", "default", "include", "hostnames", "~^/a", "~*x",
	"=/x", "^~/x", "@named", "*.example.com", ".example.com", "[scope]", ".if", "(", ")", ",",
	"/path/with spaces/?q=1&x=y#frag", "a'b\"c\\d$e#f;g{h}i%j\nk\rl\tm",
	"/foo\\\"bar", "it's", `say "hi"`, "C:\\Windows\\", "trailing\\", "\\leading",
}

// quoteAlphabet is what randomInput draws from: bytes and snippets that mean something to one
// of the readers, mixed with ordinary text.
var quoteAlphabet = []string{
	`"`, `'`, `\`, ";", "{", "}", "#", "$", "%", " ", "\t", "\r", "\n", "\x00",
	"a", "b", "Z", "0", "9", "-", "_", ".", "/", "?", "=", "&", ",", "(", ")", "[", "]", "*", "~", "!", "@",
	"\x01", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f", "\x80", "\xc3", "\xff",
	"é", "日", "😀", "\u2028",
	"${", "$host", "$1", "%[", "%%", `\n`, `\t`, `\x41`, `\\`, `\"`, `'\''`, "--", "}}",
}

// randomInput returns a string of up to maxParts pieces drawn from quoteAlphabet.
func randomInput(r *rand.Rand, maxParts int) string {
	var b strings.Builder
	for n := r.IntN(maxParts + 1); n > 0; n-- {
		b.WriteString(quoteAlphabet[r.IntN(len(quoteAlphabet))])
	}
	return b.String()
}

// randomBytes returns n bytes, each drawn from 0x01-0xff.
func randomBytes(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(1 + r.IntN(255))
	}
	return string(b)
}

// without returns s with every byte in cut removed (byte by byte: s need not be UTF-8).
func without(s, cut string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(cut, s[i]) < 0 {
			b = append(b, s[i])
		}
	}
	return string(b)
}

// headerSafe reports whether s can travel as an HTTP header value that Go's client hands back
// unchanged: no control bytes, and no leading or trailing space (which the client trims).
func headerSafe(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return false
		}
	}
	return true
}
