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
	// Output is the rendered text an error about a template's output is about (the document
	// that is not valid YAML, or the whole output of a status template): what `gantry render
	// --debug` prints with line numbers. It is never part of Error(), which reaches statuses
	// and Events: it holds whatever the template printed, platform values included.
	Output string
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
	// reflectPrefix is how Go's reflect package starts the errors it gives functions that
	// index or slice (`reflect.Value.Slice: slice index out of bounds`): the function's name and
	// what went wrong say it to a blueprint author; the package's name does not.
	reflectPrefix = regexp.MustCompile(`reflect(?:\.Value\.[A-Za-z]+)?: `)
)

// templateError rewrites a text/template error as an *Error. It returns the template context
// (`<.Values.x>`) separately so that callers can classify it.
func templateError(blueprint, template string, err error) (*Error, string) {
	msg := reflectPrefix.ReplaceAllString(plainChecks(err.Error()), "")
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
		e.Msg = prefix + failure(x[1], x[2])
	}
	e.Msg += helmHint(e.Msg)
	return e, ctx
}

// helmOnly are what Helm's templates have and Gantry's do not, with what Gantry offers instead:
// a blueprint ported from a chart meets them first.
var helmOnly = []struct {
	re   *regexp.Regexp
	hint string
}{
	{regexp.MustCompile(`(?:^|[^\w])\$?\.Release\b`), "Helm's .Release does not exist here: a Gateway has no release; name objects after .Gateway.metadata.name, in .Gateway.metadata.namespace"},
	{regexp.MustCompile(`(?:^|[^\w])\$?\.Capabilities\b`), "Helm's .Capabilities does not exist here: a blueprint declares the kinds it renders (clusterScopedKinds), and the controller checks them against the API server"},
	{regexp.MustCompile(`(?:^|[^\w])\$?\.Chart\b`), "Helm's .Chart does not exist here: a blueprint has no chart; its name is the GatewayClass's parametersRef"},
	{regexp.MustCompile(`(?:^|[^\w])\$?\.Files\b`), "Helm's .Files does not exist here: put the files' contents in the blueprint's values or templates"},
	{regexp.MustCompile(`function "lookup" not defined`), "Helm's lookup does not exist here: what a template may read from the cluster is .Resources, the objects the Gateway's own templates rendered"},
}

// helmHint is the hint for a Helm-only name an error is about, or "".
func helmHint(msg string) string {
	for _, h := range helmOnly {
		if h.re.MatchString(msg) {
			return " (" + h.hint + ")"
		}
	}
	return ""
}

// failure says what failed at an action (ctx, as `<...>` shows it): msg after the action,
// but for fail and required, whose text is the blueprint's own words for whoever reads the
// error, the text first.
func failure(ctx, msg string) string {
	for _, fn := range []string{"fail", "required"} {
		if text, ok := strings.CutPrefix(msg, "error calling "+fn+": "); ok {
			return fmt.Sprintf("%s (%s, at <%s>)", text, fn, ctx)
		}
	}
	return ctx + ": " + msg
}

// sameCause merges the errors of templates that failed in one place they all include (a
// define of _helpers with a typo, used by six templates, gave six copies): one error, located
// where the failure is, listing the templates that include it. Errors that name a tenant value
// are kept as they are: which contribution to set apart depends on them.
func sameCause(errs []error) []error {
	type cause struct {
		file, at string
		line     int
	}
	// causeOf is where an error's innermost failure is, when that is in another template of
	// the blueprint than the one that ran (not the text of a tpl call).
	causeOf := func(err error) (cause, bool) {
		e, ok := err.(*Error)
		if !ok || e.Origin != "" {
			return cause{}, false
		}
		i := strings.LastIndex(e.Msg, "template: ")
		if i < 0 {
			return cause{}, false
		}
		m := templateErr.FindStringSubmatch(e.Msg[i:])
		if m == nil || m[1] == e.Template || m[1] == "tpl" {
			return cause{}, false
		}
		line, _ := strconv.Atoi(m[2])
		msg := m[3]
		if x := executingErr.FindStringSubmatch(m[3]); x != nil {
			msg = failure(x[1], x[2])
		}
		return cause{file: m[1], at: msg, line: line}, true
	}
	by := map[cause][]string{}
	for _, err := range errs {
		if c, ok := causeOf(err); ok {
			by[c] = append(by[c], err.(*Error).Template)
		}
	}
	var out []error
	done := map[cause]bool{}
	for _, err := range errs {
		c, ok := causeOf(err)
		switch {
		case !ok || len(by[c]) < 2:
			out = append(out, err) // one template: its own error says where, as it is
		case !done[c]:
			done[c] = true
			e := err.(*Error)
			out = append(out, &Error{Blueprint: e.Blueprint, Template: c.file, Line: c.line,
				Msg: fmt.Sprintf("%s (included by %s)", c.at, strings.Join(by[c], ", "))})
		}
	}
	return out
}
