package render

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"
	"time"
	"unicode/utf8"

	"github.com/Masterminds/sprig/v3"

	"gantry.dev/gantry/internal/tmplwalk"
)

// Limits bound what one render may cost, so that no blueprint and no tenant value can exhaust
// the controller. A zero field takes its default (DefaultLimits); a negative one disables that
// budget (for tests and trusted offline use only).
//
// text/template takes no context and cannot be interrupted, so every budget is checked from
// inside the execution: the output writer counts bytes and reads the clock every 64 KiB; a
// step function that Compile inserts at the start of every range body and every template
// counts loop iterations and template calls and reads the clock every 1024 steps; include and
// tpl count their results; and the sprig functions whose allocation grows with an integer or
// with the product of their arguments (until, untilStep, seq, repeat, indent, nindent,
// replace, wrapWith, regexReplaceAll) refuse results larger than the budgets before
// allocating them. A template therefore cannot loop, recurse or allocate without passing a
// check: between two checks it does at most one innermost loop body.
type Limits struct {
	// Timeout is the wall time one render may take.
	Timeout time.Duration
	// MaxBytes caps the text a render produces: every template's output and every include or
	// tpl result counts, and no single function result may be larger.
	MaxBytes int
	// MaxObjects caps the objects one render produces.
	MaxObjects int
	// MaxLoop caps the number of elements until, untilStep and seq produce.
	MaxLoop int
	// MaxSteps caps the loop iterations and template calls of one render, whether or not they
	// write anything.
	MaxSteps int
	// MaxAlloc caps the bytes of the results of the functions that build lists and maps,
	// summed over the render, charged before each is built.
	MaxAlloc int
}

// DefaultLimits fit the chart's 512 MiB memory limit with the default four concurrent Gateway
// renders: 4 MiB of text decodes to some tens of MiB of objects, so four renders at their
// budget stay well under half the limit, leaving the rest to the informer caches.
var DefaultLimits = Limits{
	Timeout:    5 * time.Second,
	MaxBytes:   4 << 20,
	MaxObjects: 1000,
	MaxLoop:    10000,
	MaxSteps:   1000000,
	MaxAlloc:   64 << 20,
}

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	or := func(v, d int) int {
		if v == 0 {
			return d
		}
		return v
	}
	if l.Timeout == 0 {
		l.Timeout = DefaultLimits.Timeout
	}
	l.MaxBytes = or(l.MaxBytes, DefaultLimits.MaxBytes)
	l.MaxObjects = or(l.MaxObjects, DefaultLimits.MaxObjects)
	l.MaxLoop = or(l.MaxLoop, DefaultLimits.MaxLoop)
	l.MaxSteps = or(l.MaxSteps, DefaultLimits.MaxSteps)
	l.MaxAlloc = or(l.MaxAlloc, DefaultLimits.MaxAlloc)
	return l
}

// budgetError is a budget a render exceeded. Like depthError, each include level passes it up
// as it is; run reports it against the template that was running.
type budgetError struct {
	msg    string
	timeUp bool // the wall-clock budget, which a render and its structure check share
}

func (e *budgetError) Error() string { return e.msg }

// budget is the spending of one render against its limits.
type budget struct {
	limits   Limits
	deadline time.Time
	bytes    int
	objects  int
	steps    int
	alloc    int
	// err is the first budget exceeded; once set, every later check fails with it.
	err *budgetError
}

func (b *budget) reset(l Limits) {
	*b = budget{limits: l.WithDefaults()}
	if b.limits.Timeout > 0 {
		b.deadline = time.Now().Add(b.limits.Timeout)
	}
}

func (b *budget) fail(format string, args ...any) error {
	if b.err == nil {
		b.err = &budgetError{msg: fmt.Sprintf(format, args...)}
	}
	return b.err
}

// clock fails once the render's time is up.
func (b *budget) clock() error {
	if b.err != nil {
		return b.err
	}
	if !b.deadline.IsZero() && time.Now().After(b.deadline) {
		err := b.fail("render budget exceeded: time: the render took longer than %v (--render-timeout)", b.limits.Timeout)
		b.err.timeUp = true
		return err
	}
	return nil
}

// spend counts n bytes of output and reads the clock each time a 64 KiB boundary is crossed.
func (b *budget) spend(n int) error {
	if b.err != nil {
		return b.err
	}
	before := b.bytes
	b.bytes += n
	if b.limits.MaxBytes > 0 && b.bytes > b.limits.MaxBytes {
		return b.fail("render budget exceeded: output: more than %d bytes (--render-max-bytes)", b.limits.MaxBytes)
	}
	if before>>16 != b.bytes>>16 {
		return b.clock()
	}
	return nil
}

// walkable refuses a value that a function walking it would find larger than the output
// budget, or endless: one that holds itself. With the budget off, a walk still stops, later.
func (b *budget) walkable(fn string, v any) error {
	limit := b.limits.MaxBytes
	if limit <= 0 {
		limit = 1 << 30
	}
	if sizeOf(v, limit) > limit {
		return b.fail("render budget exceeded: output: %s of a value larger than %d bytes, or one that holds itself (--render-max-bytes)", fn, limit)
	}
	return nil
}

// size refuses, before it is allocated, a function result of n bytes that alone exceeds the
// output budget.
func (b *budget) size(fn string, n int) error {
	if b.limits.MaxBytes > 0 && (n < 0 || n > b.limits.MaxBytes) {
		return b.fail("render budget exceeded: output: %s would produce more than %d bytes (--render-max-bytes)", fn, b.limits.MaxBytes)
	}
	return nil
}

// loop refuses a until/untilStep/seq of n elements beyond the loop budget.
func (b *budget) loop(fn string, n int) error {
	if b.limits.MaxLoop > 0 && (n < 0 || n > b.limits.MaxLoop) {
		return b.fail("render budget exceeded: %s would make more than %d elements (--render-max-loop)", fn, b.limits.MaxLoop)
	}
	return nil
}

// allocate charges a function result of n bytes before it is built, and reads the clock each
// time a MiB boundary is crossed: a single call may cost as much as many steps.
func (b *budget) allocate(fn string, n int) error {
	if b.err != nil {
		return b.err
	}
	before := b.alloc
	b.alloc += n
	if b.limits.MaxAlloc > 0 && (n < 0 || b.alloc > b.limits.MaxAlloc) {
		return b.fail("render budget exceeded: allocation: %s would take the render's function results past %d bytes (--render-max-alloc)", fn, b.limits.MaxAlloc)
	}
	if before>>20 != b.alloc>>20 {
		return b.clock()
	}
	return nil
}

// step counts one loop iteration or template call. It panics with its error, which
// text/template reports as the call's error as it does a returned one: a function that
// returns an error as well costs every call one more allocation (reflect allocates each
// result), and this one runs at every iteration.
func (b *budget) step() string {
	if err := b.stepped(); err != nil {
		panic(err)
	}
	return ""
}

// stepped counts one loop iteration or template call, and says whether the budget is spent.
func (b *budget) stepped() error { return b.stepsBy(1) }

// stepsBy counts n steps (a remembered include's body's, execution.include) and reads the
// clock once every 1,024.
func (b *budget) stepsBy(n int) error {
	before := b.steps
	b.steps += n
	if b.limits.MaxSteps > 0 && b.steps > b.limits.MaxSteps {
		return b.fail("render budget exceeded: steps: more than %d loop iterations and template calls (--render-max-steps)", b.limits.MaxSteps)
	}
	if before>>10 != b.steps>>10 {
		return b.clock()
	}
	return nil
}

// unstep takes the step instrument put at the start of each template out of the templates
// that no template action names, and returns their names: those run only from Go
// (execution.run, include), which counts their step there, before running them, as the
// action did first thing. A call of a function is a twentieth of a small template's time
// (text/template calls each through reflect); the step of a template that a template action
// runs stays, as does every loop's. The strict set (strictTemplates) keeps all of its own.
func unstep(root *template.Template) map[string]bool {
	named := map[string]bool{}
	for _, t := range root.Templates() {
		if t.Tree != nil {
			tmplwalk.Inspect(t.Tree.Root, func(n parse.Node) {
				if tn, ok := n.(*parse.TemplateNode); ok {
					named[tn.Name] = true
				}
			})
		}
	}
	out := map[string]bool{}
	for _, t := range root.Templates() {
		if t.Tree == nil || t.Tree.Root == nil || named[t.Name()] {
			continue
		}
		if l := t.Tree.Root; len(l.Nodes) > 0 && isStep(l.Nodes[0]) {
			l.Nodes = l.Nodes[1:]
			out[t.Name()] = true
		}
	}
	return out
}

// addObjects counts the objects of one template's output.
func (b *budget) addObjects(n int) error {
	b.objects += n
	if b.limits.MaxObjects > 0 && b.objects > b.limits.MaxObjects {
		return b.fail("render budget exceeded: objects: more than %d objects (--render-max-objects)", b.limits.MaxObjects)
	}
	return nil
}

// budgetWriter is a template's output buffer that charges every write to the budget.
type budgetWriter struct {
	buf    strings.Builder
	budget *budget
}

func (w *budgetWriter) Write(p []byte) (int, error) {
	if err := w.budget.spend(len(p)); err != nil {
		return 0, err
	}
	return w.buf.Write(p)
}

// stepFunc is the function Compile inserts at the start of every range body and template.
const stepFunc = "gantryStep"

// instrument inserts a call of stepFunc at the start of the tree's body and of every range
// body in it, so that every loop iteration and template call is counted whatever it does.
// Trees already instrumented are left as they are. Go's parse package has no constructor for
// an action, so the node is built by hand; with no tree of its own, an error in it is located
// in the template that runs it.
func instrument(tree *parse.Tree) {
	if tree == nil || tree.Root == nil {
		return
	}
	var visit func(n parse.Node)
	prepend := func(l *parse.ListNode, pos parse.Pos, line int) {
		if len(l.Nodes) > 0 && isStep(l.Nodes[0]) {
			return
		}
		id := parse.NewIdentifier(stepFunc).SetPos(pos)
		cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{id}}
		pipe := &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Line: line, Cmds: []*parse.CommandNode{cmd}}
		l.Nodes = append([]parse.Node{&parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Line: line, Pipe: pipe}}, l.Nodes...)
	}
	visit = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ActionNode:
			// A printing action (not an assignment): check what it prints before fmt does,
			// unless it ends in a function that returns a string (already checked or small),
			// and refuse an absent value that reaches it with nothing to handle it.
			if p := n.Pipe; p != nil && len(p.Decl) == 0 && len(p.Cmds) > 0 && !isStep(n) && !isOut(p) {
				path := p.String()
				// A pipeline that is one value alone ({{ .port }}) is checked by outFunc, which
				// refuses nil with presentFunc's error and path: one call instead of two.
				if !(len(p.Cmds) == 1 && len(p.Cmds[0].Args) == 1 && isValueNode(p.Cmds[0].Args[0])) {
					requirePresent(p)
				}
				if !endsInString(p) {
					id := parse.NewIdentifier(outFunc).SetPos(n.Pos)
					arg := &parse.StringNode{NodeType: parse.NodeString, Pos: n.Pos, Quoted: strconv.Quote(path), Text: path}
					p.Cmds = append(p.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: n.Pos, Args: []parse.Node{id, arg}})
				}
			}
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					visit(c)
				}
			}
		case *parse.IfNode:
			visit(n.List)
			visit(n.ElseList)
		case *parse.WithNode:
			visit(n.List)
			visit(n.ElseList)
		case *parse.RangeNode:
			visit(n.List)
			visit(n.ElseList)
			prepend(n.List, n.Pos, n.Line)
		}
	}
	visit(tree.Root)
	prepend(tree.Root, tree.Root.Pos, 1)
}

// stringFuncs are the functions that return a string, whose output an action prints as is.
var stringFuncs = func() map[string]bool {
	m := map[string]bool{"print": true, "printf": true, "println": true, "html": true, "js": true, "urlquery": true}
	for name, fn := range baseFuncs() {
		if t := reflect.TypeOf(fn); t.Kind() == reflect.Func && t.NumOut() >= 1 && t.Out(0).Kind() == reflect.String {
			m[name] = true
		}
	}
	return m
}()

func endsInString(p *parse.PipeNode) bool {
	last := p.Cmds[len(p.Cmds)-1]
	switch a := last.Args[0].(type) {
	case *parse.IdentifierNode:
		return stringFuncs[a.Ident]
	case *parse.StringNode, *parse.NumberNode, *parse.BoolNode:
		return len(last.Args) == 1
	}
	return false
}

func isOut(p *parse.PipeNode) bool {
	last := p.Cmds[len(p.Cmds)-1]
	id, ok := last.Args[0].(*parse.IdentifierNode)
	return ok && len(last.Args) == 2 && id.Ident == outFunc
}

func isStep(n parse.Node) bool {
	a, ok := n.(*parse.ActionNode)
	if !ok || a.Pipe == nil || len(a.Pipe.Cmds) != 1 || len(a.Pipe.Cmds[0].Args) != 1 {
		return false
	}
	id, ok := a.Pipe.Cmds[0].Args[0].(*parse.IdentifierNode)
	return ok && id.Ident == stepFunc
}

// bounded wraps the sprig functions whose allocation grows with an integer argument or with
// the product of their arguments, so that they check the budget before allocating.
func (x *execution) bounded() template.FuncMap {
	f := sprig.HermeticTxtFuncMap()
	until := f["until"].(func(int) []int)
	untilStep := f["untilStep"].(func(int, int, int) []int)
	seq := f["seq"].(func(...int) string)
	repeat := f["repeat"].(func(int, string) string)
	indent := f["indent"].(func(int, string) string)
	nindent := f["nindent"].(func(int, string) string)
	replace := f["replace"].(func(string, string, string) string)
	wrapWith := f["wrapWith"].(func(int, string, string) string)
	regexReplaceAll := f["regexReplaceAll"].(func(string, string, string) string)
	regexReplaceAllLiteral := f["regexReplaceAllLiteral"].(func(string, string, string) string)
	mustRegexReplaceAll := f["mustRegexReplaceAll"].(func(string, string, string) (string, error))
	mustRegexReplaceAllLiteral := f["mustRegexReplaceAllLiteral"].(func(string, string, string) (string, error))
	b := &x.budget
	// regexSize bounds a regex replacement: at most one match per position plus one, each
	// replaced by repl (whose expansions are at most the source long).
	regexSize := func(fn, s, repl string) error {
		return b.size(fn, len(s)+mul(len(s)+1, len(repl)+mul(len(s), strings.Count(repl, "$"))))
	}
	fm := template.FuncMap{
		stepFunc:    b.step,
		outFunc:     b.out,
		presentFunc: present,
		// fmt caps each width and precision at a million, but a format may hold many.
		"printf": func(format string, args ...any) (string, error) {
			n := len(format)
			for _, m := range digits.FindAllString(format, -1) {
				var v int
				fmt.Sscan(m, &v)
				n += v
			}
			if strings.Contains(format, "*") {
				for _, a := range args {
					if v, ok := a.(int); ok {
						n += abs(v)
					}
				}
			}
			if err := b.size("printf", n); err != nil {
				return "", err
			}
			for _, a := range args {
				if _, ok := a.(string); !ok && b.limits.MaxBytes > 0 && sizeOf(a, b.limits.MaxBytes) > b.limits.MaxBytes {
					return "", b.fail("render budget exceeded: output: printf of a value larger than %d bytes (--render-max-bytes)", b.limits.MaxBytes)
				}
			}
			return fmt.Sprintf(format, args...), nil
		},
		"until": func(n int) ([]int, error) {
			if err := b.loop(fmt.Sprintf("until %d", n), abs(n)); err != nil {
				return nil, err
			}
			return until(n), nil
		},
		"untilStep": func(start, stop, step int) ([]int, error) {
			if step != 0 {
				if err := b.loop(fmt.Sprintf("untilStep %d %d %d", start, stop, step), abs((stop-start)/step)); err != nil {
					return nil, err
				}
			}
			return untilStep(start, stop, step), nil
		},
		"seq": func(p ...int) (string, error) {
			n := 0
			switch len(p) {
			case 1:
				n = abs(p[0])
			case 2:
				n = abs(p[1] - p[0])
			case 3:
				if p[1] != 0 {
					n = abs((p[2] - p[0]) / p[1])
				}
			}
			if err := b.loop(fmt.Sprintf("seq %v", p), n); err != nil {
				return "", err
			}
			return seq(p...), nil
		},
		"repeat": func(n int, s string) (string, error) {
			if n > 0 && len(s) > 0 {
				if err := b.size(fmt.Sprintf("repeat %d", n), mul(n, len(s))); err != nil {
					return "", err
				}
			}
			return repeat(n, s), nil
		},
		"indent": func(n int, s string) (string, error) {
			if err := b.size(fmt.Sprintf("indent %d", n), len(s)+mul(max(n, 0), strings.Count(s, "\n")+1)); err != nil {
				return "", err
			}
			return indent(n, s), nil
		},
		"nindent": func(n int, s string) (string, error) {
			if err := b.size(fmt.Sprintf("nindent %d", n), 1+len(s)+mul(max(n, 0), strings.Count(s, "\n")+1)); err != nil {
				return "", err
			}
			return nindent(n, s), nil
		},
		"replace": func(old, repl, s string) (string, error) {
			n := len(s) + 1
			if old != "" {
				n = strings.Count(s, old)
			}
			if err := b.size("replace", len(s)+mul(n, len(repl))); err != nil {
				return "", err
			}
			return replace(old, repl, s), nil
		},
		"wrapWith": func(l int, sep, s string) (string, error) {
			if err := b.size("wrapWith", len(s)+mul(len(s)/max(l, 1)+1, len(sep))); err != nil {
				return "", err
			}
			return wrapWith(l, sep, s), nil
		},
		"regexReplaceAll": func(regex, s, repl string) (string, error) {
			if err := regexSize("regexReplaceAll", s, repl); err != nil {
				return "", err
			}
			return regexReplaceAll(regex, s, repl), nil
		},
		"regexReplaceAllLiteral": func(regex, s, repl string) (string, error) {
			if err := regexSize("regexReplaceAllLiteral", s, repl); err != nil {
				return "", err
			}
			return regexReplaceAllLiteral(regex, s, repl), nil
		},
		"mustRegexReplaceAll": func(regex, s, repl string) (string, error) {
			if err := regexSize("mustRegexReplaceAll", s, repl); err != nil {
				return "", err
			}
			return mustRegexReplaceAll(regex, s, repl)
		},
		"mustRegexReplaceAllLiteral": func(regex, s, repl string) (string, error) {
			if err := regexSize("mustRegexReplaceAllLiteral", s, repl); err != nil {
				return "", err
			}
			return mustRegexReplaceAllLiteral(regex, s, repl)
		},
	}
	// derivePassword runs scrypt (32 MiB, tens of milliseconds) per call: read the clock before
	// each, not every 1024 steps.
	if fn, ok := f["derivePassword"].(func(uint32, string, string, string, string) string); ok {
		fm["derivePassword"] = func(counter uint32, typ, password, user, site string) (string, error) {
			if err := b.clock(); err != nil {
				return "", err
			}
			return fn(counter, typ, password, user, site), nil
		}
	}
	for name, fn := range x.linear() {
		fm[name] = fn
	}
	base := baseFuncs()
	// text/template's own; a FuncMap entry takes precedence over a builtin.
	base["print"], base["println"] = fmt.Sprint, fmt.Sprintln
	for _, name := range walking {
		if fn, ok := base[name]; ok {
			fm[name] = b.sized(name, fn)
		}
	}
	for _, name := range building {
		if fn, ok := fm[name]; ok {
			fm[name] = b.charged(name, fn)
		} else if fn, ok := f[name]; ok {
			fm[name] = b.charged(name, fn)
		}
	}
	return fm
}

var digits = regexp.MustCompile(`[0-9]{1,7}`)

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// mul multiplies two non-negative sizes, saturating instead of overflowing.
func mul(a, b int) int {
	if a != 0 && b > (1<<62)/a {
		return 1 << 62
	}
	return a * b
}

// budgetExceeded finds a budget error inside err (text/template wraps function errors).
func budgetExceeded(err error) (*budgetError, bool) {
	var b *budgetError
	return b, errors.As(err, &b)
}

// sizeOf is the size of v as a function that walks it (an encoder, fmt, a deep copy) sees
// it: the length of its strings plus one per element, counting a list or map each time it is
// reached, so that a value holding another twice counts it twice. It stops once over limit:
// a value built by doubling references is refused after limit steps, not expanded.
func sizeOf(v any, limit int) int {
	n := 0
	var walk func(v any)
	walk = func(v any) {
		if n > limit {
			return
		}
		n++
		switch v := v.(type) {
		case nil, bool, int, int64, float64:
		case string:
			n += len(v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				n += len(k)
				walk(e)
			}
		default:
			r := reflect.ValueOf(v)
			switch r.Kind() {
			case reflect.String:
				n += r.Len()
			case reflect.Slice, reflect.Array:
				if r.Type().Elem().Kind() == reflect.Uint8 {
					n += r.Len()
					return
				}
				for i := 0; i < r.Len() && n <= limit; i++ {
					walk(r.Index(i).Interface())
				}
			case reflect.Map:
				for it := r.MapRange(); it.Next() && n <= limit; {
					walk(it.Key().Interface())
					walk(it.Value().Interface())
				}
			case reflect.Pointer, reflect.Interface:
				if !r.IsNil() {
					walk(r.Elem().Interface())
				}
			}
		}
	}
	walk(v)
	return n
}

// walking are the functions whose cost grows with the whole of their arguments, walked or
// copied: encoders, fmt-based printing and joining, deep copies. Their arguments and result
// must fit the output budget.
// (Functions of one string whose result is at most a constant times its length, like upper or
// b64enc, are bounded by the check on the values that reach them: each step of a chain of them
// passes through an action or one of these.)
var walking = []string{
	"toJson", "toPrettyJson", "toRawJson", "toYaml", "toString", "toStrings", "print", "println",
	"cat", "join", "deepCopy", "mustDeepCopy", "sortAlpha", "concat", "b64enc", "b32enc",
}

// sized wraps fn so that it refuses arguments and results larger than the output budget.
// reflect.MakeFunc keeps each function's own signature, which text/template relies on to
// convert arguments; the cost is one reflective call, paid only by these functions.
func (b *budget) sized(name string, fn any) any {
	v := reflect.ValueOf(fn)
	check := func(vals []reflect.Value) error {
		if b.limits.MaxBytes <= 0 {
			return nil
		}
		for _, a := range vals {
			if a.Kind() == reflect.Interface && a.IsNil() || !a.CanInterface() {
				continue
			}
			if sizeOf(a.Interface(), b.limits.MaxBytes) > b.limits.MaxBytes {
				return b.fail("render budget exceeded: output: %s of a value larger than %d bytes (--render-max-bytes)", name, b.limits.MaxBytes)
			}
		}
		return nil
	}
	// The encoders (toYaml, toJson…) take one value and return a string and an error: a
	// typed closure runs the same checks without MakeFunc's second reflective call.
	if f, ok := fn.(func(any) (string, error)); ok {
		return func(a any) (string, error) {
			if a != nil {
				if err := check([]reflect.Value{reflect.ValueOf(a)}); err != nil {
					return "", err
				}
			}
			s, err := f(a)
			if err != nil {
				return s, err
			}
			if b.limits.MaxBytes > 0 && len(s)+1 > b.limits.MaxBytes {
				return "", b.fail("render budget exceeded: output: %s of a value larger than %d bytes (--render-max-bytes)", name, b.limits.MaxBytes)
			}
			return s, nil
		}
	}
	t := v.Type()
	hasErr := t.NumOut() == 2
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		fail := func(err error) []reflect.Value {
			out := []reflect.Value{reflect.Zero(t.Out(0))}
			if hasErr {
				out = append(out, reflect.ValueOf(&err).Elem())
			} else {
				panic(err) // text/template reports a panic in a function as its error
			}
			return out
		}
		if err := check(args); err != nil {
			return fail(err)
		}
		var out []reflect.Value
		if t.IsVariadic() {
			out = v.CallSlice(args)
		} else {
			out = v.Call(args)
		}
		if err := check(out[:1]); err != nil {
			return fail(err)
		}
		return out
	}).Interface()
}

// outFunc is appended to every printing action, so that what an action prints is checked
// before fmt expands it: fmt formats a whole value in memory before writing any of it.
const outFunc = "gantryOut"

// out refuses nil, an absent value (or an explicit null) that nothing handled: printed, it
// would be an empty string (Helm's "<no value>") where the template meant a value. path is
// the action's pipeline, as the blueprint spells it.
// Like step, it panics with its error.
func (b *budget) out(_ string, v any) any {
	if v == nil {
		panic(errAbsent)
	}
	if b.limits.MaxBytes > 0 {
		if _, ok := v.(string); !ok && sizeOf(v, b.limits.MaxBytes) > b.limits.MaxBytes {
			panic(b.fail("render budget exceeded: output: printing a value larger than %d bytes (--render-max-bytes)", b.limits.MaxBytes))
		}
	}
	return v
}

// linear replaces the sprig functions whose cost grew with the product of their inputs with
// implementations that give the same results in linear time (TestLinearFuncsAgreeWithSprig).
func (x *execution) linear() template.FuncMap {
	return template.FuncMap{
		"uniq": func(list any) []any {
			l, err := uniqLinear(list)
			if err != nil {
				panic(err) // as sprig's uniq: text/template reports it as the call's error
			}
			return l
		},
		"mustUniq": uniqLinear,
		"trimAll":  func(a, b string) string { return trimCutset(b, a) },
		"trimall":  func(a, b string) string { return trimCutset(b, a) },
	}
}

// uniqLinear is sprig's mustUniq (the first of each run of reflect.DeepEqual values, in order)
// in linear time: values of a basic kind, for which DeepEqual is ==, are looked up in a map;
// only the others (maps, lists, pointers) are compared one by one with the others kept.
func uniqLinear(list any) ([]any, error) {
	switch k := reflect.TypeOf(list).Kind(); k {
	case reflect.Slice, reflect.Array:
	default:
		return nil, fmt.Errorf("Cannot find uniq on type %s", k)
	}
	l := reflect.ValueOf(list)
	dest := []any{}
	seen := map[any]bool{}
	var others []any
	for i := range l.Len() {
		item := l.Index(i).Interface()
		if basic(item) {
			if !seen[item] {
				seen[item] = true
				dest = append(dest, item)
			}
			continue
		}
		dup := false
		for _, o := range others {
			if reflect.DeepEqual(item, o) {
				dup = true
				break
			}
		}
		if !dup {
			others = append(others, item)
			dest = append(dest, item)
		}
	}
	return dest, nil
}

// basic reports whether v is of a kind for which reflect.DeepEqual is == (NaN is unequal to
// itself either way).
func basic(v any) bool {
	if v == nil {
		return true
	}
	switch reflect.TypeOf(v).Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	}
	return false
}

// trimCutset is strings.Trim(s, cutset) in linear time. strings.Trim looks each character up
// in the whole cutset when it is not ASCII; a set of its runes answers the same (ranging over
// the cutset yields utf8.RuneError for an invalid byte, as strings.ContainsRune matches it).
func trimCutset(s, cutset string) string {
	if len(cutset) <= 16 {
		return strings.Trim(s, cutset)
	}
	set := map[rune]bool{}
	for _, r := range cutset {
		set[r] = true
	}
	for s != "" {
		r, n := utf8.DecodeRuneInString(s)
		if !set[r] {
			break
		}
		s = s[n:]
	}
	for s != "" {
		r, n := utf8.DecodeLastRuneInString(s)
		if !set[r] {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

// building are the functions that build a list or map from their arguments: their result is
// charged to the allocation budget (sixteen bytes an element) before it is built, so that a
// loop that copies a growing list (append, concat…) is stopped however few steps it takes.
var building = []string{
	"list", "tuple", "dict", "append", "push", "mustAppend", "mustPush", "prepend", "mustPrepend",
	"concat", "uniq", "mustUniq", "without", "mustWithout", "compact", "mustCompact", "rest",
	"mustRest", "initial", "mustInitial", "reverse", "mustReverse", "chunk", "mustChunk", "keys",
	"values", "pick", "omit", "pluck", "sortAlpha", "toStrings", "splitList", "split", "splitn",
	"regexSplit", "mustRegexSplit", "regexFindAll", "mustRegexFindAll", "slice", "mustSlice",
}

// elementBytes is what one element of a list or map result is charged.
const elementBytes = 16

// resultElements bounds how many elements a building function's result holds: the elements
// of its list and map arguments, one per string byte (splits) and one per other argument.
func resultElements(args []reflect.Value) int {
	n := 0
	for _, a := range args {
		if a.Kind() == reflect.Interface {
			if a.IsNil() {
				n++
				continue
			}
			a = a.Elem()
		}
		switch a.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map, reflect.String:
			n += a.Len() + 1
		default:
			n++
		}
	}
	return n
}

// charged wraps a building function so that its result is charged before it is built.
func (b *budget) charged(name string, fn any) any {
	v := reflect.ValueOf(fn)
	t := v.Type()
	hasErr := t.NumOut() == 2
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		n := resultElements(args)
		if t.IsVariadic() && len(args) > 0 {
			n += resultElements(sliceElems(args[len(args)-1])) - 1
		}
		if err := b.allocate(name, mul(n, elementBytes)); err != nil {
			out := []reflect.Value{reflect.Zero(t.Out(0))}
			if !hasErr {
				panic(err) // text/template reports a panic in a function as its error
			}
			return append(out, reflect.ValueOf(&err).Elem())
		}
		if t.IsVariadic() {
			return v.CallSlice(args)
		}
		return v.Call(args)
	}).Interface()
}

func sliceElems(v reflect.Value) []reflect.Value {
	out := make([]reflect.Value, v.Len())
	for i := range out {
		out[i] = v.Index(i)
	}
	return out
}
