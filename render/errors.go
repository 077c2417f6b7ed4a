package render

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Error is a render failure located as precisely as possible: the blueprint, the template (as
// its field path in the blueprint, e.g. gatewayTemplate.resourceTemplates.deployment), the
// template line, or the output document when the template ran but its output is wrong.
type Error struct {
	Blueprint string
	Template  string
	Line      int
	// Document is the 1-based output document the error is about, 0 when it is not about one.
	Document int
	// Origin names the tenant value behind the error, e.g. `GatewayConfig team-a/web value name`.
	Origin string
	// Holders, when several tenant sources hold that same value (a route hostname equal to a
	// Gateway annotation), names every one, Origin first: the check substitutes by value, so
	// it cannot tell which one's occurrence made the difference, and a caller that sets a
	// contribution apart must not take the first for the culprit.
	Holders []string
	Msg     string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "blueprint %s: %s", e.Blueprint, e.Template)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Document > 0 {
		fmt.Fprintf(&b, ": document %d", e.Document)
	}
	if e.Origin != "" {
		fmt.Fprintf(&b, ": %s", e.Origin)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// Pending is a template that reads a .Resources entry that does not exist yet (or has no
// status yet). It is not a failure: it is rendered again when that object changes.
type Pending struct {
	Template string
	// Waiting lists the .Resources entries the template reads.
	Waiting []string
	Reason  string
}

func (p Pending) String() string {
	return fmt.Sprintf("%s waits for .Resources.%s: %s", p.Template, strings.Join(p.Waiting, ", .Resources."), p.Reason)
}

// text/template reports `template: NAME:LINE[:COL]: [executing "NAME" at <CTX>: ]MSG`.
var (
	templateErr  = regexp.MustCompile(`^template: (.+?):(\d+)(?::\d+)?: (.*)$`)
	executingErr = regexp.MustCompile(`^executing "(?:.+?)" at <(.*?)>: (.*)$`)
)

// templateError rewrites a text/template error as an *Error. It returns the template context
// (`<.Values.x>`) separately so that callers can classify it.
func templateError(blueprint, template string, err error) (*Error, string) {
	msg := plainChecks(err.Error())
	e := &Error{Blueprint: blueprint, Template: template, Msg: msg}
	m := templateErr.FindStringSubmatch(msg)
	if m == nil {
		return e, ""
	}
	// An error inside a define of another template names that template; keep the one we ran
	// and say which template and line failed in the message.
	prefix := ""
	if m[1] != template {
		prefix = fmt.Sprintf("in %q line %s: ", m[1], m[2])
	} else {
		e.Line, _ = strconv.Atoi(m[2])
	}
	e.Msg = prefix + m[3]
	ctx := ""
	if x := executingErr.FindStringSubmatch(m[3]); x != nil {
		ctx = x[1]
		e.Msg = fmt.Sprintf("%s%s: %s", prefix, x[1], x[2])
	}
	return e, ctx
}
