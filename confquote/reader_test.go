package confquote

import (
	"errors"
	"fmt"
	"strings"
)

// This file models the two configuration readers, from a reading of nginx's ngx_conf_read_token
// and HAProxy's parse_line. The models only back the pure property checks of the unit and fuzz
// tests; the oracle tests run the real binaries, which are the authority.

// nginxDirective models how nginx cuts one directive: it returns the words before the first
// unquoted ";" or "{" and that byte, after removing quotes and nginx's escapes.
func nginxDirective(src string) (words []string, end byte, err error) {
	var quoted, sQuoted, dQuoted, variable, comment bool
	needSpace, lastSpace := false, true
	start := 0
	for i := 0; i < len(src); i++ {
		ch := src[i]
		switch {
		case comment:
			comment = ch != '\n'
			continue
		case quoted:
			quoted = false
			continue
		case needSpace:
			switch ch {
			case ' ', '\t', '\r', '\n':
				lastSpace, needSpace = true, false
				continue
			case ';', '{':
				return words, ch, nil
			default:
				return nil, 0, fmt.Errorf("unexpected %q at %d", ch, i)
			}
		case lastSpace:
			start = i
			switch ch {
			case ' ', '\t', '\r', '\n':
				continue
			case ';', '{':
				return words, ch, nil
			case '}':
				return nil, 0, fmt.Errorf("unexpected } at %d", i)
			case '#':
				comment = true
				continue
			case '\\':
				quoted = true
			case '"':
				start, dQuoted = i+1, true
			case '\'':
				start, sQuoted = i+1, true
			case '$':
				variable = true
			}
			lastSpace = false
			continue
		}
		if ch == '{' && variable {
			continue
		}
		variable = false
		found := false
		switch {
		case ch == '\\':
			quoted = true
			continue
		case ch == '$':
			variable = true
			continue
		case dQuoted:
			found = ch == '"'
			dQuoted, needSpace = dQuoted && !found, found
		case sQuoted:
			found = ch == '\''
			sQuoted, needSpace = sQuoted && !found, found
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == ';' || ch == '{':
			found, lastSpace = true, true
		}
		if found {
			words = append(words, nginxUnescape(src[start:i]))
			if ch == ';' || ch == '{' {
				return words, ch, nil
			}
		}
	}
	return nil, 0, errors.New("unexpected end of input")
}

// nginxUnescape models the copy loop of ngx_conf_read_token.
func nginxUnescape(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) {
			switch raw[i+1] {
			case '"', '\'', '\\':
				i++
			case 't':
				b.WriteByte('\t')
				i++
				continue
			case 'r':
				b.WriteByte('\r')
				i++
				continue
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			}
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}

// errHAProxyEnv reports that the modelled HAProxy reader would expand an environment variable.
var errHAProxyEnv = errors.New("environment variable expansion")

// haproxyLine models HAProxy's parse_line on one configuration line, with the options haproxy
// uses for its configuration files. It returns the words; instead of expanding an environment
// variable it fails with errHAProxyEnv.
func haproxyLine(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	squote, dquote := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == 0 || c == '\n' || c == '\r':
			return nil, fmt.Errorf("line ends early at %d", i)
		case c == '#' && !squote && !dquote:
			return nil, fmt.Errorf("comment at %d", i)
		case c == '"' && !squote:
			dquote = !dquote
		case c == '\'' && !dquote:
			squote = !squote
		case c == '\\' && !squote:
			n, adv, err := haproxyBackslash(line[i:], dquote)
			if err != nil {
				return nil, err
			}
			cur.WriteByte(n)
			i += adv
		case isCSpace(c) && !squote && !dquote:
			for i+1 < len(line) && isCSpace(line[i+1]) {
				i++
			}
			words = append(words, cur.String())
			cur.Reset()
		case c == '$' && dquote:
			return nil, errHAProxyEnv
		default:
			cur.WriteByte(c)
		}
	}
	if squote || dquote {
		return nil, errors.New("unmatched quote")
	}
	return append(words, cur.String()), nil
}

// haproxyBackslash models one backslash sequence at the start of s outside single quotes. It
// returns the byte emitted and how many bytes after the backslash it consumed.
func haproxyBackslash(s string, dquote bool) (byte, int, error) {
	if len(s) < 2 {
		return '\\', 0, nil
	}
	switch s[1] {
	case ' ', '\\', '#', '\'', '"':
		return s[1], 1, nil
	case 't':
		return '\t', 1, nil
	case 'n':
		return '\n', 1, nil
	case 'r':
		return '\r', 1, nil
	case '$':
		if dquote {
			return '$', 1, nil
		}
	case 'x':
		var v byte
		if len(s) < 4 || !isHex(s[2]) || !isHex(s[3]) {
			return 0, 0, errors.New("bad hex escape")
		}
		fmt.Sscanf(s[2:4], "%02x", &v)
		return v, 3, nil
	}
	return '\\', 0, nil
}

// isCSpace is C's isspace in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || c >= '\t' && c <= '\r'
}

// isHex reports whether c is a hexadecimal digit.
func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
