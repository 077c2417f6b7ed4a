package boundary

import (
	"cmp"
	"errors"
	"hash/fnv"
	"maps"
	"reflect"
	"regexp"
	"slices"
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
var Rewritten = func() map[string]string {
	m := map[string]string{decideTernary: "ternary", loopUntil: "until", loopUntilStep: "untilStep", includeAt: "include"}
	for name := range splitting {
		m[splitPrefix+name] = name
	}
	return m
}()

// splitting are the functions that cut a string into a list (or, for split and splitn, a map
// of "_0", "_1"…), by where their content string is among their arguments. The number of
// parts is a decision, as a loop count is (see countedSplit): a tenant's "a,b" splits in two
// where its stand-in does not split at all.
var splitting = map[string]int{
	"splitList": 1, "split": 1, "splitn": 2, "regexSplit": 1, "mustRegexSplit": 1,
	"regexFindAll": 1, "mustRegexFindAll": 1,
}

// splitPrefix starts the names RewriteDecisions gives the splitting functions.
const splitPrefix = "gantryCounted_"

// DecisionFuncs are the stand-ins the template set is parsed with; each execution binds its own.
func DecisionFuncs() template.FuncMap {
	f := template.FuncMap{
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
	for name := range splitting {
		f[splitPrefix+name] = func(int, ...any) any { return nil }
	}
	return f
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
	renamedCall = regexp.MustCompile(`\b(` + strings.Join(longestFirst(slices.Collect(maps.Keys(Rewritten))), "|") + `)(?: -?\d+\b)?`)
	// decisionSuffix is what RewriteDecisions appends to an if or with pipeline.
	decisionSuffix = regexp.MustCompile(` \| (?:` + decideIf + `|` + decideWith + `) -?\d+`)
)

// longestFirst sorts names so that none comes after a name it starts with (a regexp's
// alternation takes the first that matches).
func longestFirst(names []string) []string {
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return names
}

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
	// sub holds the stand-ins of a render with them (B's or C's): the splitting functions
	// cut what they stand for, as A does (countedSplit).
	sub *Substitution
	// lifted is set once a split cut what stand-ins stand for, in any template of the render
	// (Start does not clear it): its output then depends on the tenant's text, not only on
	// its input and decisions (see Lifted).
	lifted bool
}

// Lifted reports whether a split of the render cut what its stand-ins stand for: B's output
// then depends on more than the input the check's memory keys it by (where the tenant's
// strings are, not what they say), and is not remembered.
func (d *Decider) Lifted() bool { return d.lifted }

// UseStandIns tells d the stand-ins of the render it decides for (nil for A).
func (d *Decider) UseStandIns(sub *Substitution) { d.sub = sub }

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

// SplitFuncs binds the numbered splitting functions to d, over the execution's own (bounded)
// ones.
func (d *Decider) SplitFuncs(bounded template.FuncMap) template.FuncMap {
	f := template.FuncMap{}
	for name, content := range splitting {
		f[splitPrefix+name] = d.countedSplit(bounded[name], content)
	}
	return f
}

// countedSplit wraps a splitting function. A split of a stand-in would not cut where A's cut
// the tenant's text ("a,b" splits in two, its stand-in not at all), and B's loop over the
// parts would run another number of times than A's, departing from A's decisions: every loop
// over a tenant's comma-separated hosts with a conditional inside would be refused. So in a
// render with stand-ins, a split whose arguments hold some cuts what they stand for, as A
// does, and gives each part's stand-in instead (Substitution.Part): B then loops as A did,
// over inert parts that restore to A's, and the comparison sees what A printed of each part
// as tenant content where B printed its stand-in. B learns from the tenant's text only how
// many parts there are and which are equal, as it does of a tenant's list.
//
// The number of parts is a decision too, so that where B still cuts otherwise (a tenant
// number in the arguments, or a text transformed past lifting), a replay cuts or pads its
// parts to A's number, with copies of its last part (of the content string where it has
// none), and the comparison decides.
func (d *Decider) countedSplit(fn any, content int) any {
	v := reflect.ValueOf(fn)
	t := v.Type()
	in := []reflect.Type{reflect.TypeFor[int]()}
	for i := range t.NumIn() {
		in = append(in, t.In(i))
	}
	out := make([]reflect.Type, t.NumOut())
	for i := range out {
		out[i] = t.Out(i)
	}
	return reflect.MakeFunc(reflect.FuncOf(in, out, false), func(args []reflect.Value) []reflect.Value {
		res := d.liftedSplit(v, args[1:])
		if len(res) == 2 && !res[1].IsNil() {
			return res
		}
		n := int(d.decideInts(int(args[0].Int()), int64(res[0].Len()))[0])
		res[0] = resize(res[0], n, args[1+content])
		return res
	}).Interface()
}

// liftedSplit calls a splitting function, on what the stand-ins in its string arguments stand
// for and with the stand-ins of the parts it gives, where there are some (see countedSplit).
func (d *Decider) liftedSplit(fn reflect.Value, args []reflect.Value) []reflect.Value {
	if d.sub == nil {
		return fn.Call(args)
	}
	var lifted []reflect.Value
	for i, a := range args {
		if a.Kind() != reflect.String {
			continue
		}
		if l, ok := d.sub.Lift(a.String()); ok {
			if lifted == nil {
				lifted = slices.Clone(args)
			}
			lifted[i] = reflect.ValueOf(l)
		}
	}
	if lifted == nil {
		return fn.Call(args)
	}
	d.lifted = true
	res := fn.Call(lifted)
	if len(res) == 2 && !res[1].IsNil() {
		return fn.Call(args) // B's own error, or none
	}
	standIns, ok := d.partStandIns(res[0])
	if !ok {
		return fn.Call(args)
	}
	res[0] = standIns
	return res
}

// partStandIns replaces every part of a split's result by its stand-in.
func (d *Decider) partStandIns(parts reflect.Value) (reflect.Value, bool) {
	if parts.Kind() == reflect.Slice {
		out := reflect.MakeSlice(parts.Type(), parts.Len(), parts.Len())
		for i := range parts.Len() {
			p, ok := d.sub.Part(parts.Index(i).String())
			if !ok {
				return parts, false
			}
			out.Index(i).SetString(p)
		}
		return out, true
	}
	m := parts.Interface().(map[string]string)
	out := make(map[string]string, len(m))
	for k, v := range m {
		p, ok := d.sub.Part(v)
		if !ok {
			return parts, false
		}
		out[k] = p
	}
	return reflect.ValueOf(out), true
}

// resize cuts parts (a list of strings, or a map of "_0", "_1"… to strings) to n, or pads it
// to n with copies of its last part, or of whole where it has none.
func resize(parts reflect.Value, n int, whole reflect.Value) reflect.Value {
	have := parts.Len()
	if n == have || n < 0 {
		return parts
	}
	if parts.Kind() == reflect.Slice {
		if n < have {
			return parts.Slice(0, n)
		}
		pad := whole
		if have > 0 {
			pad = parts.Index(have - 1)
		}
		out := reflect.MakeSlice(parts.Type(), n, n)
		reflect.Copy(out, parts)
		for i := have; i < n; i++ {
			out.Index(i).Set(pad)
		}
		return out
	}
	m := parts.Interface().(map[string]string)
	out := make(map[string]string, n)
	pad := whole.String()
	for i := range n {
		k := "_" + strconv.Itoa(i)
		if p, ok := m[k]; ok {
			out[k], pad = p, p
		} else {
			out[k] = pad
		}
	}
	return reflect.ValueOf(out)
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
