package render

import (
	"maps"
	"slices"
	"text/template"
	"text/template/parse"
)

// resourcesRead finds which .Resources entries a blueprint's templates can read, for the
// memory of outputs (outputs.go): a render's key then holds only those entries, so that an
// apply that changed a live object no template reads (a Deployment's replicas, say) is not a
// new render input. exact is false when the templates may read .Resources in a way this
// analysis cannot follow; the key then holds every entry.
//
// It is conservative: the data a template renders with (its "dot" at the top, and "$") is the
// whole context, and any use of it as a value — printed, passed to a function (toYaml .,
// index . "Resources", dict "ctx" .), bound to a variable, ranged over — could reach any entry,
// as could .Resources itself as a value and tpl, which runs text no analysis sees. Only
// fields chained off it (.Resources.service, $.Resources.service, index .Resources "service")
// and passing it whole to a named define, which is then analysed with the whole context as its
// data, are followed. Inside with and range on anything else, dot is that other thing.
// Written by hand: text/template/parse has no data-flow analysis to borrow.
func resourcesRead(set *template.Template, topLevel map[string]bool) (entries []string, exact bool) {
	trees := map[string]*parse.Tree{}
	for _, t := range set.Templates() {
		if t.Tree != nil && t.Tree.Root != nil {
			trees[t.Name()] = t.Tree
		}
	}
	r := &readsAnalysis{seen: map[string]bool{}, exact: true, rootDefines: map[string]bool{}}
	done := map[string]bool{}
	for {
		var next []string
		for name := range trees {
			if !done[name] && (topLevel[name] || r.rootDefines[name] || r.allRoot) {
				next = append(next, name)
			}
		}
		if len(next) == 0 {
			break
		}
		for _, name := range next {
			done[name] = true
			r.list(trees[name].Root, scope{dot: true, dollar: true})
		}
	}
	if !r.exact {
		return nil, false
	}
	return slices.Sorted(maps.Keys(r.seen)), true
}

// topLevel names the templates a render executes itself; the others are defines.
func topLevel(b *Blueprint) map[string]bool {
	out := map[string]bool{}
	for _, c := range b.all() {
		if c != nil {
			out[c.field] = true
		}
	}
	return out
}

// scope says whether dot, and $, may be the whole render context.
type scope struct{ dot, dollar bool }

type readsAnalysis struct {
	seen  map[string]bool
	exact bool
	// rootDefines are defines some template passes the whole context to; allRoot is set when a
	// template passes it to a define whose name is not a literal.
	rootDefines map[string]bool
	allRoot     bool
}

func (r *readsAnalysis) list(n *parse.ListNode, s scope) {
	if n == nil {
		return
	}
	for _, c := range n.Nodes {
		r.node(c, s)
	}
}

func (r *readsAnalysis) node(n parse.Node, s scope) {
	switch n := n.(type) {
	case *parse.ActionNode:
		r.pipe(n.Pipe, s)
	case *parse.IfNode:
		r.pipe(n.Pipe, s)
		r.list(n.List, s)
		r.list(n.ElseList, s)
	case *parse.WithNode:
		r.pipe(n.Pipe, s)
		r.list(n.List, scope{dot: r.isContext(n.Pipe, s), dollar: s.dollar})
		r.list(n.ElseList, s)
	case *parse.RangeNode:
		r.pipe(n.Pipe, s)
		if r.isContext(n.Pipe, s) {
			r.exact = false // its elements are .Values, .Resources…
		}
		r.list(n.List, scope{dollar: s.dollar})
		r.list(n.ElseList, s)
	case *parse.TemplateNode:
		if r.isContext(n.Pipe, s) {
			r.rootDefines[n.Name] = true
			return
		}
		r.pipe(n.Pipe, s)
	}
}

// isContext reports whether a pipeline is, as a whole, the render's context: dot or $ where
// they are.
func (r *readsAnalysis) isContext(p *parse.PipeNode, s scope) bool {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return false
	}
	return r.isContextNode(p.Cmds[0].Args[0], s)
}

func (r *readsAnalysis) isContextNode(n parse.Node, s scope) bool {
	switch n := n.(type) {
	case *parse.DotNode:
		return s.dot
	case *parse.VariableNode:
		return s.dollar && len(n.Ident) == 1 && n.Ident[0] == "$"
	case *parse.PipeNode:
		return r.isContext(n, s)
	}
	return false
}

func (r *readsAnalysis) pipe(p *parse.PipeNode, s scope) {
	if p == nil {
		return
	}
	for _, c := range p.Cmds {
		r.command(c, s)
	}
}

func (r *readsAnalysis) command(c *parse.CommandNode, s scope) {
	args := c.Args
	if len(args) == 0 {
		return
	}
	if id, ok := args[0].(*parse.IdentifierNode); ok {
		switch id.Ident {
		case "tpl":
			r.exact = false
		case "include":
			if len(args) >= 3 && r.isContextNode(args[2], s) {
				if name, ok := args[1].(*parse.StringNode); ok {
					r.rootDefines[name.Text] = true
				} else {
					r.allRoot = true
				}
				args = slices.Concat(args[:2], args[3:])
			}
		case "index":
			if len(args) >= 3 && r.isResources(args[1], s) {
				if name, ok := args[2].(*parse.StringNode); ok {
					r.seen[name.Text] = true
					args = slices.Concat(args[:1], args[3:])
				}
			}
		}
	}
	for _, a := range args {
		r.value(a, s)
	}
}

// isResources reports whether n is .Resources (or $.Resources) of the render's context.
func (r *readsAnalysis) isResources(n parse.Node, s scope) bool {
	switch n := n.(type) {
	case *parse.FieldNode:
		return s.dot && len(n.Ident) == 1 && n.Ident[0] == "Resources"
	case *parse.VariableNode:
		return s.dollar && len(n.Ident) == 2 && n.Ident[0] == "$" && n.Ident[1] == "Resources"
	}
	return false
}

// value is a node used as data.
func (r *readsAnalysis) value(n parse.Node, s scope) {
	switch n := n.(type) {
	case *parse.DotNode:
		if s.dot {
			r.exact = false
		}
	case *parse.FieldNode:
		if s.dot {
			r.fields(n.Ident)
		}
	case *parse.VariableNode:
		if s.dollar && n.Ident[0] == "$" {
			if len(n.Ident) == 1 {
				r.exact = false
			} else {
				r.fields(n.Ident[1:])
			}
		}
	case *parse.ChainNode:
		if f, ok := n.Node.(*parse.FieldNode); ok && len(n.Field) > 0 {
			// (.Resources).service is .Resources.service.
			r.value(&parse.FieldNode{Ident: append(slices.Clone(f.Ident), n.Field...)}, s)
			return
		}
		if r.isContextNode(n.Node, s) {
			r.fields(n.Field)
			return
		}
		r.value(n.Node, s)
	case *parse.PipeNode:
		// A variable bound to the context ($ctx := .) is caught here: the context is a value.
		r.pipe(n, s)
	}
}

// fields follows a field chain off the render's context.
func (r *readsAnalysis) fields(ident []string) {
	if len(ident) == 0 || ident[0] != "Resources" {
		return
	}
	if len(ident) == 1 {
		r.exact = false // .Resources as a value: any entry
		return
	}
	r.seen[ident[1]] = true
}
