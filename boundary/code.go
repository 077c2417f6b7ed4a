package boundary

import (
	"slices"
	"strings"
	"text/template"
	"text/template/parse"
)

// Template code is the platform's; tenant strings are data, also when a blueprint passes them
// to tpl. tpl runs its text with the render's whole context, so a tenant string that brings an
// action could read what the tenant must not see (a platform value, .Resources) or call any
// function, without changing the output's structure at all. The structure check therefore also
// compares the code tpl runs: render A and render B (tenant strings as placeholders) must run
// texts of the same shape — the same actions, fields, variables, functions and template
// names, in the same places. Only text and string and number literals may differ, and a
// tenant string can be nothing else in B: a placeholder is a plain word.

// CodeShape is the shape of the templates a tpl text defined: every node with its names, with
// the content of text and literals left out.
func CodeShape(t, base *template.Template) string {
	var b strings.Builder
	tt := t.Templates()
	slices.SortFunc(tt, func(a, c *template.Template) int { return strings.Compare(a.Name(), c.Name()) })
	for _, n := range tt {
		if old := base.Lookup(n.Name()); (old != nil && old.Tree == n.Tree) || n.Tree == nil {
			continue // the blueprint's own
		}
		b.WriteString("define ")
		b.WriteString(n.Name())
		shapeOf(&b, n.Tree.Root)
		b.WriteByte(';')
	}
	return b.String()
}

func shapeOf(b *strings.Builder, n parse.Node) {
	if n == nil {
		return
	}
	switch n := n.(type) {
	case *parse.ListNode:
		b.WriteByte('[')
		for _, c := range n.Nodes {
			shapeOf(b, c)
		}
		b.WriteByte(']')
	case *parse.TextNode:
		b.WriteString("T ")
	case *parse.StringNode:
		b.WriteString("S ")
	case *parse.NumberNode:
		b.WriteString("N ")
	case *parse.ActionNode:
		b.WriteString("{")
		shapeOf(b, n.Pipe)
		b.WriteString("}")
	case *parse.PipeNode:
		if n == nil {
			return
		}
		b.WriteByte('(')
		for _, v := range n.Decl {
			b.WriteString(v.String())
			b.WriteByte(' ')
		}
		if n.IsAssign {
			b.WriteString("= ")
		}
		for _, c := range n.Cmds {
			shapeOf(b, c)
			b.WriteString("| ")
		}
		b.WriteByte(')')
	case *parse.CommandNode:
		for _, a := range n.Args {
			shapeOf(b, a)
		}
	case *parse.ChainNode:
		shapeOf(b, n.Node)
		b.WriteString("." + strings.Join(n.Field, ".") + " ")
	case *parse.IfNode:
		b.WriteString("if")
		shapeBranch(b, &n.BranchNode)
	case *parse.RangeNode:
		b.WriteString("range")
		shapeBranch(b, &n.BranchNode)
	case *parse.WithNode:
		b.WriteString("with")
		shapeBranch(b, &n.BranchNode)
	case *parse.TemplateNode:
		b.WriteString("template " + n.Name)
		shapeOf(b, n.Pipe)
	default:
		// Fields, variables, identifiers, dot, nil, booleans, break, continue, comments:
		// their text is their shape.
		b.WriteString(n.String())
		b.WriteByte(' ')
	}
}

func shapeBranch(b *strings.Builder, n *parse.BranchNode) {
	shapeOf(b, n.Pipe)
	shapeOf(b, n.List)
	if n.ElseList != nil {
		b.WriteString("else")
		shapeOf(b, n.ElseList)
	}
}

// PlainText reports whether the templates a tpl text defined (see CodeShape) are text alone:
// no action, no define. It reads the parse before instrument adds its step counters.
func PlainText(t, base *template.Template) bool {
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
