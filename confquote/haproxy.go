package confquote

import "strings"

// hexDigits spells the \xNN escapes HAProxy reads outside quotes.
const hexDigits = "0123456789abcdef"

// HAProxy returns s as one haproxy.cfg word that HAProxy's line parser turns back into exactly s,
// following the quoting rules of HAProxy 2.x and 3.x (configuration manual, section 2.2).
//
// The word is built from pieces that HAProxy joins into one word when nothing separates them:
//   - runs of ordinary bytes in strong quotes ('...'), inside which HAProxy interprets nothing:
//     no "$" environment variable expansion (that happens only inside double quotes), no
//     backslash escapes, no "#" comment, no space or tab as separator;
//   - outside the quotes, a backslash escape for each byte a strong quote cannot hold (HAProxy
//     ends a line at LF and CR even inside quotes) or that would make the file hard to read:
//     "'" as \', LF as \n, CR as \r, tab as \t, and the other control bytes (0x01-0x1f, 0x7f)
//     as \xNN.
//
// Bytes 0x80-0xff (UTF-8 or not) stay inside the quotes as they are. For example, the Go strings
// "it's $HOME # x" and "a\nb" become:
//
//	'it'\''s $HOME # x'
//	'a'\n'b'
//
// HAProxy has no limit on the length of a line, but a keyword may have one of its own
// (http-request return's string must fit in tune.bufsize).
//
// HAProxy refuses (with an *Error):
//   - the empty string: HAProxy takes an empty word as the end of the line's arguments, so
//     HAProxy 2.x silently ignores every word after it (an ACL line "acl a path /x <empty> /admin"
//     no longer matches /admin), and HAProxy 3.2 and later reject the line;
//   - NUL (with its byte offset): HAProxy's arguments are C strings, so the bytes after it are
//     silently dropped.
//
// What holds: used as a whole word, with unquoted whitespace (or the end of the line) on both
// sides, the result is exactly one argument whose value is s; it cannot add words, start a
// comment, end the line or expand a variable. That makes it safe wherever a keyword takes the
// argument as plain text, e.g. http-request return's string or a header name.
//
// What does not hold: HAProxy reads some arguments a second time, after removing the quotes:
//   - log-format arguments (http-request/http-response set-header and add-header values,
//     return's lf-string and hdr values, set-var-fmt, redirect location, log-format, ...): a "%"
//     in s starts a log-format variable or sample expression, such as %[env(NAME)], which
//     reads the process environment. Use HAProxyLogFormat there.
//   - arguments of sample fetches and converters inside parentheses, e.g. str(...) or
//     regsub(...): a second parser splits them on "," and ")" and removes quotes again.
//   - regular expressions (-m reg, regsub, replace-header, replace-path, ...): metacharacters
//     are not escaped. Not safe in any regex.
//   - conditions and ACL patterns: HAProxy cannot tell a quoted word from a bare one, so an s of
//     "}" ends an anonymous ACL "{ ... }", "||", "or" and "!" are operators where a condition
//     expects one, and a pattern starting with "-" is taken for a flag unless "--" precedes
//     the patterns. The same goes for any keyword a directive scans for among its words, and
//     .if and .elif lines join their words with spaces and parse the result again.
//   - HTTP header names and values: HAProxy sends CR and LF as they are, so s containing them
//     splits the header; the caller must refuse them.
func HAProxy(s string) (string, error) {
	if err := haproxyCheck(s); err != nil {
		return "", err
	}
	return haproxyWord(s), nil
}

// HAProxyLogFormat returns s as one haproxy.cfg word for an argument that HAProxy reads as a
// log-format string, such that the text it produces is exactly s: it doubles every "%" (which
// log-format reads back as one literal "%") and then quotes the result as HAProxy does, with
// the same refusals (error offsets count in s).
//
// Use it for http-request and http-response set-header and add-header values, the lf-string and
// hdr values of http-request return, set-var-fmt and redirect location. In log-format,
// error-log-format and unique-id-format HAProxy also merges runs of spaces into one, so there
// the produced text keeps s's words but not its exact spacing. Everything HAProxy's doc comment
// says does not hold also does not hold here, except the log-format reading of "%".
func HAProxyLogFormat(s string) (string, error) {
	if err := haproxyCheck(s); err != nil {
		return "", err
	}
	return haproxyWord(strings.ReplaceAll(s, "%", "%%")), nil
}

// haproxyCheck refuses what no haproxy.cfg word can carry: the empty string and NUL.
func haproxyCheck(s string) error {
	if s == "" {
		return &Error{
			Language: "haproxy",
			Problem:  "an empty string",
			Offset:   -1,
			Why: "an empty word ends haproxy's argument list: HAProxy 2.x silently ignores " +
				"the words after it, 3.2 and later reject the line",
		}
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return &Error{
			Language: "haproxy",
			Problem:  "a string with a NUL byte",
			Offset:   i,
			Why:      "haproxy's arguments are C strings, which end at the first NUL",
		}
	}
	return nil
}

// haproxyWord quotes s, which has no NUL, as described on HAProxy.
func haproxyWord(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		esc := haproxyEscape(c)
		if esc == "" && !quoted || esc != "" && quoted {
			b.WriteByte('\'')
			quoted = !quoted
		}
		if esc == "" {
			b.WriteByte(c)
		} else {
			b.WriteString(esc)
		}
	}
	if quoted {
		b.WriteByte('\'')
	}
	return b.String()
}

// haproxyEscape returns the unquoted backslash escape HAProxy writes for c, or "" for a byte that
// goes inside strong quotes.
func haproxyEscape(c byte) string {
	switch {
	case c == '\'':
		return `\'`
	case c == '\t':
		return `\t`
	case c == '\n':
		return `\n`
	case c == '\r':
		return `\r`
	case c < 0x20 || c == 0x7f:
		return `\x` + string(hexDigits[c>>4]) + string(hexDigits[c&0xf])
	}
	return ""
}
