package render

import (
	"errors"
	"time"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/internal/lru"
)

// The engine's side of the tenant boundary (package boundary): renders with stand-ins for the
// tenant values, started and run as the check asks, and its verdicts made into Errors that
// name the blueprint.

// Name is the template's name, as errors give it.
func (c *compiled) Name() string { return c.field }

var (
	resourceOutput = boundary.Output{Parse: parseDocuments}
	statusOutput   = boundary.Output{Parse: parseStatus, Status: true}
)

// checked, when set (by tests), is told what each structure check cost.
var checked func(renders, parses int)

// newCheck begins the structure check of a render of in by b.
func (b *Blueprint) newCheck(in *Input, deadline time.Time) *boundary.Check {
	words := b.words
	if b.callsTpl {
		words = boundary.PlatformTemplateWords(b.words, in.Values, in.Tainted)
	}
	sub := boundary.NewSubstitution(in.Tainted, words)
	var key lru.Key
	keyed := false
	if sub.Total() > 0 && boundary.MemoryOn() {
		key, keyed = bInputKey(b, in, sub)
	}
	return boundary.NewCheck(checkEngine{b, in}, sub, in.Tainted, key, keyed, deadline)
}

func (b *Blueprint) checkDone(check *boundary.Check) {
	check.Done()
	if checked != nil {
		checked(check.Cost())
	}
}

// checkEngine starts the check's renders of one input.
type checkEngine struct {
	b  *Blueprint
	in *Input
}

func (e checkEngine) Start(sub *boundary.Substitution, guard *boundary.TplGuard, deadline time.Time) (boundary.Run, error) {
	y, err := e.b.newExecution(e.in, sub)
	if err != nil {
		return nil, err
	}
	y.budget.deadline = deadline
	y.tplGuard = guard
	return y, nil
}

// Render runs one template of the check's render (boundary.Run).
func (x *execution) Render(t boundary.Template, replay boundary.Decisions) boundary.Rendered {
	c := t.(*compiled)
	x.d.Start(replay)
	text, pending, err := x.run(c)
	if err == nil && pending != nil {
		err = errors.New(pending.Reason)
	}
	r := boundary.Rendered{Text: text, Err: err, Decisions: x.d.Log(), Code: x.code, Refused: x.refused != nil, OutOfStep: x.d.Departed()}
	if x.budget.err != nil && x.budget.err.timeUp {
		r.TimeUp = &Error{Blueprint: x.b.Name, Template: c.field, Msg: x.budget.err.msg}
	}
	return r
}

// Done ends a check's render (boundary.Run).
func (x *execution) Done() { x.done() }

// verify is check.Verify with its refusal as an Error of b's.
func (b *Blueprint) verify(check *boundary.Check, c *compiled, text string, parsed []any, doc int, err error, out boundary.Output) error {
	return b.refusal(check.Verify(c, text, parsed, doc, err, out))
}

// refusal makes the check's verdict an Error that names the blueprint; other errors are the
// engine's own already.
func (b *Blueprint) refusal(err error) error {
	var r *boundary.Refusal
	if !errors.As(err, &r) {
		return err
	}
	return &Error{Blueprint: b.Name, Template: r.Template, Document: r.Document, Origin: r.Origin, Holders: r.Holders, Msg: r.Msg}
}
