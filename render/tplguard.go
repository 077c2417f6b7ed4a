package render

import (
	"errors"
	"sort"
	"strings"
	"text/template"
	"text/template/parse"
	"time"

	"gantry.dev/gantry/internal/tmplwalk"
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
// codeShape). Anything else is refused before it runs, whatever built the text (a value as
// it is, printf, b64dec): no list of functions or of patterns is involved.

// tplCall is a text the inert render ran through tpl, with its code shape.
type tplCall struct{ text, shape string }

// tplGuard holds the inert render's tpl texts, and the substitution that made them.
type tplGuard struct {
	sub     *substitution
	tainted []Tainted
	calls   []tplCall
}

// errTenantCode is the refusal. It says nothing of the text: its code could be anyone's, and
// what it would have read is not the tenant's to see.
var errTenantCode = errors.New("tpl: refused to run this text: it holds template code (an action, a field, " +
	"a variable or a function) that the blueprint's templates do not give tpl when tenant values are inert " +
	"stand-ins; tenant strings may reach tpl only as text")

// inertTplCalls renders set and status with the tenant values as sub's stand-ins, deciding
// every branch by them, and returns what they ran through tpl. Errors and pending templates
// are ignored: what the templates ran through tpl before is all it learns. It fails only when
// the time budget runs out, which is the render's failure.
func (b *Blueprint) inertTplCalls(in *Input, sub *substitution, deadline time.Time, set []*compiled, status *compiled) (*tplGuard, error) {
	y, err := b.newExecution(in, sub)
	if err != nil {
		return nil, err
	}
	defer y.done()
	y.budget.deadline = deadline
	g := &tplGuard{sub: sub, tainted: in.Tainted}
	y.tplCalls = &g.calls
	for _, c := range append(set, status) {
		if c == nil {
			continue
		}
		y.d.start(nil)
		_, _, _ = y.run(c)
		if y.budget.err != nil && y.budget.err.timeUp {
			return nil, &Error{Blueprint: b.Name, Template: c.field, Msg: y.budget.err.msg}
		}
	}
	return g, nil
}

// guardTpl decides whether tpl may run text, with the given code shape: text alone (plain)
// always; code only as the guard allows. The inert render notes the text instead.
func (x *execution) guardTpl(text, shape string, plain bool) error {
	if x.tplCalls != nil {
		*x.tplCalls = append(*x.tplCalls, tplCall{text: text, shape: shape})
		return nil
	}
	if x.tplGuard == nil || plain {
		return nil
	}
	for _, c := range x.tplGuard.calls {
		if c.shape != shape {
			continue
		}
		if restored, _ := x.tplGuard.sub.restore(c.text); restored == text {
			return nil
		}
	}
	x.refused = &Error{Msg: errTenantCode.Error()[len("tpl: "):]}
	if i := x.tplGuard.culprit(text); i >= 0 {
		x.refused.Origin, x.refused.Holders = x.tplGuard.sub.origins[i], x.tplGuard.sub.holders(i, x.tplGuard.tainted)
	}
	return errTenantCode
}

// culprit names the tenant value an error about text is most likely about: the longest tenant
// string in it (the first in sorted order among the longest). It only names; what is refused
// is decided above, whatever culprit finds.
func (g *tplGuard) culprit(text string) int {
	best := -1
	for i, o := range g.sub.originals {
		if (best < 0 || len(o) > len(g.sub.originals[best])) && strings.Contains(text, o) {
			best = i
		}
	}
	return best
}

// plainText reports whether the templates a tpl text defined (see codeShape) are text alone:
// no action, no define. It reads the parse before instrument adds its step counters.
func plainText(t, base *template.Template) bool {
	for _, n := range t.Templates() {
		if old := base.Lookup(n.Name()); (old != nil && old.Tree == n.Tree) || n.Tree == nil {
			continue
		}
		if n.Name() != "tpl" || n.Tree.Root == nil {
			return false
		}
		for _, node := range n.Tree.Root.Nodes {
			if _, ok := node.(*parse.TextNode); !ok {
				return false
			}
		}
	}
	return true
}

// names reports whether any template of t names the function fn.
func names(t *template.Template, fn string) bool {
	found := false
	tmplwalk.All(t, func(n parse.Node) {
		if id, ok := n.(*parse.IdentifierNode); ok && id.Ident == fn {
			found = true
		}
	})
	return found
}

// tplCulprit finds the tenant value behind a refusal in c when no tenant string is in the
// refused text (the template transformed it): it renders again with only the first n tenant
// values as stand-ins, and searches by bisection the n at which the refusal goes away. This is
// the failure path: a few more renders are fine. It returns the value's index, -1 for none.
func (b *Blueprint) tplCulprit(in *Input, s *structureCheck, g *tplGuard, c *compiled) int {
	refused := func(n int) bool {
		y, err := b.newExecution(in, s.sub.prefix(n))
		if err != nil {
			return false
		}
		defer y.done()
		y.budget.deadline = s.deadline
		y.tplGuard = g
		for _, r := range s.order {
			y.d.start(s.logs[r])
			_, _, _ = y.run(r)
			if r == c {
				return y.refused != nil
			}
		}
		return false
	}
	// refused(0) is A itself; with every stand-in (total) nothing is refused, or no value is
	// to blame. The culprit is the first value whose stand-in ends the refusal.
	total := s.sub.total()
	if total == 0 || refused(total) {
		return -1
	}
	return sort.Search(total, func(i int) bool { return !refused(i + 1) })
}
