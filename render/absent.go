package render

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	"gantry.dev/gantry/boundary"
)

// Absent values, as in Helm.
//
// Templates run with text/template's default for a missing map key: the lookup gives no
// value, which every function and action sees as nil. That is what Helm gives (`missingkey=zero`)
// to default, if, with, required, empty, coalesce, ternary, hasKey, dig, and, or, not and eq,
// and it also holds for a key under an absent map (`.Values.a.b` with `a` missing), where
// Helm fails with "nil pointer evaluating interface {}.b".
//
// What Helm gets wrong for a controller is printing: `image: {{ .Values.imagee }}` renders
// `image: ` and is applied. Here a printing action refuses nil (budget.out), and a value read
// in a printing action whose pipeline has no function that handles absence must be there
// (presentFunc): `{{ .Values.imagee | quote }}` fails instead of rendering `""`. Both errors
// name the path as the blueprint spells it; the template and line come with the error.
//
// `.Resources` keeps its meaning: reading a part of a live object that is not there yet is
// pending, not nil. A template that reads `.Resources` is therefore rendered a second time,
// strictly (see execution.strictPending), to find out.

// presentFunc is put after a value that a printing action uses without handling its absence.
const presentFunc = "gantryPresent"

// absenceHandlers are the functions that take an absent value as an answer: a pipeline that
// calls one of them handles absence itself. The encoders are here because Helm charts write
// `{{ toYaml .Values.tags }}` for optional values and read the `null` they print.
var absenceHandlers = map[string]bool{
	"default": true, "required": true, "coalesce": true, "ternary": true, "empty": true,
	"hasKey": true, "dig": true, "and": true, "or": true, "not": true, "eq": true, "ne": true,
	"kindIs": true, "kindOf": true, "typeIs": true, "typeIsLike": true, "typeOf": true,
	"deepEqual": true, "toYaml": true, "toJson": true, "toPrettyJson": true, "toRawJson": true,
	"include": true, "tpl": true, "fail": true, "list": true, "dict": true, "compact": true,
}

// errAbsent is the error for an absent value; the error's context names the path.
var errAbsent = errors.New("no value (the key is absent or null); give it a default, make it required, or test it with if or with")

// present is presentFunc: it refuses nil. Its first argument is the path as the blueprint
// spells it: text/template's error shows it with the call, and plainChecks makes it the context.
// It panics with its error, as budget.step does.
func present(_ string, v any) any {
	if v == nil {
		panic(errAbsent)
	}
	return v
}

// requirePresent rewrites a printing action's pipeline so that the values it reads directly —
// the value the pipeline starts with, and the fields and variables given as arguments to its
// functions — must be there, unless a function of the pipeline handles absence.
// text/template has no hook for this; its parse trees are exported so that tools can rewrite
// them (as boundary.RewriteDecisions does).
func requirePresent(p *parse.PipeNode) {
	for _, c := range p.Cmds {
		if id, ok := c.Args[0].(*parse.IdentifierNode); ok && absenceHandlers[id.Ident] {
			return
		}
	}
	var cmds []*parse.CommandNode
	for i, c := range p.Cmds {
		if i == 0 && len(c.Args) == 1 && isValueNode(c.Args[0]) {
			cmds = append(cmds, c, presentCommand(c.Args[0], c.Position()))
			continue
		}
		if _, ok := c.Args[0].(*parse.IdentifierNode); ok {
			for j := 1; j < len(c.Args); j++ {
				if isValueNode(c.Args[j]) {
					a := c.Args[j]
					c.Args[j] = &parse.PipeNode{NodeType: parse.NodePipe, Pos: a.Position(), Line: p.Line,
						Cmds: []*parse.CommandNode{
							{NodeType: parse.NodeCommand, Pos: a.Position(), Args: []parse.Node{a}},
							presentCommand(a, a.Position()),
						}}
				}
			}
		}
		cmds = append(cmds, c)
	}
	p.Cmds = cmds
}

func presentCommand(value parse.Node, pos parse.Pos) *parse.CommandNode {
	path := value.String()
	return &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{
		parse.NewIdentifier(presentFunc).SetPos(pos),
		&parse.StringNode{NodeType: parse.NodeString, Pos: pos, Quoted: strconv.Quote(path), Text: path},
	}}
}

// isValueNode reports whether n reads a value: a field, a variable or a field of a pipeline.
func isValueNode(n parse.Node) bool {
	switch n := n.(type) {
	case *parse.FieldNode:
		return true
	case *parse.VariableNode:
		return true
	case *parse.ChainNode:
		return len(n.Field) > 0
	}
	return false
}

// checkCall is how text/template reports an error of outFunc or presentFunc: the call, its
// argument (the path) and "error calling". Errors say the path instead: `at <PATH>: MSG`.
var checkCall = regexp.MustCompile(`at <(?:` + outFunc + `|` + presentFunc + `) "((?:[^"\\]|\\.)*)">: error calling (?:` + outFunc + `|` + presentFunc + `): `)

var (
	// presentArg is an argument rewritten by requirePresent: `(PATH | gantryPresent "PATH")`.
	presentArg = regexp.MustCompile(` \| ` + presentFunc + ` "((?:[^"\\]|\\.)*)"\)`)
	// lookupArg is a field chain rewritten by lenientRoots: `(gantryLookup . "Values" "a")`.
	lookupArg = regexp.MustCompile(`\(` + lookupFunc + ` ([.$])((?: "[^"]*")+)\)`)
)

// plainChecks rewrites what the instrumentation added to a template back into what the
// blueprint spells, in an error message (an include's error holds its template's too): errors
// say `at <PATH>: MSG`, never the functions Gantry inserted.
func plainChecks(msg string) string {
	if !strings.Contains(msg, "gantry") {
		return msg
	}
	msg = boundary.Unrewrite(msg)
	msg = checkCall.ReplaceAllStringFunc(msg, func(m string) string {
		path, err := strconv.Unquote(`"` + checkCall.FindStringSubmatch(m)[1] + `"`)
		if err != nil {
			return m
		}
		return "at <" + path + ">: "
	})
	for _, m := range presentArg.FindAllStringSubmatch(msg, -1) {
		if path, err := strconv.Unquote(`"` + m[1] + `"`); err == nil {
			msg = strings.ReplaceAll(msg, "("+path+m[0], path)
		}
	}
	return lookupArg.ReplaceAllStringFunc(msg, func(m string) string {
		sub := lookupArg.FindStringSubmatch(m)
		path := strings.ReplaceAll(strings.ReplaceAll(sub[2], `"`, ""), " ", ".")
		if sub[1] == "$" {
			return "$" + path
		}
		return path
	})
}

// lookupFunc is the lenient field lookup of the strict render (see strictTemplates).
const lookupFunc = "gantryLookup"

// lookup reads keys under v the way a template's field chain does with no missingkey option:
// an absent key, or any key under one, is nil. A field of a value that is not a map fails as
// it does in a template.
func lookup(v any, keys ...string) (any, error) {
	for _, k := range keys {
		switch m := v.(type) {
		case nil:
			return nil, nil
		case map[string]any:
			v = m[k]
		default:
			return nil, fmt.Errorf("can't evaluate field %s in type %T", k, v)
		}
	}
	return v, nil
}

// contextRoots are the parts of the context whose absent keys are nil in the strict render too.
var contextRoots = map[string]bool{"Values": true, "Gateway": true, "Route": true, "HTTPRoute": true, "GRPCRoute": true, "TLSRoute": true, "TCPRoute": true,
	"UDPRoute": true, "Backends": true, "Hostnames": true, "ListenerSets": true, "Routes": true}

// strictTemplates parses the blueprint's templates a second time for the strict render that
// tells a template waiting for a live object from one that handles an absent value: with
// `missingkey=error`, but with every field chain that starts at .Values, .Gateway, the route or
// .Hostnames (from dot, or from $) read leniently, so that the first missing key it stops at is
// one of something else — a live object's, in a template that reads .Resources.
func strictTemplates(name string, sources map[string]string) (*template.Template, error) {
	root := template.New(name).Option("missingkey=error").Funcs(baseFuncs()).Funcs(boundary.DecisionFuncs())
	root.Funcs(template.FuncMap{lookupFunc: lookup})
	for _, field := range slices.Sorted(maps.Keys(sources)) {
		if _, err := root.New(field).Parse(sources[field]); err != nil {
			return nil, err
		}
	}
	for _, t := range root.Templates() {
		instrument(t.Tree)
		if t.Tree != nil {
			lenientRoots(t.Tree.Root)
		}
	}
	return root, nil
}

// lenientRoots rewrites `.Values.a.b` as `(gantryLookup . "Values" "a" "b")` and `$.Values.a`
// as `(gantryLookup $ "Values" "a")` boundary.Everywhere under n.
func lenientRoots(n parse.Node) {
	var pipe func(p *parse.PipeNode)
	var node func(n parse.Node)
	arg := func(a parse.Node) parse.Node {
		var recv parse.Node
		var keys []string
		switch a := a.(type) {
		case *parse.FieldNode:
			if !contextRoots[a.Ident[0]] {
				return a
			}
			recv, keys = &parse.DotNode{NodeType: parse.NodeDot, Pos: a.Pos}, a.Ident
		case *parse.VariableNode:
			if len(a.Ident) < 2 || a.Ident[0] != "$" || !contextRoots[a.Ident[1]] {
				return a
			}
			recv, keys = &parse.VariableNode{NodeType: parse.NodeVariable, Pos: a.Pos, Ident: []string{"$"}}, a.Ident[1:]
		case *parse.PipeNode:
			pipe(a)
			return a
		case *parse.ChainNode:
			if p, ok := a.Node.(*parse.PipeNode); ok {
				pipe(p)
			}
			return a
		default:
			return a
		}
		args := []parse.Node{parse.NewIdentifier(lookupFunc).SetPos(a.Position()), recv}
		for _, k := range keys {
			args = append(args, &parse.StringNode{NodeType: parse.NodeString, Pos: a.Position(), Quoted: strconv.Quote(k), Text: k})
		}
		return &parse.PipeNode{NodeType: parse.NodePipe, Pos: a.Position(), Cmds: []*parse.CommandNode{{NodeType: parse.NodeCommand, Pos: a.Position(), Args: args}}}
	}
	pipe = func(p *parse.PipeNode) {
		if p == nil {
			return
		}
		for _, c := range p.Cmds {
			for i, a := range c.Args {
				if i == 0 && len(c.Args) > 1 {
					if _, isField := a.(*parse.FieldNode); isField {
						continue // a method call, which maps do not have: left to fail as it does
					}
				}
				c.Args[i] = arg(a)
			}
		}
	}
	node = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					node(c)
				}
			}
		case *parse.ActionNode:
			pipe(n.Pipe)
		case *parse.IfNode:
			pipe(n.Pipe)
			node(n.List)
			node(n.ElseList)
		case *parse.WithNode:
			pipe(n.Pipe)
			node(n.List)
			node(n.ElseList)
		case *parse.RangeNode:
			pipe(n.Pipe)
			node(n.List)
			node(n.ElseList)
		case *parse.TemplateNode:
			pipe(n.Pipe)
		}
	}
	node(n)
}

// strictPending renders c again with the strict templates, after a render that succeeded or
// failed otherwise: a missing key of a live object there means c waits for that object. The
// strict render's output is not used, and it changes nothing the root context reaches: the
// render that counts made those changes already (set, unset and the merges skip them, see
// execution.mutating), and making them twice would change what later templates see.
func (x *execution) strictPending(c *compiled) *Pending {
	if x.strict == nil || len(c.reads) == 0 || x.budget.err != nil || x.placeholders {
		return nil
	}
	t, memo, code, depth := x.t, x.memo, len(x.code), x.depth
	x.t, x.memo, x.depth, x.strictRun = x.strict, nil, 0, true
	defer func() { x.t, x.memo, x.code, x.depth, x.strictRun = t, memo, x.code[:code], depth, false }()
	buf := budgetWriter{budget: &x.budget}
	err := x.t.ExecuteTemplate(&buf, c.field, x.data)
	if err == nil || x.budget.err != nil {
		return nil
	}
	e, ctx := templateError(x.b.Name, c.field, err)
	return x.pending(c, ctx, e)
}
