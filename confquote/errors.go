package confquote

import "strconv"

// Error reports a string that a quoting function refused. Its message names the language, what
// the string has that the language cannot carry safely, the byte offset of the first offending
// byte when there is one, and why; it never repeats the string itself.
type Error struct {
	// Language is "nginx" or "haproxy".
	Language string
	// Problem says what was refused, e.g. "a string with a NUL byte".
	Problem string
	// Offset is the 0-based byte offset of the first offending byte in the input, or -1 when
	// the problem is the string as a whole (empty, too long).
	Offset int
	// Why says why the language cannot carry it.
	Why string
}

// Error returns e.g. `nginx: cannot quote a string with a NUL byte (at byte 7): ...`.
func (e *Error) Error() string {
	msg := e.Language + ": cannot quote " + e.Problem
	if e.Offset >= 0 {
		msg += " (at byte " + strconv.Itoa(e.Offset) + ")"
	}
	if e.Why != "" {
		msg += ": " + e.Why
	}
	return msg
}
