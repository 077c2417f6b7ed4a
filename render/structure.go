package render

import (
	"fmt"
	"slices"
	"sort"
	"time"
)

// The structure check: tenant strings are data, whatever a template does with them.
//
// Every template is rendered twice. Render A is the real one. Render B runs the same template
// on the same input with every tenant string (Input.Tainted, wherever it occurs: values,
// .Gateway, .HTTPRoute, .Hostnames, .Resources, and map keys) replaced by a placeholder, a
// plain word that YAML reads as one string in any context, and takes the branches A took at
// every `if` and `with` (see rewriteDecisions). If the tenant strings were data, A and B have
// the same structure: the same documents, the same node kinds (map, list or scalar) at every
// position, the same list lengths and the same map keys, except keys that hold a tenant string.
// Whatever a template did to a string (trunc, replace, b64dec, indent, inline toYaml, tpl…),
// if its content shaped the output, the two differ. No list of functions is involved.

// outputKind is how a template's output is parsed and what a failure says.
type outputKind struct {
	parse            func(text string) (parsed []any, doc int, err error)
	status           bool // one document, or nothing
	invalid, changed string
}

var (
	resourceOutput = outputKind{
		parse:   parseDocuments,
		invalid: "output is not valid YAML once this value is inserted (%v); the template must quote it, e.g. `| quote`",
		changed: "this value changed the YAML structure of the output (it would add documents or fields); the template must quote it, e.g. `| quote`, or use toYaml",
	}
	statusOutput = outputKind{
		parse:   parseStatus,
		status:  true,
		invalid: "output is not valid YAML once this value is inserted (%v)",
		changed: "this value changed the YAML structure of the status; the template must quote it",
	}
)

// structureCheck is render B of one render, beside render A.
type structureCheck struct {
	b   *Blueprint
	in  *Input
	sub *substitution
	// y is B's execution: same templates, placeholders in the data. It is made when B first
	// has to render: a render whose outputs are all in memory makes none.
	y *execution
	// key is the key of B's input (see checkcache.go), extended by each template in order;
	// keyed is false when the input cannot be keyed, and then B always renders.
	key   checkKey
	keyed bool
	// deadline is the render's: the check's renders spend the same time budget as A's, so
	// that a slow template cannot take the limit once per render the check makes.
	deadline time.Time
	// bDeadline is B's own, set when the check starts (the search's may be set apart, by tests).
	bDeadline time.Time
	// order lists the templates A rendered so far, in order, with the decisions each made,
	// those that failed or wait for a live object too: B renders them all in the same order
	// (the search for a culprit as well), so that it remembers the same include outputs as A
	// at every point and replays A's decisions where A made them. An include A remembered
	// made no decisions in the template that reused it; B must reuse it too.
	order []*compiled
	logs  map[*compiled]decisions
	// code is, per template, the shapes of the texts A ran through tpl.
	code map[*compiled][]string
	// caughtUp is how many templates of order B has rendered.
	caughtUp int
	// cy is C's execution (identity.go), made when the comparison first needs C; cCaughtUp is
	// how many templates of order it has rendered.
	cy        *execution
	cCaughtUp int
	// renders and parses count B's work on the success path, for tests of its cost.
	renders, parses int
}

// checked, when set (by tests), is told what each structure check cost.
var checked func(renders, parses int)

func (b *Blueprint) newStructureCheck(in *Input, deadline time.Time) *structureCheck {
	words := b.words
	if b.callsTpl {
		words = platformTemplateWords(b.words, in.Values, in.Tainted)
	}
	sub := newSubstitution(in.Tainted, words)
	s := &structureCheck{b: b, in: in, sub: sub, deadline: deadline, bDeadline: deadline, logs: map[*compiled]decisions{}, code: map[*compiled][]string{}}
	if sub.total() > 0 {
		s.key, s.keyed = bInputKey(b, in, sub)
	}
	return s
}

// execution returns B's execution, made on first use.
func (s *structureCheck) execution() (*execution, error) {
	if s.y == nil {
		y, err := s.b.newExecution(s.in, s.sub)
		if err != nil {
			return nil, err
		}
		y.budget.deadline = s.bDeadline
		s.y = y
	}
	return s.y, nil
}

func (s *structureCheck) done() {
	if checked != nil {
		checked(s.renders, s.parses)
	}
	if s.y != nil {
		s.y.done()
	}
	if s.cy != nil {
		s.cy.done()
	}
}

// ran notes that A rendered c, with the decisions it made and the code it ran through tpl,
// whether it succeeded or not.
func (s *structureCheck) ran(c *compiled, log decisions, code []string) {
	if s == nil {
		return
	}
	s.order = append(s.order, c)
	s.logs[c] = log
	if s.keyed {
		s.key = chainKey(s.key, c, log)
	}
	if len(code) > 0 {
		s.code[c] = slices.Clone(code)
	}
}

// verify renders c in B and compares B's output with A's: textA, parsed as kind says into
// parsedA, or failing at document docA with errA. It returns an *Error naming a tenant value
// that shaped the output, or nil. A output that is not valid YAML while B's is counts as a
// change of structure; both invalid is the template's own fault, for the caller to report.
func (s *structureCheck) verify(c *compiled, textA string, parsedA []any, docA int, errA error, kind outputKind) error {
	if s == nil || s.sub.total() == 0 {
		return nil
	}
	var out *bOutput
	if s.keyed {
		out = bMemory.get(s.key)
	}
	if out != nil {
		checkRemembered.Add(1)
	} else {
		y, err := s.execution()
		if err != nil {
			return err
		}
		textB, pending, errB := s.replay(y, &s.caughtUp, c)
		s.renders++
		checkRendered.Add(1)
		if y.budget.err != nil && y.budget.err.timeUp {
			return errB // the render's time ran out during the check: the render's failure, not a tenant's
		}
		if errB != nil || pending != nil {
			return s.blame(c, textA, parsedA, docA, errA, kind)
		}
		out = &bOutput{text: textB, code: slices.Clone(y.code)}
		if s.keyed {
			bMemory.Put(s.key, out)
		}
	}
	if !slices.Equal(out.code, s.code[c]) {
		return s.blame(c, textA, parsedA, docA, errA, kind)
	}
	// The common case costs no second parse: B's text with the placeholders put back is A's
	// text, and every string put back is interchangeable with its placeholder, so the two
	// texts have one structure and one type at every node.
	if errA == nil && s.sub.restoresTo(out.text, textA) {
		return nil
	}
	parsedB, valid := out.parsed, out.valid
	if !out.once {
		var errYAML error
		parsedB, _, errYAML = kind.parse(out.text)
		s.parses++
		valid = errYAML == nil
		if s.keyed {
			bMemory.parsed(s.key, out, parsedB, valid)
		}
	}
	switch {
	case errA != nil && !valid:
		return nil
	case errA == nil && valid && !moreComments(textA, out.text) &&
		s.identicalWith(s.sub, textA, parsedA, out.text, parsedB, kind, func() (string, bool) {
			if s.cy == nil {
				y, err := s.b.newExecution(s.in, s.sub.other())
				if err != nil {
					return "", false
				}
				y.budget.deadline = s.bDeadline
				s.cy = y
			}
			text, pending, err := s.replay(s.cy, &s.cCaughtUp, c)
			return text, err == nil && pending == nil && slices.Equal(s.cy.code, s.code[c])
		}):
		return nil
	}
	return s.blame(c, textA, parsedA, docA, errA, kind)
}

// replay renders c in y (B's or C's execution), after the templates A rendered before c that y
// has not (caughtUp counts those it has): their output is not compared (A's failed, or was
// compared already), but what they leave behind (remembered include outputs, values changed
// in place) is what c's render in A saw. Every template replays A's decisions.
func (s *structureCheck) replay(y *execution, caughtUp *int, c *compiled) (string, *Pending, error) {
	for ; *caughtUp < len(s.order) && s.order[*caughtUp] != c; *caughtUp++ {
		r := s.order[*caughtUp]
		y.d.start(s.logs[r])
		_, _, _ = y.run(r)
	}
	*caughtUp++ // c itself
	y.d.start(s.logs[c])
	return y.run(c)
}

// identicalWith reports whether A's output is B's exactly, but for what depends on tenant
// content (identity.go), sub being B's substitution: first on the parses (parsedA, parsedB),
// and where that cannot decide, on the texts parsed in YAML's order. renderC renders the
// template with C's placeholders, when it is needed.
func (s *structureCheck) identicalWith(sub *substitution, textA string, parsedA []any, textB string, parsedB []any, kind outputKind, renderC func() (string, bool)) bool {
	m := &identityCheck{sub: sub, cText: renderC, status: kind.status}
	switch m.sameJSON(parsedA, parsedB) {
	case alike:
		return true
	case unlike:
		return false
	}
	a, errA := orderedDocuments(textA, kind.status)
	b, errB := orderedDocuments(textB, kind.status)
	return errA == nil && errB == nil && m.same(a, b)
}

// blame finds a tenant string whose substitution changes c's output: it renders B again with
// only the first n tenant strings (in sorted order) replaced, and searches n by bisection.
// This is the failure path: a few more renders are fine.
func (s *structureCheck) blame(c *compiled, textA string, parsedA []any, docA int, errA error, kind outputKind) error {
	var failure error  // the error B ran into, if it failed to render
	var spent error    // a budget exceeded while searching: reported as is, no tenant blamed
	var code bool      // B ran other template code through tpl
	var commented bool // A has comments B does not
	// render renders c after the templates before it, with sub, as B or C does.
	render := func(sub *substitution) (text string, y *execution, err error) {
		y, err = s.b.newExecution(s.in, sub)
		if err != nil {
			return "", nil, err
		}
		y.budget.deadline = s.deadline
		defer func() {
			if y.budget.err != nil && y.budget.err.timeUp && spent == nil {
				spent = &Error{Blueprint: s.b.Name, Template: c.field, Msg: y.budget.err.msg}
			}
		}()
		for _, r := range s.order {
			y.d.start(s.logs[r])
			text, pending, err := y.run(r)
			if r != c {
				continue
			}
			if err == nil && pending != nil {
				err = fmt.Errorf("%s", pending.Reason)
			}
			return text, y, err
		}
		return "", y, fmt.Errorf("template %s was not rendered", c.field)
	}
	differs := func(n int) bool {
		if spent != nil {
			return true
		}
		text, y, err := render(s.sub.prefix(n))
		if y != nil {
			defer y.done()
		}
		if err != nil {
			failure = err
			return true
		}
		if !slices.Equal(y.code, s.code[c]) {
			code = true
			return true
		}
		parsedB, _, errB := kind.parse(text)
		if errA != nil {
			return errB == nil
		}
		if errB != nil {
			return true
		}
		sub := s.sub.prefix(n)
		if !s.identicalWith(sub, textA, parsedA, text, parsedB, kind, func() (string, bool) {
			text, y, err := render(sub.other())
			if y != nil {
				defer y.done()
			}
			return text, err == nil && slices.Equal(y.code, s.code[c])
		}) {
			return true
		}
		commented = moreComments(textA, text)
		return commented
	}
	// differs(0) is A itself, differs(total) is B: the culprit is the first value whose
	// stand-in makes the difference.
	culprit := sort.Search(s.sub.total()-1, func(i int) bool { return differs(i + 1) })
	origin := s.sub.origins[culprit]
	failure, code, commented = nil, false, false
	reproduced := differs(culprit + 1)
	if spent != nil {
		return spent
	}
	if !reproduced {
		// Not reproduced (a template that is not deterministic): say what is known.
		return &Error{Blueprint: s.b.Name, Template: c.field,
			Msg: "the YAML structure of the output depends on the content of tenant strings; the template must quote them, e.g. `| quote`"}
	}
	e := &Error{Blueprint: s.b.Name, Template: c.field, Origin: origin, Holders: s.sub.holders(culprit, s.in.Tainted)}
	switch {
	case errA != nil:
		e.Document, e.Msg = docA, fmt.Sprintf(kind.invalid, errA)
	case code:
		e.Msg = "tpl would run template code that this value brings (an action, a field, a variable or a function); " +
			"tenant strings may reach tpl only as text"
	case failure != nil:
		e.Msg = fmt.Sprintf("the template's output depends on this value's content: with an inert stand-in in its place, it fails (%v); "+
			"compare tenant values with `if eq`, do not use them as keys, widths or templates", failure)
	case commented:
		e.Msg = "this value turned part of the template's output into a YAML comment (it would hide what the template wrote after it); the template must quote it, e.g. `| quote`"
	default:
		e.Msg = kind.changed
	}
	return e
}
