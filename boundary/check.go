package boundary

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"gantry.dev/gantry/internal/lru"
)

// The structure check: tenant values are data, whatever a template does with them.
//
// Every template is rendered twice. Render A is the real one. Render B runs the same template
// on the same input with every tenant value (strings, numbers, bools and keys, wherever they
// occur) replaced by a stand-in (standins.go), and takes the branches A took at every `if`,
// `with` and `ternary`, and A's loop counts (decide.go). A's output must then be B's, node by
// node, but for what depends on tenant content (identity.go); and tpl must have run code of
// the same shapes in both (code.go). Whatever a template did to a value (trunc, replace,
// b64dec, indent, inline toYaml, tpl…), if its content shaped the output, the two differ. No
// list of functions is involved.
//
// The engine is behind Engine and Run: the check only starts renders with stand-ins, renders
// the templates A rendered in A's order with A's decisions, and reads their text, the code
// they ran through tpl, and whether they failed.

// Template is one of the engine's compiled templates: the check only names it.
type Template interface{ Name() string }

// Engine starts renders of one input for the check.
type Engine interface {
	// Start begins a render of the input with sub's stand-ins for the tenant values, under
	// guard (nil: tpl runs any text; learning: tpl notes its texts), spending time until
	// deadline.
	Start(sub *Substitution, guard *TplGuard, deadline time.Time) (Run, error)
}

// Run is one render in progress: its templates render one after another and see what earlier
// ones left behind (include outputs remembered, values changed in place).
type Run interface {
	// Render renders t. With replay nil it decides every conditional itself and records what
	// it decided; otherwise it takes replay's decisions where there are some.
	Render(t Template, replay Decisions) Rendered
	// Done ends the render and releases what it holds.
	Done()
}

// Rendered is what one template's render gave.
type Rendered struct {
	// OutOfStep is set when a replaying render's decisions departed from A's record
	// (Decider.Departed): its output says nothing about A's.
	OutOfStep bool
	Text      string
	// Err is set when the template failed, or waits for a live object.
	Err error
	// Decisions is what the template decided (recorded when Render was given no replay).
	Decisions Decisions
	// Code is the shape of each text the template ran through tpl (CodeShape).
	Code []string
	// TimeUp is set once the render's time ran out: the render's failure, not a tenant's.
	TimeUp error
	// Refused is set when the tpl guard refused a text in this template.
	Refused bool
}

// Output says how a template's output is parsed, and which kind it is.
type Output struct {
	// Parse parses the text as the engine does: into JSON-typed documents, or the number of
	// the document that fails (from 1) and why.
	Parse func(text string) (parsed []any, doc int, err error)
	// Status is set for the status template: one document, or nothing.
	Status bool
}

func (o Output) invalid() string {
	if o.Status {
		return "output is not valid YAML once this value is inserted (%v)"
	}
	return "output is not valid YAML once this value is inserted (%v); the template must quote it, e.g. `| quote`"
}

func (o Output) changed() string {
	if o.Status {
		return "this value changed the YAML structure of the status; the template must quote it"
	}
	return "this value changed the YAML structure of the output (it would add documents or fields); the template must quote it, e.g. `| quote`, or use toYaml"
}

// Refusal is the check's verdict on a template: a tenant value shaped its output. It names
// the value by where it came from; the engine adds the blueprint's name.
type Refusal struct {
	Template string
	Document int      // the document of A that failed to parse, from 1; 0 when none did
	Origin   string   // where the value came from; empty when the check could not tell
	Holders  []string // every source that gave the same value, when there are several
	Msg      string
}

func (r *Refusal) Error() string { return r.Template + ": " + r.Msg }

// Check is render B of one render, beside render A.
type Check struct {
	engine  Engine
	sub     *Substitution
	tainted []Tainted
	// y is B's render: same templates, stand-ins in the data. It is started when B first has
	// to render: a render whose outputs are all in memory starts none.
	y Run
	// key is the key of B's input (see memory.go), extended by each template in order;
	// keyed is false when the input cannot be keyed, and then B always renders.
	key   lru.Key
	keyed bool
	// deadline is the render's: the check's renders spend the same time budget as A's, so
	// that a slow template cannot take the limit once per render the check makes.
	deadline time.Time
	// order lists the templates A rendered so far, in order, with the decisions each made,
	// those that failed or wait for a live object too: B renders them all in the same order
	// (the search for a culprit as well), so that it remembers the same include outputs as A
	// at every point and replays A's decisions where A made them. An include A remembered
	// made no decisions in the template that reused it; B must reuse it too.
	order []Template
	logs  map[Template]Decisions
	// code is, per template, the shapes of the texts A ran through tpl.
	code map[Template][]string
	// caughtUp is how many templates of order B has rendered.
	caughtUp int
	// cy is C's render (identity.go), started when the comparison first needs C; cCaughtUp
	// is how many templates of order it has rendered.
	cy        Run
	cCaughtUp int
	// renders and parses count B's work on the success path, for tests of its cost.
	renders, parses int
}

// NewCheck begins the check of one render. sub holds the render's tenant values; key is the
// key of B's input, written by the engine with a Hasher of sub (keyed false: none).
func NewCheck(engine Engine, sub *Substitution, tainted []Tainted, key lru.Key, keyed bool, deadline time.Time) *Check {
	return &Check{engine: engine, sub: sub, tainted: tainted, key: key, keyed: keyed, deadline: deadline,
		logs: map[Template]Decisions{}, code: map[Template][]string{}}
}

// Substitution is the check's B stand-ins.
func (s *Check) Substitution() *Substitution { return s.sub }

// Cost is what B rendered and parsed on the success path so far.
func (s *Check) Cost() (renders, parses int) { return s.renders, s.parses }

// Done ends the check's renders.
func (s *Check) Done() {
	if s.y != nil {
		s.y.Done()
	}
	if s.cy != nil {
		s.cy.Done()
	}
}

// Ran notes that A rendered t, with the decisions it made and the code it ran through tpl,
// whether it succeeded or not.
func (s *Check) Ran(t Template, log Decisions, code []string) {
	if s == nil {
		return
	}
	s.order = append(s.order, t)
	s.logs[t] = log
	if s.keyed {
		s.key = chainKey(s.key, t, log)
	}
	if len(code) > 0 {
		s.code[t] = slices.Clone(code)
	}
}

// Verify renders t in B and compares B's output with A's: textA, parsed by out into parsedA,
// or failing at document docA with errA. It returns a *Refusal naming a tenant value that
// shaped the output, the render's own error when its time ran out, or nil. A output that is
// not valid YAML while B's is counts as a change of structure; both invalid is the
// template's own fault, for the caller to report.
func (s *Check) Verify(t Template, textA string, parsedA []any, docA int, errA error, out Output) error {
	if s == nil || s.sub.Total() == 0 {
		return nil
	}
	var b *bOutput
	if s.keyed {
		b = bMemory.get(s.key)
	}
	if b != nil {
		checkRemembered.Add(1)
	} else {
		if s.y == nil {
			y, err := s.engine.Start(s.sub, nil, s.deadline)
			if err != nil {
				return err
			}
			s.y = y
		}
		r := s.replay(s.y, &s.caughtUp, t)
		s.renders++
		checkRendered.Add(1)
		if r.TimeUp != nil {
			return cmpErr(r.Err, r.TimeUp) // the render's time ran out during the check: the render's failure, not a tenant's
		}
		// B's output can be compared with A's only if B took A's decisions, every one and
		// no other: a call A made and B did not (or the other way round) shifts every later
		// decision of the helper it includes, whatever shifted it (a memo, and/or stopping
		// early, a tpl text's branch, a with B cannot take, a range over a tenant's choice).
		if r.Err != nil || r.OutOfStep {
			return s.blame(t, textA, parsedA, docA, errA, out)
		}
		b = &bOutput{text: r.Text, code: slices.Clone(r.Code)}
		if s.keyed {
			bMemory.Put(s.key, b)
		}
	}
	if !slices.Equal(b.code, s.code[t]) {
		return s.blame(t, textA, parsedA, docA, errA, out)
	}
	// The common case costs no second parse: B's text with the stand-ins put back is A's
	// text, and every value put back is interchangeable with its stand-in, so the two texts
	// have one structure and one type at every node.
	if errA == nil && s.sub.RestoresTo(b.text, textA) {
		return nil
	}
	parsedB, valid := b.parsed, b.valid
	if !b.once {
		var errYAML error
		parsedB, _, errYAML = out.Parse(b.text)
		s.parses++
		valid = errYAML == nil
		if s.keyed {
			bMemory.parsed(s.key, b, parsedB, valid)
		}
	}
	switch {
	case errA != nil && !valid:
		return nil
	case errA == nil && valid && !moreComments(textA, b.text) &&
		identicalWith(s.sub, textA, parsedA, b.text, parsedB, out, func() (string, bool) {
			if s.cy == nil {
				y, err := s.engine.Start(s.sub.Other(), nil, s.deadline)
				if err != nil {
					return "", false
				}
				s.cy = y
			}
			r := s.replay(s.cy, &s.cCaughtUp, t)
			return r.Text, r.Err == nil && !r.OutOfStep && slices.Equal(r.Code, s.code[t])
		}):
		return nil
	}
	return s.blame(t, textA, parsedA, docA, errA, out)
}

// cmpErr is the first error that is set.
func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// replay renders t in y (B's or C's render), after the templates A rendered before t that y
// has not (caughtUp counts those it has): their output is not compared (A's failed, or was
// compared already), but what they leave behind (remembered include outputs, values changed
// in place) is what t's render in A saw. Every template replays A's decisions.
func (s *Check) replay(y Run, caughtUp *int, t Template) Rendered {
	strayed := false
	for ; *caughtUp < len(s.order) && s.order[*caughtUp] != t; *caughtUp++ {
		r := s.order[*caughtUp]
		strayed = y.Render(r, s.logs[r]).OutOfStep || strayed
	}
	*caughtUp++ // t itself
	out := y.Render(t, s.logs[t])
	// A template rendered only to catch up that left A's decisions may have changed what t
	// reads (a set on .Values in the other branch of a with): t's render is no more in step
	// than it (a review's case).
	out.OutOfStep = out.OutOfStep || strayed
	return out
}

// identicalWith reports whether A's output is B's exactly, but for what depends on tenant
// content (identity.go), sub being B's substitution: first on the parses (parsedA, parsedB),
// and where that cannot decide, on the texts parsed in YAML's order. renderC renders the
// template with C's stand-ins, when it is needed.
func identicalWith(sub *Substitution, textA string, parsedA []any, textB string, parsedB []any, out Output, renderC func() (string, bool)) bool {
	m := &identityCheck{sub: sub, cText: renderC, out: out}
	switch m.sameJSON(parsedA, parsedB) {
	case alike:
		return true
	case unlike:
		return false
	}
	a, errA := orderedDocuments(textA, out.Status)
	b, errB := orderedDocuments(textB, out.Status)
	return errA == nil && errB == nil && m.same(a, b)
}

// rerun renders the templates A rendered, in A's order with A's decisions, in a new render
// with sub's stand-ins under guard, up to t; it returns t's result and the render, to be
// ended by the caller (nil when it could not start). The search for a culprit runs afresh
// this way for every count of stand-ins it tries.
func (s *Check) rerun(sub *Substitution, guard *TplGuard, t Template) (Rendered, Run) {
	return s.rerunWith(sub, guard, t, s.logs)
}

// rerunWith is rerun with the decisions given (nil: every template decides by its data).
func (s *Check) rerunWith(sub *Substitution, guard *TplGuard, t Template, logs map[Template]Decisions) (Rendered, Run) {
	y, err := s.engine.Start(sub, guard, s.deadline)
	if err != nil {
		return Rendered{Err: err}, nil
	}
	var last Rendered
	strayed := false // as in replay
	for _, r := range s.order {
		last = y.Render(r, logs[r])
		if r == t {
			last.OutOfStep = last.OutOfStep || strayed
			return last, y
		}
		strayed = strayed || last.OutOfStep
	}
	return Rendered{Err: fmt.Errorf("template %s was not rendered", t.Name()), TimeUp: last.TimeUp}, y
}

// blame finds a tenant value whose stand-in changes t's output: it renders B again with only
// the first n tenant values (in the order NewSubstitution numbers them) replaced, and searches
// n by bisection. This is the failure path: a few more renders are fine.
func (s *Check) blame(t Template, textA string, parsedA []any, docA int, errA error, out Output) error {
	var failure error  // the error B ran into, if it failed to render
	var spent error    // the render's time ran out while searching: reported as is, no tenant blamed
	var code bool      // B ran other template code through tpl
	var commented bool // A has comments B does not
	var departed bool  // B's decisions departed from A's record
	render := func(sub *Substitution) (Rendered, Run) {
		r, y := s.rerun(sub, nil, t)
		if r.TimeUp != nil && spent == nil {
			spent = r.TimeUp
		}
		return r, y
	}
	differs := func(n int) bool {
		if spent != nil {
			return true
		}
		sub := s.sub.Prefix(n)
		r, y := render(sub)
		if y != nil {
			defer y.Done()
		}
		if r.Err != nil {
			failure = r.Err
			return true
		}
		if r.OutOfStep {
			departed = true
			return true
		}
		if !slices.Equal(r.Code, s.code[t]) {
			code = true
			return true
		}
		parsedB, _, errB := out.Parse(r.Text)
		if errA != nil {
			return errB == nil
		}
		if errB != nil {
			return true
		}
		if !identicalWith(sub, textA, parsedA, r.Text, parsedB, out, func() (string, bool) {
			c, y := render(sub.Other())
			if y != nil {
				defer y.Done()
			}
			return c.Text, c.Err == nil && slices.Equal(c.Code, s.code[t])
		}) {
			return true
		}
		commented = moreComments(textA, r.Text)
		return commented
	}
	// differs(0) is A itself, differs(Total) is B: the culprit is the first value whose
	// stand-in makes the difference.
	culprit := sort.Search(s.sub.Total()-1, func(i int) bool { return differs(i + 1) })
	failure, code, commented, departed = nil, false, false, false
	reproduced := differs(culprit + 1)
	if spent != nil {
		return spent
	}
	if !reproduced {
		// Not reproduced (a template that is not deterministic): say what is known.
		return &Refusal{Template: t.Name(),
			Msg: "the YAML structure of the output depends on the content of tenant strings; the template must quote them, e.g. `| quote`"}
	}
	e := &Refusal{Template: t.Name(), Origin: s.sub.origins[culprit], Holders: s.sub.Holders(culprit, s.tainted)}
	switch {
	case errA != nil:
		e.Document, e.Msg = docA, fmt.Sprintf(out.invalid(), errA)
	case code:
		e.Msg = "tpl would run template code that this value brings (an action, a field, a variable or a function); " +
			"tenant strings may reach tpl only as text"
	case failure != nil:
		e.Msg = fmt.Sprintf("the template's output depends on this value's content: with an inert stand-in in its place, it fails (%v); "+
			"compare tenant values with `if eq`, do not use them as keys, widths or templates", s.sub.Mask(fmt.Sprint(failure)))
	case departed:
		e.Msg = "the template's course depends on this value where the check cannot follow it (a loop over what it splits into or picks, " +
			"and/or stopping at it, a tpl text's branch, a with that cannot be taken alike): with an inert stand-in in its place, the " +
			"template makes other decisions; branch on tenant values with if or with, loop over lists the tenant gives"
	case commented:
		e.Msg = "this value turned part of the template's output into a YAML comment (it would hide what the template wrote after it); the template must quote it, e.g. `| quote`"
	default:
		e.Msg = out.changed()
	}
	return e
}
