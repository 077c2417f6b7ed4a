// Package tmplwalk walks text/template parse trees: text/template/parse has no walker of its
// own, and the engine and the tenant boundary ask several compile-time questions of a
// blueprint's templates, each one walk.
package tmplwalk

import (
	"text/template"
	"text/template/parse"
)

// Inspect calls visit for n and every node under it, in the order they appear: actions,
// pipelines with their declarations and commands, arguments, chains, if/with/range with their
// branches, and template calls. Several compile-time questions (which functions a blueprint
// names, which words it spells out, which .Resources entries it reads) are each one visit;
// text/template/parse has no walker of its own.
func Inspect(n parse.Node, visit func(parse.Node)) {
	switch n := n.(type) {
	case nil:
		return
	case *parse.ListNode: // an absent else branch is a nil *ListNode
		if n == nil {
			return
		}
	case *parse.PipeNode:
		if n == nil {
			return
		}
	}
	visit(n)
	switch n := n.(type) {
	case *parse.ListNode:
		for _, c := range n.Nodes {
			Inspect(c, visit)
		}
	case *parse.ActionNode:
		Inspect(n.Pipe, visit)
	case *parse.PipeNode:
		for _, d := range n.Decl {
			Inspect(d, visit)
		}
		for _, c := range n.Cmds {
			Inspect(c, visit)
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			Inspect(a, visit)
		}
	case *parse.ChainNode:
		Inspect(n.Node, visit)
	case *parse.IfNode:
		branches(&n.BranchNode, visit)
	case *parse.WithNode:
		branches(&n.BranchNode, visit)
	case *parse.RangeNode:
		branches(&n.BranchNode, visit)
	case *parse.TemplateNode:
		Inspect(n.Pipe, visit)
	}
}

func branches(b *parse.BranchNode, visit func(parse.Node)) {
	Inspect(b.Pipe, visit)
	Inspect(b.List, visit)
	Inspect(b.ElseList, visit)
}

// All is Inspect over every template of a set.
func All(t *template.Template, visit func(parse.Node)) {
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			Inspect(tt.Tree.Root, visit)
		}
	}
}
