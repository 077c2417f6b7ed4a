// Package confquote quotes arbitrary strings as single arguments of a proxy's configuration
// language, so that a blueprint can write tenant-controlled text (route hostnames, paths,
// header names and values) into a whole nginx.conf or haproxy.cfg without letting it add
// directives, end a block, start a comment or expand a variable.
//
// Each function returns one token that the proxy's configuration reader turns back into exactly
// the input, byte for byte, or an *Error naming what it cannot carry and where. The tests check
// this against the real nginx and haproxy binaries (see hack/config-servers.sh).
//
// Quoting only answers "which bytes does the directive receive". Many directives then give
// those bytes a meaning of their own (a regular expression, a location modifier, a map keyword,
// a log-format, an ACL flag, a header that must not contain CR or LF): each function's doc
// comment says which of those second-level readings it covers and which it does not. None of the
// functions makes a string safe to use as (part of) a regular expression.
package confquote
