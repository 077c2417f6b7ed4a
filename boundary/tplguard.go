package boundary

import (
	"errors"
	"sort"
	"strings"
	"time"
)

// Tenant text never runs as template code.
//
// `{{ tpl .Values.greeting . }}` runs whatever text it is given with the render's whole
// context: a tenant's `{{ fail (toJson $.Values) }}` would put the platform's values in an
// error the tenant reads, and other payloads can spend the controller's memory and time. The
// structure check compares the code tpl ran in A and in B, but only after A ran it. So a
// render with tenant values first renders every template once with inert stand-ins for them
// (the substitution B uses), and notes each text it runs through tpl: their code is the
// template's, since a stand-in is a plain word. Then, in the real render, tpl runs a text
// that holds an action only if it is one of those texts with the tenant values put back where
// the stand-ins were, and of the same code shape (the same actions, fields and functions; see
// CodeShape). Anything else is refused before it runs, whatever built the text (a value as
// it is, printf, b64dec): no list of functions or of patterns is involved.

// tplCall is a text the inert render ran through tpl, with its code shape.
type tplCall struct{ text, shape string }

// TplGuard holds the inert render's tpl texts, and the substitution that made them. While it
// learns, tpl notes every text it is given and runs it.
type TplGuard struct {
	sub      *Substitution
	tainted  []Tainted
	calls    []tplCall
	learning bool
}

// ErrTenantCode is the refusal. It says nothing of the text: its code could be anyone's, and
// what it would have read is not the tenant's to see.
var ErrTenantCode = errors.New("tpl: refused to run this text: it holds template code (an action, a field, " +
	"a variable or a function) that the blueprint's templates do not give tpl when tenant values are inert " +
	"stand-ins; tenant strings may reach tpl only as text")

// LearnTpl renders templates with the tenant values as sub's stand-ins, deciding every branch
// by them, and returns a guard that allows what they ran through tpl. Errors and pending
// templates are ignored: what the templates ran through tpl before is all it learns. It fails
// only when the render's time runs out, which is the render's failure.
func LearnTpl(engine Engine, sub *Substitution, tainted []Tainted, deadline time.Time, templates []Template) (*TplGuard, error) {
	g := &TplGuard{sub: sub, tainted: tainted, learning: true}
	y, err := engine.Start(sub, g, deadline)
	if err != nil {
		return nil, err
	}
	defer y.Done()
	for _, t := range templates {
		if r := y.Render(t, nil); r.TimeUp != nil {
			return nil, r.TimeUp
		}
	}
	g.learning = false
	return g, nil
}

// Admit decides whether tpl may run text, with the given code shape (CodeShape): text alone
// (plain, see PlainText) always; code only if it is a text the inert render ran, with the
// tenant values put back. A learning guard notes the text and admits it; a nil guard admits
// everything (a render without tenant values). A refusal names the tenant value the text most
// likely holds.
func (g *TplGuard) Admit(text, shape string, plain bool) *Refusal {
	if g == nil {
		return nil
	}
	if g.learning {
		g.calls = append(g.calls, tplCall{text: text, shape: shape})
		return nil
	}
	if plain {
		return nil
	}
	for _, c := range g.calls {
		if c.shape != shape {
			continue
		}
		if restored, _ := g.sub.Restore(c.text); restored == text {
			return nil
		}
	}
	r := &Refusal{Msg: ErrTenantCode.Error()[len("tpl: "):]}
	if i := g.culprit(text); i >= 0 {
		r.Origin, r.Holders = g.sub.origins[i], g.sub.Holders(i, g.tainted)
	}
	return r
}

// culprit names the tenant value an error about text is most likely about: the longest tenant
// string in it (the first in sorted order among the longest). It only names; what is refused
// is decided above, whatever culprit finds.
func (g *TplGuard) culprit(text string) int {
	best := -1
	for i, o := range g.sub.originals {
		if (best < 0 || len(o) > len(g.sub.originals[best])) && strings.Contains(text, o) {
			best = i
		}
	}
	return best
}

// TplCulprit finds the tenant value behind a refusal in t when no tenant string is in the
// refused text (the template transformed it): it renders again with only the first n tenant
// values as stand-ins, and searches by bisection the n at which the refusal goes away. This is
// the failure path: a few more renders are fine. It returns where the value came from and its
// other sources; empty when no value is to blame.
func (s *Check) TplCulprit(t Template, g *TplGuard) (origin string, holders []string) {
	refused := func(n int) bool {
		r, y := s.rerun(s.sub.Prefix(n), g, t)
		if y != nil {
			y.Done()
		}
		return r.Refused
	}
	// refused(0) is A itself; with every stand-in (Total) nothing is refused, or no value is
	// to blame. The culprit is the first value whose stand-in ends the refusal.
	total := s.sub.Total()
	if total == 0 || refused(total) {
		return "", nil
	}
	i := sort.Search(total, func(i int) bool { return !refused(i + 1) })
	return s.sub.origins[i], s.sub.Holders(i, s.tainted)
}

// Culprit finds the tenant value whose content makes t fail in A (an error of the template's
// own: a value a function refuses, a port that does not parse, the blueprint's `fail` on what
// a tenant wrote). It renders again with the first n tenant values as stand-ins, every
// conditional decided by the data (a template that refuses a value decides on it: A's
// decisions would fail the stand-ins too), and searches by bisection an n at which the failure
// goes away. It names no one when the template fails with every value a stand-in as well: the
// failure is not the tenant content's. This is the failure path: a few more renders are fine.
func (s *Check) Culprit(t Template) (origin string, holders []string) {
	fails := func(n int) bool {
		r, y := s.rerunWith(s.sub.Prefix(n), nil, t, nil)
		if y != nil {
			y.Done()
		}
		return r.Err != nil || r.TimeUp != nil
	}
	if s == nil || s.sub.Total() == 0 || fails(s.sub.Total()) {
		return "", nil
	}
	total := s.sub.Total()
	// fails(0) is A; fails(total) is not: the search ends at a value whose stand-in, with the
	// ones before it, is the difference between failing and not.
	i := sort.Search(total, func(i int) bool { return !fails(i + 1) })
	return s.sub.origins[i], s.sub.Holders(i, s.tainted)
}
