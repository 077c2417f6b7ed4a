package render

import (
	"text/template"
	"text/template/parse"
)

// inspect calls visit for n and every node under it, in the order they appear: actions,
// pipelines with their declarations and commands, arguments, chains, if/with/range with their
// branches, and template calls. Several compile-time questions (which functions a blueprint
// names, which words it spells out, which .Resources entries it reads) are each one visit;
// text/template/parse has no walker of its own.
func inspect(n parse.Node, visit func(parse.Node)) {
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
			inspect(c, visit)
		}
	case *parse.ActionNode:
		inspect(n.Pipe, visit)
	case *parse.PipeNode:
		for _, d := range n.Decl {
			inspect(d, visit)
		}
		for _, c := range n.Cmds {
			inspect(c, visit)
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			inspect(a, visit)
		}
	case *parse.ChainNode:
		inspect(n.Node, visit)
	case *parse.IfNode:
		inspectBranches(&n.BranchNode, visit)
	case *parse.WithNode:
		inspectBranches(&n.BranchNode, visit)
	case *parse.RangeNode:
		inspectBranches(&n.BranchNode, visit)
	case *parse.TemplateNode:
		inspect(n.Pipe, visit)
	}
}

func inspectBranches(b *parse.BranchNode, visit func(parse.Node)) {
	inspect(b.Pipe, visit)
	inspect(b.List, visit)
	inspect(b.ElseList, visit)
}

// inspectAll is inspect over every template of a set.
func inspectAll(t *template.Template, visit func(parse.Node)) {
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			inspect(tt.Tree.Root, visit)
		}
	}
}
