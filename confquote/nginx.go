package confquote

import (
	"strconv"
	"strings"
)

// nginxMaxToken is the longest token, quotes included, that nginx's configuration reader
// accepts wherever the token falls in the file: it reads through a 4096-byte buffer and fails
// with "too long parameter" when a parameter, from after its opening quote up to and including
// the byte that follows its closing quote, fills that buffer.
const nginxMaxToken = 4095

// Nginx returns s as one nginx configuration token that nginx's configuration reader turns back
// into exactly s, with no variable expansion.
//
// The token is s between double quotes, with backslash written \\, double quote \", tab \t,
// line feed \n and carriage return \r. Every other byte is written as it is, including ' ; { }
// # spaces, other control bytes, non-ASCII and invalid UTF-8: inside double quotes nginx's reader
// gives none of them a meaning, and it has no escape for them.
//
// Nginx refuses (with an *Error naming the first offending byte's offset):
//   - "$": nginx expands $name, ${name} and $1..$9 in every argument it compiles as a script
//     (return, add_header, proxy_set_header, set, map values, rewrite, proxy_pass, root, ...),
//     inside quotes too, and has no way to write a literal "$" there: \$ keeps the backslash and
//     still expands, while "$$", "${" and a "$" at the end are "invalid variable name" errors.
//     Directives that do not expand variables would take "$" literally, but the caller's
//     directive is not known here, so "$" is refused everywhere.
//   - NUL: nginx carries it into some directives but compares others as C strings, so the bytes
//     after it are silently ignored (a map key "default\x00x" is taken for the keyword default).
//   - a string whose token would be longer than 4095 bytes (the limit of nginx's reader for one
//     parameter). Escapes count, so every string of up to 2046 bytes fits, and one without
//     backslashes, double quotes, tabs, CRs or LFs fits up to 4093 bytes.
//
// What holds: used as a whole directive argument, separated by whitespace from what comes before
// it and followed by whitespace, ";" or "{", the token is exactly one argument whose value is s;
// it cannot end the directive or block, open a block, start a comment or expand a variable. That
// makes it safe wherever a directive takes the argument as plain text: return's text, the
// values of add_header, proxy_set_header and set, map values, and (as far as the configuration
// goes; see header values below) header names. Directives that never expand variables, such as
// location and server_name, also receive exactly s, but read it a second time, as listed next.
//
// What does not hold: nginx reads some arguments a second time, and quoting does not change
// that reading, because nginx removes the quotes first:
//   - regular expressions: location ~, server_name ~, map keys starting with ~, the right side
//     of if's ~ and ~* operators, rewrite's pattern. Metacharacters in s are not escaped. Not
//     safe in any regex.
//   - location: a leading "=", "~", "~*", "^~" or "@" in s is a modifier, not part of the URI.
//   - server_name: a leading "~" makes a regex, a leading "*." or "." and a trailing ".*" make
//     wildcards, and names are lowercased.
//   - map keys: a leading "~" makes a regex, one leading "\" is removed, and "default",
//     "hostnames", "include" and "volatile" are keywords; keys match case-insensitively.
//   - rewrite's replacement: a "?" starts the arguments (a trailing one drops the request's),
//     and a replacement starting with http:// or https:// is a redirect.
//   - file paths (root, alias, include, ...): a relative s is resolved against nginx's prefix;
//     include also expands glob patterns.
//   - HTTP header names and values (add_header, proxy_set_header, ...): nginx sends CR and LF
//     as they are, so s containing them splits the header; the caller must refuse them.
func Nginx(s string) (string, error) {
	if i := strings.IndexAny(s, "\x00$"); i >= 0 {
		return "", nginxRefusal(s, i)
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		writeNginxByte(&b, s[i])
	}
	b.WriteByte('"')
	if b.Len() > nginxMaxToken {
		return "", nginxTooLong(len(s), b.Len())
	}
	return b.String(), nil
}

// nginxTooLong explains why Nginx refused a string of n bytes whose token has quoted bytes.
func nginxTooLong(n, quoted int) *Error {
	return &Error{
		Language: "nginx",
		Problem: "a string of " + strconv.Itoa(n) + " bytes whose quoted form is " +
			strconv.Itoa(quoted) + " bytes",
		Offset: -1,
		Why: "nginx refuses a parameter longer than " + strconv.Itoa(nginxMaxToken) +
			` bytes, quotes included ("too long parameter")`,
	}
}

// writeNginxByte writes one byte of a double-quoted nginx token.
func writeNginxByte(b *strings.Builder, c byte) {
	switch c {
	case '"', '\\':
		b.WriteByte('\\')
		b.WriteByte(c)
	case '\t':
		b.WriteString(`\t`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	default:
		b.WriteByte(c)
	}
}

// nginxRefusal explains why Nginx refused the byte s[i], a NUL or a "$".
func nginxRefusal(s string, i int) *Error {
	if s[i] == 0 {
		return &Error{
			Language: "nginx",
			Problem:  "a string with a NUL byte",
			Offset:   i,
			Why:      "nginx compares many arguments as C strings, which end at the first NUL",
		}
	}
	return &Error{
		Language: "nginx",
		Problem:  `a string with a "$"`,
		Offset:   i,
		Why: `nginx expands "$" as a variable in many directive arguments, quoted or not, ` +
			`and has no escape for a literal "$"`,
	}
}
