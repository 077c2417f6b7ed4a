package boundary

import (
	"errors"
	"hash/fnv"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	"gantry.dev/gantry/internal/tmplwalk"
)

// Names of the functions Compile puts at the end of every `if` and `with` pipeline. The
// structure check renders each template twice, with tenant strings and with placeholders in
// their place; the second render must take the branches the first one took, or a conditional
// on a tenant value (`if eq .Values.tier "premium"`) would look like a change of structure.
const (
	decideIf      = "gantryDecideIf"
	decideWith    = "gantryDecideWith"
	decideTernary = "gantryTernary"
	loopUntil     = "gantryUntil"
	loopUntilStep = "gantryUntilStep"
	includeAt     = "gantryInclude"
)

// Rewritten are the functions RewriteDecisions renames, by the name the blueprint wrote: an
// error message says the blueprint's name (see render's plainChecks).
var Rewritten = map[string]string{
	decideTernary: "ternary", loopUntil: "until", loopUntilStep: "untilStep", includeAt: "include",
}

// DecisionFuncs are the stand-ins the template set is parsed with; each execution binds its own.
func DecisionFuncs() template.FuncMap {
	return template.FuncMap{
		decideIf:   func(_ int, v any) bool { t, _ := template.IsTrue(v); return t },
		decideWith: func(_ int, v any) any { return v },
		decideTernary: func(_ int, a, b any, v bool) any {
			if v {
				return a
			}
			return b
		},
		// Stand-ins for parsing: every execution binds the bounded ones (loopFuncs).
		loopUntil:     func(_, n int) []int { return nil },
		loopUntilStep: func(_, start, stop, step int) []int { return nil },
		includeAt:     func(_ int, _ string, _ any) (string, error) { return "", errors.New("include outside a render") },
	}
}

// RewriteDecisions numbers every `if` and `with` (an `else if` and `else with` too) of every
// template in the set and appends a call of a decision function to its pipeline:
// `if PIPE` becomes `if PIPE | gantryDecideIf N`. text/template has no hook for this; its parse
// trees are exported so that tools can rewrite them, and a rewrite holds for every template,
// whatever it does, where a list of known patterns would not.
func RewriteDecisions(t *template.Template) {
	id := 0
	next := func() int { id++; return id }
	for _, tt := range t.Templates() {
		rewriteTree(tt.Tree, next)
	}
}

// RewriteTplDecisions numbers the conditionals and call sites of the trees a tpl text parsed
// into, as RewriteDecisions does the blueprint's. Their numbers are negative (the blueprint's
// start at 1) and follow from the text's code shape (CodeShape), which is the same in both
// renders of the structure check: the same tpl code takes A's decisions in B wherever it runs,
// and another text's cannot be taken for its own.
func RewriteTplDecisions(trees []*parse.Tree, shape string) {
	h := fnv.New64a()
	h.Write([]byte(shape))
	base := -int(h.Sum64()&(1<<46-1)) << 16
	k := 0
	next := func() int { k++; return base - k }
	for _, tree := range trees {
		rewriteTree(tree, next)
	}
}

// rewriteTree numbers tree's conditionals and the call sites of the functions whose results
// are decisions, by next.
func rewriteTree(tree *parse.Tree, next func() int) {
	if tree == nil || tree.Root == nil {
		return
	}
	number := func(pos parse.Pos) parse.Node {
		id := next()
		return &parse.NumberNode{NodeType: parse.NodeNumber, Pos: pos, IsInt: true, Int64: int64(id), Text: strconv.Itoa(id)}
	}
	var walk func(n parse.Node)
	wrap := func(b *parse.BranchNode, fn string) {
		p := b.Pipe
		if p == nil || p.IsAssign {
			return // `if $x = ...` reassigns a variable: left alone, B decides for itself
		}
		if fn == decideIf && len(p.Decl) > 0 {
			fn = decideWith // `if $x := PIPE`: $x must keep PIPE's value
		}
		p.Cmds = append(p.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: p.Pos, Args: []parse.Node{
			parse.NewIdentifier(fn).SetTree(tree).SetPos(p.Pos), number(p.Pos),
		}})
	}
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return
			}
			for _, c := range n.Nodes {
				walk(c)
			}
		case *parse.IfNode:
			wrap(&n.BranchNode, decideIf)
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			wrap(&n.BranchNode, decideWith)
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.List)
			walk(n.ElseList)
		}
	}
	walk(tree.Root)
	// sprig's ternary is an `if` written as a function: `ternary A B COND` becomes
	// `gantryTernary N A B COND`, so that B takes A's choice too. A loop's count is a
	// decision as well: `until COUNT` becomes `gantryUntil N COUNT` (untilStep likewise),
	// so that a loop over a tenant number makes as many items in B as in A, each the
	// template's (B's stand-in number would make another count, or exceed the budget).
	// Each include is numbered by its call site (`gantryInclude N NAME ARG`), which it
	// records as a decision before it runs: the decisions made inside a helper are then
	// A's at the call site where A made them, not at whichever call of the helper B makes
	// next (an include A made that B did not, and one B made that A did not, would
	// otherwise balance each other).
	tmplwalk.Inspect(tree.Root, func(n parse.Node) {
		c, ok := n.(*parse.CommandNode)
		if !ok || len(c.Args) == 0 {
			return
		}
		if fn, ok := c.Args[0].(*parse.IdentifierNode); ok && renamed[fn.Ident] != "" {
			c.Args = append([]parse.Node{
				parse.NewIdentifier(renamed[fn.Ident]).SetTree(tree).SetPos(fn.Pos), number(fn.Pos),
			}, c.Args[1:]...)
		}
	})
}

var (
	// renamedCall is a numbered call as a message prints it (`gantryInclude 7 "h" .`), and
	// the name alone after "error calling".
	renamedCall = regexp.MustCompile(`\b(` + decideTernary + `|` + loopUntilStep + `|` + loopUntil + `|` + includeAt + `)(?: -?\d+\b)?`)
	// decisionSuffix is what RewriteDecisions appends to an if or with pipeline.
	decisionSuffix = regexp.MustCompile(` \| (?:` + decideIf + `|` + decideWith + `) -?\d+`)
)

// Unrewrite puts back into a message what RewriteDecisions changed in the templates it quotes:
// the function names and pipelines the blueprint wrote.
func Unrewrite(msg string) string {
	if !strings.Contains(msg, "gantry") {
		return msg
	}
	msg = decisionSuffix.ReplaceAllString(msg, "")
	return renamedCall.ReplaceAllStringFunc(msg, func(m string) string {
		return Rewritten[renamedCall.FindStringSubmatch(m)[1]]
	})
}

// renamed are the functions RewriteDecisions numbers, to the names it gives them.
var renamed = func() map[string]string {
	m := map[string]string{}
	for to, from := range Rewritten {
		m[from] = to
	}
	return m
}()

// Decisions is what one template's render decided at each conditional, in order, by number:
// 1 or 0 for a branch, the arguments for a loop; and under seqID, the number of every
// decision in the order they were made.
type Decisions map[int][]int64

// seqID is the number under which a recording keeps the order of all its decisions
// (RewriteDecisions numbers conditionals from 1). A replay that makes the same decisions as
// many times each, but in another order, has departed: two departures in opposite directions
// (an include A made that B did not, then one B made that A did not) balance each other's
// counts, not their order.
const seqID = 0

// Decider records a render's decisions, or replays recorded ones.
type Decider struct {
	replay Decisions // nil while recording
	log    Decisions
	next   map[int]int
	// departed is set when a replay asked for a decision A did not record, or could not
	// take A's.
	departed bool
}

// Departed reports whether the replay left A's record: a decision A did not make, one B could
// not take as A did, or one A made that B never reached.
func (d *Decider) Departed() bool {
	if d.replay == nil {
		return false
	}
	if d.departed {
		return true
	}
	for id, vs := range d.replay {
		if d.next[id] < len(vs) {
			return true
		}
	}
	return false
}

// Start begins a template's render: recording when replay is nil, replaying it otherwise.
func (d *Decider) Start(replay Decisions) {
	d.replay, d.log, d.next, d.departed = replay, Decisions{}, map[int]int{}, false
}

// decide returns the decision at conditional id: the recorded one when replaying and there is
// one, else v's truth; a replay without one has departed from A's record (Departed), and the
// check does not compare its output.
func (d *Decider) decide(id int, v any) bool {
	truth, _ := template.IsTrue(v)
	var n int64
	if truth {
		n = 1
	}
	return d.decideInts(id, n)[0] == 1
}

// decideInts returns the numbers decided at id: the recorded ones when replaying and there are
// some, else vs.
func (d *Decider) decideInts(id int, vs ...int64) []int64 {
	if d.replay != nil {
		if p := d.next[seqID]; p < len(d.replay[seqID]) && d.replay[seqID][p] == int64(id) {
			d.next[seqID] = p + 1
		} else {
			d.departed = true
		}
		if n := d.next[id]; n+len(vs) <= len(d.replay[id]) {
			d.next[id] = n + len(vs)
			return d.replay[id][n : n+len(vs)]
		}
		d.departed = true
		return vs
	}
	if d.log != nil {
		d.log[id] = append(d.log[id], vs...)
		d.log[seqID] = append(d.log[seqID], int64(id))
	}
	return vs
}

// LoopFuncs binds the loops whose counts are decisions to d, over the execution's bounded
// until and untilStep.
func (d *Decider) LoopFuncs(bounded template.FuncMap) template.FuncMap {
	until := bounded["until"].(func(int) ([]int, error))
	untilStep := bounded["untilStep"].(func(int, int, int) ([]int, error))
	return template.FuncMap{
		loopUntil: func(id, n int) ([]int, error) {
			return until(int(d.decideInts(id, int64(n))[0]))
		},
		loopUntilStep: func(id, start, stop, step int) ([]int, error) {
			v := d.decideInts(id, int64(start), int64(stop), int64(step))
			return untilStep(int(v[0]), int(v[1]), int(v[2]))
		},
	}
}

// IncludeFunc binds the numbered include to d, over the execution's include: the call site is
// a decision, recorded and replayed like the others.
func (d *Decider) IncludeFunc(include func(string, any) (string, error)) template.FuncMap {
	return template.FuncMap{includeAt: func(id int, name string, data any) (string, error) {
		d.decideInts(id, 1)
		return include(name, data)
	}}
}

// Funcs binds the decision functions to d.
func (d *Decider) Funcs() template.FuncMap {
	return template.FuncMap{
		decideIf: func(id int, v any) bool { return d.decide(id, v) },
		decideTernary: func(id int, a, b any, v bool) any {
			if d.decide(id, v) {
				return a
			}
			return b
		},
		decideWith: func(id int, v any) any {
			want := d.decide(id, v)
			truth, _ := template.IsTrue(v)
			switch {
			case truth == want:
				return v
			case want:
				if _, isBool := v.(bool); isBool {
					return true // `with eq .Values.tier "premium"`: A's dot was true too
				}
				// Any other empty value cannot be made true: the body would see it as its
				// dot. B decides for itself then.
				d.departed = true
				return v
			}
			if v == nil {
				return nil
			}
			return reflect.Zero(reflect.TypeOf(v)).Interface()
		},
	}
}

// Log is what the current template decided so far (recorded since Start with no replay).
func (d *Decider) Log() Decisions { return d.log }
