package render

import (
	"reflect"
	"strconv"
	"text/template"
	"text/template/parse"
)

// Names of the functions Compile puts at the end of every `if` and `with` pipeline. The
// structure check renders each template twice, with tenant strings and with placeholders in
// their place; the second render must take the branches the first one took, or a conditional
// on a tenant value (`if eq .Values.tier "premium"`) would look like a change of structure.
const (
	decideIf      = "gantryDecideIf"
	decideWith    = "gantryDecideWith"
	decideTernary = "gantryTernary"
)

// decisionFuncs are the stand-ins the template set is parsed with; each execution binds its own.
func decisionFuncs() template.FuncMap {
	return template.FuncMap{
		decideIf:   func(_ int, v any) bool { t, _ := template.IsTrue(v); return t },
		decideWith: func(_ int, v any) any { return v },
		decideTernary: func(_ int, a, b any, v bool) any {
			if v {
				return a
			}
			return b
		},
	}
}

// rewriteDecisions numbers every `if` and `with` (an `else if` and `else with` too) of every
// template in the set and appends a call of a decision function to its pipeline:
// `if PIPE` becomes `if PIPE | gantryDecideIf N`. text/template has no hook for this; its parse
// trees are exported so that tools can rewrite them, and a rewrite holds for every template,
// whatever it does, where a list of known patterns would not.
func rewriteDecisions(t *template.Template) {
	id := 0
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Tree.Root == nil {
			continue
		}
		tree := tt.Tree
		var walk func(n parse.Node)
		wrap := func(b *parse.BranchNode, fn string) {
			p := b.Pipe
			if p == nil || p.IsAssign {
				return // `if $x = ...` reassigns a variable: left alone, B decides for itself
			}
			if fn == decideIf && len(p.Decl) > 0 {
				fn = decideWith // `if $x := PIPE`: $x must keep PIPE's value
			}
			id++
			p.Cmds = append(p.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: p.Pos, Args: []parse.Node{
				parse.NewIdentifier(fn).SetTree(tree).SetPos(p.Pos),
				&parse.NumberNode{NodeType: parse.NodeNumber, Pos: p.Pos, IsInt: true, Int64: int64(id), Text: strconv.Itoa(id)},
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
		// `gantryTernary N A B COND`, so that B takes A's choice too.
		inspect(tree.Root, func(n parse.Node) {
			c, ok := n.(*parse.CommandNode)
			if !ok || len(c.Args) == 0 {
				return
			}
			if fn, ok := c.Args[0].(*parse.IdentifierNode); ok && fn.Ident == "ternary" {
				id++
				c.Args = append([]parse.Node{
					parse.NewIdentifier(decideTernary).SetTree(tree).SetPos(fn.Pos),
					&parse.NumberNode{NodeType: parse.NodeNumber, Pos: fn.Pos, IsInt: true, Int64: int64(id), Text: strconv.Itoa(id)},
				}, c.Args[1:]...)
			}
		})
	}
}

// decisions is what one template's render decided at each conditional, in order, by number.
type decisions map[int][]bool

// decider records a render's decisions, or replays recorded ones.
type decider struct {
	replay decisions // nil while recording
	log    decisions
	next   map[int]int
}

// start begins a template's render: recording when replay is nil, replaying it otherwise.
func (d *decider) start(replay decisions) {
	d.replay, d.log, d.next = replay, decisions{}, map[int]int{}
}

// decide returns the decision at conditional id: the recorded one when replaying and there is
// one (a `tpl` body or a loop that differs has none: then the value decides), else v's truth.
func (d *decider) decide(id int, v any) bool {
	truth, _ := template.IsTrue(v)
	if d.replay != nil {
		if n := d.next[id]; n < len(d.replay[id]) {
			d.next[id] = n + 1
			return d.replay[id][n]
		}
		return truth
	}
	if d.log != nil {
		d.log[id] = append(d.log[id], truth)
	}
	return truth
}

// funcs binds the decision functions to d.
func (d *decider) funcs() template.FuncMap {
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
				return v
			}
			if v == nil {
				return nil
			}
			return reflect.Zero(reflect.TypeOf(v)).Interface()
		},
	}
}
