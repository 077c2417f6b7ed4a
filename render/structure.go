package render

import (
	"fmt"
	"slices"
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
	// renders and parses count B's work on the success path, for tests of its cost.
	renders, parses int
}

// checked, when set (by tests), is told what each structure check cost.
var checked func(renders, parses int)

func (b *Blueprint) newStructureCheck(in *Input, deadline time.Time) *structureCheck {
	sub := newSubstitution(in.Tainted, b.words)
	s := &structureCheck{b: b, in: in, sub: sub, deadline: deadline, bDeadline: deadline, logs: map[*compiled]decisions{}, code: map[*compiled][]string{}}
	if len(sub.originals) > 0 {
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

// catchUp renders in B the templates A rendered before c that B has not: their output is not
// compared (A's failed, or was compared already), but what they leave behind (remembered
// include outputs, values changed in place) is what c's render in A saw.
func (s *structureCheck) catchUp(c *compiled) {
	for ; s.caughtUp < len(s.order) && s.order[s.caughtUp] != c; s.caughtUp++ {
		r := s.order[s.caughtUp]
		s.y.d.start(s.logs[r])
		_, _, _ = s.y.run(r)
	}
	s.caughtUp++ // c itself, rendered by the caller
}

// verify renders c in B and compares B's output with A's: textA, parsed as kind says into
// parsedA, or failing at document docA with errA. It returns an *Error naming a tenant value
// that shaped the output, or nil. A output that is not valid YAML while B's is counts as a
// change of structure; both invalid is the template's own fault, for the caller to report.
func (s *structureCheck) verify(c *compiled, textA string, parsedA []any, docA int, errA error, kind outputKind) error {
	if s == nil || len(s.sub.originals) == 0 {
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
		s.catchUp(c)
		y.d.start(s.logs[c])
		textB, pending, errB := y.run(c)
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
			bMemory.put(s.key, out)
		}
	}
	if !slices.Equal(out.code, s.code[c]) {
		return s.blame(c, textA, parsedA, docA, errA, kind)
	}
	// The common case costs no second parse: B's text with the placeholders put back is A's
	// text, and every string put back is inert, so the two texts have one structure.
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
	case errA == nil && valid && s.sameStructure(parsedA, parsedB) && !moreComments(textA, out.text):
		return nil
	}
	return s.blame(c, textA, parsedA, docA, errA, kind)
}

// blame finds a tenant string whose substitution changes c's output: it renders B again with
// only the first n tenant strings (in sorted order) replaced, and searches n by bisection.
// This is the failure path: a few more renders are fine.
func (s *structureCheck) blame(c *compiled, textA string, parsedA []any, docA int, errA error, kind outputKind) error {
	var failure error  // the error B ran into, if it failed to render
	var spent error    // a budget exceeded while searching: reported as is, no tenant blamed
	var code bool      // B ran other template code through tpl
	var commented bool // A has comments B does not
	differs := func(n int) bool {
		if spent != nil {
			return true
		}
		y, err := s.b.newExecution(s.in, s.sub.prefix(n))
		if err != nil {
			return true
		}
		defer y.done()
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
			if err != nil || pending != nil {
				if err == nil {
					err = fmt.Errorf("%s", pending.Reason)
				}
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
			if errB != nil || !s.sameStructure(parsedA, parsedB) {
				return true
			}
			commented = moreComments(textA, text)
			return commented
		}
		return false
	}
	lo, hi := 0, len(s.sub.originals) // differs(lo) is false: A itself; differs(hi) is B
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if differs(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	origin := s.sub.origins[hi-1]
	failure, code, commented = nil, false, false
	reproduced := differs(hi)
	if spent != nil {
		return spent
	}
	if !reproduced {
		// Not reproduced (a template that is not deterministic): say what is known.
		return &Error{Blueprint: s.b.Name, Template: c.field,
			Msg: "the YAML structure of the output depends on the content of tenant strings; the template must quote them, e.g. `| quote`"}
	}
	e := &Error{Blueprint: s.b.Name, Template: c.field, Origin: origin}
	switch {
	case errA != nil:
		e.Document, e.Msg = docA, fmt.Sprintf(kind.invalid, errA)
	case code:
		e.Msg = "tpl would run template code that this value brings (an action, a field, a variable or a function); " +
			"tenant strings may reach tpl only as text"
	case failure != nil:
		e.Msg = fmt.Sprintf("the template's output depends on this value's content: with an inert string in its place, it fails (%v); "+
			"compare tenant values with `if eq`, do not use them as keys, list lengths or templates", failure)
	case commented:
		e.Msg = "this value turned part of the template's output into a YAML comment (it would hide what the template wrote after it); the template must quote it, e.g. `| quote`"
	default:
		e.Msg = kind.changed
	}
	return e
}

// sameStructure compares parsed documents: the same number, and the same structure each.
func (s *structureCheck) sameStructure(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !s.sameNode(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameNode compares the structure of A's node a and B's node b: maps with the same number of
// keys, matched by name (a key of B holding a placeholder matches the key of A it restores to;
// the rest are paired in sorted order: tenant strings in key position are data), lists of the same length, scalars of
// any type, unless A's is B's with the tenant strings put back, cut short (see cutShort).
func (s *structureCheck) sameNode(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		var loose []string
		for k, bv := range bm {
			av, ok := a[k]
			if holdsPlaceholder(k) || !ok {
				// A tenant string in key position, maybe transformed past recognition
				// (`upper`): paired below.
				loose = append(loose, k)
				continue
			}
			if !s.sameNode(av, bv) {
				return false
			}
		}
		if len(loose) == 0 {
			return true
		}
		used := make(map[string]bool, len(loose))
		var unpaired []string
		for _, k := range loose {
			r, _ := s.sub.restore(k)
			_, inB := bm[r]
			if av, ok := a[r]; ok && !inB && !used[r] {
				used[r] = true
				if !s.sameNode(av, bm[k]) {
					return false
				}
				continue
			}
			unpaired = append(unpaired, k)
		}
		if len(unpaired) == 0 {
			return true
		}
		var rest []string
		for k := range a {
			if _, inB := bm[k]; !inB && !used[k] {
				rest = append(rest, k)
			}
		}
		if len(rest) != len(unpaired) {
			return false
		}
		slices.Sort(rest)
		slices.Sort(unpaired)
		for i := range rest {
			if !s.sameNode(a[rest[i]], bm[unpaired[i]]) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !s.sameNode(a[i], bl[i]) {
				return false
			}
		}
		return true
	default:
		switch b := b.(type) {
		case map[string]any, []any:
			return false
		case string:
			// A scalar keeps what the template wrote after a tenant string.
			if holdsPlaceholder(b) {
				as, isString := a.(string)
				if !isString {
					as = fmt.Sprint(a)
				}
				restored, _ := s.sub.restore(b)
				return !cutShort(as, restored)
			}
		}
		return true
	}
}
