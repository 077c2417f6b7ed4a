package boundary

import (
	"cmp"
	"errors"
	"fmt"
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
	templateAt    = "gantryTemplate"
	tplAt         = "gantryTpl"
	iterAt        = "gantryIteration"
	rangeAt       = "gantryRange"
	setAt         = "gantrySet"
	unsetAt       = "gantryUnset"
	boolAt        = "gantryBool"
	truthAt       = "gantryTruth"
)

// comparisons are the functions whose bool answer compares a value with another (or tests
// what it is): a tenant string equal to the template's "metrics" is not, as a stand-in, in B.
// Their answer is a decision wherever it is used, not only in an if: `and (ne .Values.a "x")
// (list …)`, `int (eq …)` as a slice's bound (a review's cases, 2026-11-27). Each call is
// followed by gantryBool N in its pipeline.
var comparisons = map[string]bool{
	"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true, "not": true,
	"contains": true, "hasPrefix": true, "hasSuffix": true, "regexMatch": true, "mustRegexMatch": true,
	"deepEqual": true, "semverCompare": true, "isAbs": true, "osIsAbs": true, "empty": true,
	"kindIs": true, "typeIs": true, "typeIsLike": true, "all": true, "any": true,
}

// Rewritten are the functions RewriteDecisions renames, by the name the blueprint wrote: an
// error message says the blueprint's name (see render's plainChecks).
var Rewritten = func() map[string]string {
	m := map[string]string{decideTernary: "ternary", loopUntil: "until", loopUntilStep: "untilStep", includeAt: "include", tplAt: "tpl",
		setAt: "set", unsetAt: "unset"}
	for name := range splitting {
		m[splitPrefix+name] = name
	}
	for name := range comparing {
		m[comparePrefix+name] = name
	}
	return m
}()

// splitting are the functions that cut a string into a list (or, for split and splitn, a map
// of "_0", "_1"…). Their parts are decisions, as a loop count is (see countedSplit): a
// tenant's "a,b" splits in two where its stand-in does not split at all.
var splitting = map[string]bool{
	"splitList": true, "split": true, "splitn": true, "regexSplit": true, "mustRegexSplit": true,
	"regexFindAll": true, "mustRegexFindAll": true,
}

// splitPrefix starts the names RewriteDecisions gives the splitting functions.
const splitPrefix = "gantryCounted_"

// yes is what a decided if gets for true (see Funcs).
var yes = true

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
		templateAt:    func(int) string { return "" },
		iterAt:        func(int) string { return "" },
		rangeAt:       func(_, _ int, v any) any { return v },
		setAt:         func(_ int, d map[string]any, _ string, _ any) map[string]any { return d },
		unsetAt:       func(_ int, d map[string]any, _ string) map[string]any { return d },
		tplAt:         func(_ int, _ string, _ any) (string, error) { return "", errors.New("tpl outside a render") },
		boolAt:        func(_ int, v any) any { return v },
		truthAt:       func(_ int, v any) any { return v },
	}
	for name := range splitting {
		f[splitPrefix+name] = func(int, ...any) any { return nil }
	}
	for name := range comparing {
		f[comparePrefix+name] = func(int, ...any) any { return nil }
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
	// siteAction is an action that notes a decision, N, and prints nothing.
	var siteAction func(fn string, pos parse.Pos, line int) *parse.ActionNode
	wrap := func(b *parse.BranchNode, fn string) {
		p := b.Pipe
		if p == nil {
			return
		}
		// `if $x = PIPE` (an assignment) decides as `if $x := PIPE` does, keeping $x's value
		// (a review's case: left to B, it took the other branch).
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
			nodes := make([]parse.Node, 0, len(n.Nodes))
			for _, c := range n.Nodes {
				if tn, ok := c.(*parse.TemplateNode); ok {
					// `template` is an include written as an action: its call site is a
					// decision too, noted by an action just before it that prints nothing.
					nodes = append(nodes, siteAction(templateAt, tn.Pos, tn.Line))
				}
				nodes = append(nodes, c)
				walk(c)
			}
			n.Nodes = nodes
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
			// Each iteration is a decision too: a call site that and/or evaluates in some
			// iterations in A and in others in B would otherwise balance its count within one
			// loop (a review's case, 2026-11-27).
			if n.List != nil {
				n.List.Nodes = append([]parse.Node{siteAction(iterAt, n.Pos, n.Line)}, n.List.Nodes...)
			}
			// A range over an integer (`range $i := int .Values.n`) counts as until does:
			// `range PIPE` becomes `range PIPE | gantryRange N`, which records an integer and
			// passes anything else on as it is.
			if p := n.Pipe; p != nil && len(p.Cmds) > 0 {
				p.Cmds = append(p.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: p.Pos, Args: []parse.Node{
					parse.NewIdentifier(rangeAt).SetTree(tree).SetPos(p.Pos), number(p.Pos),
					&parse.NumberNode{NodeType: parse.NodeNumber, Pos: p.Pos, IsInt: true, Int64: int64(len(p.Decl)), Text: strconv.Itoa(len(p.Decl))},
				}})
			}
		}
	}
	siteAction = func(fn string, pos parse.Pos, line int) *parse.ActionNode {
		return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Line: line, Pipe: &parse.PipeNode{
			NodeType: parse.NodePipe, Pos: pos, Line: line, Cmds: []*parse.CommandNode{{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{
				parse.NewIdentifier(fn).SetTree(tree).SetPos(pos), number(pos),
			}}},
		}}
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
		if p, ok := n.(*parse.PipeNode); ok {
			answered(p, tree, number)
			return
		}
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

// answered puts gantryBool N after every call of a comparison in p, but where an if, with or
// ternary takes the answer next (a decision already); and makes every operand of and and or
// that can stop them (all but the last) a decision, gantryTruth N: B stops where A stopped,
// at an operand of A's truth (a review's case: an operand only B evaluated merged a key).
func answered(p *parse.PipeNode, tree *parse.Tree, number func(parse.Pos) parse.Node) {
	var cmds []*parse.CommandNode
	for i, c := range p.Cmds {
		cmds = append(cmds, c)
		fn, ok := c.Args[0].(*parse.IdentifierNode)
		if !ok {
			continue
		}
		if fn.Ident == "and" || fn.Ident == "or" {
			last := len(c.Args) - 1 // the operand that cannot stop them
			if i > 0 {
				last = len(c.Args) // a piped value comes last
			}
			for j := 1; j < last; j++ {
				if sameTruth(c.Args[j]) {
					continue
				}
				pos := c.Args[j].Position()
				c.Args[j] = &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Cmds: []*parse.CommandNode{{
					NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{
						parse.NewIdentifier(truthAt).SetTree(tree).SetPos(pos), number(pos), c.Args[j],
					}}}}
			}
			continue
		}
		if !comparisons[fn.Ident] {
			continue
		}
		if i+1 < len(p.Cmds) {
			if next, ok := p.Cmds[i+1].Args[0].(*parse.IdentifierNode); ok && (next.Ident == decideIf || next.Ident == decideWith || next.Ident == "ternary") {
				continue
			}
		}
		cmds = append(cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: c.Pos, Args: []parse.Node{
			parse.NewIdentifier(boolAt).SetTree(tree).SetPos(c.Pos), number(c.Pos),
		}})
	}
	if len(cmds) != len(p.Cmds) {
		p.Cmds = cmds
	}
}

// sameTruth reports whether an operand of and/or has A's truth in B without gantryTruth: a
// constant, or a comparison (which gets gantryBool).
func sameTruth(n parse.Node) bool {
	switch n := n.(type) {
	case *parse.BoolNode, *parse.NumberNode, *parse.StringNode, *parse.NilNode:
		return true
	case *parse.PipeNode:
		if len(n.Decl) > 0 || len(n.Cmds) == 0 {
			return false
		}
		fn, ok := n.Cmds[len(n.Cmds)-1].Args[0].(*parse.IdentifierNode)
		return ok && comparisons[fn.Ident]
	}
	return false
}

// unwrapTruth puts back `X` where a message quotes `(gantryTruth N X)`.
func unwrapTruth(msg string) string {
	for {
		loc := truthCall.FindStringIndex(msg)
		if loc == nil {
			return msg
		}
		depth, end := 1, -1
		for i := loc[1]; i < len(msg) && end < 0; i++ {
			switch msg[i] {
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					end = i
				}
			}
		}
		if end < 0 {
			return msg
		}
		msg = msg[:loc[0]] + msg[loc[1]:end] + msg[end+1:]
	}
}

// truthCall is the start of a gantryTruth call as a message quotes it.
var truthCall = regexp.MustCompile(`\(` + truthAt + ` -?\d+ `)

var (
	// renamedCall is a numbered call as a message prints it (`gantryInclude 7 "h" .`), and
	// the name alone after "error calling".
	renamedCall = regexp.MustCompile(`\b(` + strings.Join(longestFirst(slices.Collect(maps.Keys(Rewritten))), "|") + `)(?: -?\d+\b)?`)
	// argCount is text/template's message for a call with too few or too many arguments.
	argCount = regexp.MustCompile(`wrong number of args for (\w+): want (at least )?(\d+) got (\d+)`)
	// decisionSuffix is what RewriteDecisions appends to an if, with or range pipeline.
	decisionSuffix = regexp.MustCompile(` \| (?:` + decideIf + `|` + decideWith + `|` + boolAt + `) -?\d+| \| ` + rangeAt + ` -?\d+ \d+`)
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
	msg = unwrapTruth(msg)
	// A numbered call has one argument more than the blueprint wrote.
	msg = argCount.ReplaceAllStringFunc(msg, func(m string) string {
		sub := argCount.FindStringSubmatch(m)
		if _, ok := Rewritten[sub[1]]; !ok {
			return m
		}
		want, _ := strconv.Atoi(sub[3])
		got, _ := strconv.Atoi(sub[4])
		return fmt.Sprintf("wrong number of args for %s: want %s%d got %d", sub[1], sub[2], want-1, got-1)
	})
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

// Decisions is what one template's render decided, in the order it decided: for each
// decision the number of the conditional, call site or loop that made it, how many numbers it
// decided, and those numbers (1 or 0 for a branch, 1 for a call, a loop's arguments, a
// split's parts). A replay takes them in that order and no other: two departures in opposite
// directions (an include A made that B did not, then one B made that A did not) balance each
// other's counts, not their order.
type Decisions []int64

// Decider records a render's decisions, or replays recorded ones.
type Decider struct {
	started, replaying bool
	// replay is A's record, and at where the replay is in it.
	replay Decisions
	at     int
	// log is what a recording decided so far: the template's Decisions.
	log Decisions
	// used is what a replay decided so far, A's or, where it departed, its own: a span of it
	// is what an include's body decided (Mark, Since), which a remembered output is kept
	// with (Apply). A recording's is its log.
	used []int64
	// departed is set when a replay asked for a decision A did not record, or could not
	// take A's.
	departed bool
	// sub holds the check's stand-ins, in A and in the renders with them (standIns: B's,
	// C's): A notes the parts its splits cut, which the others stand in for (countedSplit).
	sub      *Substitution
	standIns bool
}

// Mark is where the render's decisions are now: Since(Mark()) after a span of the render is
// what it decided.
func (d *Decider) Mark() int {
	if d.replaying {
		return len(d.used)
	}
	return len(d.log)
}

// Since is what was decided since mark, in order.
func (d *Decider) Since(mark int) []int64 {
	if d.replaying {
		return slices.Clone(d.used[mark:])
	}
	return slices.Clone(d.log[mark:])
}

// Apply takes the decisions span as if the render made them again, for an include whose
// remembered output is used instead of running it: recording, it records them; replaying, it
// takes them from A's record only if A's are span's, every one (B would otherwise decide
// otherwise in the body), and reports whether it did. On false nothing was taken, and the
// caller runs the body. A render that uses remembered outputs so records and replays exactly
// what it would running every body, so that a remembered output cannot put B out of step
// with A, whichever of them remembered it.
func (d *Decider) Apply(span []int64) bool {
	if !d.started {
		return true // no check: nothing is recorded
	}
	if !d.replaying {
		d.log = append(d.log, span...)
		return true
	}
	if d.departed || d.at+len(span) > len(d.replay) || !slices.Equal(d.replay[d.at:d.at+len(span)], span) {
		return false
	}
	d.at += len(span)
	d.used = append(d.used, span...)
	return true
}

// UseCheck tells d the check's stand-ins: for a render with them (B's, C's) when standIns,
// for A otherwise. A render without a check has none.
func (d *Decider) UseCheck(sub *Substitution, standIns bool) { d.sub, d.standIns = sub, standIns }

// Departed reports whether the replay left A's record: a decision A did not make, one B could
// not take as A did, or one A made that B never reached.
func (d *Decider) Departed() bool {
	return d.replaying && (d.departed || d.at < len(d.replay))
}

// Strayed reports whether the replay has left A's record so far (Departed, before the end).
func (d *Decider) Strayed() bool { return d.replaying && d.departed }

// Start begins a template's render: recording when replay is nil, replaying it otherwise.
func (d *Decider) Start(replay Decisions) {
	d.started, d.replaying, d.replay, d.at, d.departed = true, replay != nil, replay, 0, false
	d.log, d.used = nil, d.used[:0] // the log is handed out (Log): a new one for each template
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

// decideInts returns the numbers decided at id: the recorded ones when replaying and A's next
// decision is id's, of as many numbers, else vs.
func (d *Decider) decideInts(id int, vs ...int64) []int64 {
	switch {
	case !d.started:
		return vs
	case !d.replaying:
		d.log = append(d.log, int64(id), int64(len(vs)))
		d.log = append(d.log, vs...)
		return vs
	}
	got := vs
	if at := d.at; !d.departed && at+2+len(vs) <= len(d.replay) && d.replay[at] == int64(id) && d.replay[at+1] == int64(len(vs)) {
		d.at = at + 2 + len(vs)
		got = d.replay[at+2 : d.at]
	} else {
		d.departed = true
	}
	d.used = append(d.used, int64(id), int64(len(got)))
	d.used = append(d.used, got...)
	return got
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
	for name := range splitting {
		f[splitPrefix+name] = d.countedSplit(bounded[name])
	}
	return f
}

// countedSplit wraps a splitting function. B's split of a stand-in does not cut where A's cut
// the tenant's text ("a,b" splits in two, its stand-in not at all): B's loop over the parts
// would run another number of times than A's and depart from A's decisions (every loop over a
// tenant's comma-separated hosts with a conditional inside would be refused), and a key per
// part would be one key in B. So the parts are decisions: A records how many it cut and which
// they are, by their number in the check's table of parts (Substitution.PartID), and B, where
// the split's arguments hold stand-ins, takes a stand-in for each of A's parts
// (PartStandIn). B then loops as A did, over inert parts that restore to A's, and the
// comparison sees what A printed of each part as tenant content where B printed its stand-in.
// B learns from the tenant's text how many parts there are and which are equal, as it does of
// a tenant's list, and only through A's record: B's output stays a function of its input and
// A's decisions, which the check's memory keys it by.
//
// Where B's arguments hold no stand-in and B cuts as many parts as A (platform text, or
// tenant text transformed past its stand-ins, `upper`, that splits alike), B keeps its own
// parts, and the comparison decides. Where B cuts another number, the text is not A's: B
// takes stand-ins for A's parts as well.
func (d *Decider) countedSplit(fn any) any {
	v := reflect.ValueOf(fn)
	return reflect.MakeFunc(numbered(v.Type(), false), func(args []reflect.Value) []reflect.Value {
		res := v.Call(args[1:])
		if (len(res) == 2 && !res[1].IsNil()) || !d.started || d.sub == nil {
			return res // failed, or a render without a check
		}
		id := int(args[0].Int())
		parts := partsOf(res[0])
		n := int(d.decideInts(id, int64(len(parts)))[0])
		ids := make([]int64, n)
		if !d.standIns {
			for i, p := range parts {
				ids[i] = d.sub.PartID(p)
			}
		}
		ids = d.decideInts(id, ids...)
		if !d.standIns {
			return res
		}
		if len(parts) == len(ids) && !d.holdsStandIn(args[1:]) {
			return res // as many parts as A's, from text with no stand-in: B's own
		}
		standIns := make([]string, len(ids))
		for i, pid := range ids {
			p, ok := d.sub.PartStandIn(pid)
			if !ok {
				d.departed = true // A's table was full: B cannot stand in for this part
				return res
			}
			standIns[i] = p
		}
		res[0] = withParts(res[0].Type(), standIns)
		return res
	}).Interface()
}

// holdsStandIn reports whether a string among args holds one of the render's stand-ins for a
// tenant string or a part.
func (d *Decider) holdsStandIn(args []reflect.Value) bool {
	for _, a := range args {
		if a.Kind() == reflect.String && d.sub.HoldsStandIn(a.String()) {
			return true
		}
	}
	return false
}

// partsOf is a split's result in order: a list of strings, or the values of a map of "_0",
// "_1"….
func partsOf(res reflect.Value) []string {
	if res.Kind() == reflect.Slice {
		return res.Interface().([]string)
	}
	m := res.Interface().(map[string]string)
	out := make([]string, len(m))
	for i := range out {
		out[i] = m["_"+strconv.Itoa(i)]
	}
	return out
}

// withParts is parts as a split's result of type t.
func withParts(t reflect.Type, parts []string) reflect.Value {
	if t.Kind() == reflect.Slice {
		return reflect.ValueOf(parts)
	}
	m := make(map[string]string, len(parts))
	for i, p := range parts {
		m["_"+strconv.Itoa(i)] = p
	}
	return reflect.ValueOf(m)
}

// CallFuncs binds the numbered include and tpl to d, over the execution's own, and the notes
// of template call sites and loop iterations: each is a decision, recorded and replayed like
// the others.
func (d *Decider) CallFuncs(include, tpl func(string, any) (string, error)) template.FuncMap {
	note := func(id int) string {
		d.decideInts(id, 1)
		return ""
	}
	return template.FuncMap{
		// It panics with include's error, which text/template reports as a returned one:
		// a second result is one more allocation at every call (reflect allocates results).
		includeAt: func(id int, name string, data any) string {
			d.decideInts(id, 1)
			out, err := include(name, data)
			if err != nil {
				panic(err)
			}
			return out
		},
		tplAt: func(id int, text string, data any) (string, error) {
			d.decideInts(id, 1)
			return tpl(text, data)
		},
		templateAt: note,
		iterAt:     note,
		rangeAt: func(id, vars int, v any) any {
			rv := reflect.ValueOf(v)
			switch rv.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				return reflect.ValueOf(d.decideInts(id, rv.Int())[0]).Convert(rv.Type()).Interface()
			case reflect.Map:
				if rv.Type().Key().Kind() == reflect.String && d.started && d.sub != nil && rv.Len() > 0 {
					return d.keyOrder(id, rv, vars)
				}
			}
			return v
		},
	}
}

// KeyFuncs binds the numbered set and unset to d, over the execution's own: whether the key
// was there is a decision. A tenant string equal to a key the map already holds (the
// template's "metrics") is one key in A and, as a stand-in, a key of its own in B; a value the
// tenant injected elsewhere could even the count (a review's case). B, finding the key where A
// did not or the other way round, cannot follow A, and departs.
func (d *Decider) KeyFuncs(mutating template.FuncMap) template.FuncMap {
	set := mutating["set"].(func(map[string]any, string, any) map[string]any)
	unset := mutating["unset"].(func(map[string]any, string) map[string]any)
	// had decides whether m has k, and returns the key to set: in B, where A had the key, the
	// key of B's map that is A's (Substitution.foundKey): a tenant's "metrics" set into the
	// template's flags is one key in both.
	had := func(id int, m map[string]any, k string) string {
		var n int64
		if _, ok := m[k]; ok {
			n = keyHash(k)
		}
		want := d.decideInts(id, n)[0]
		switch {
		case want == n, want != 0 && n != 0: // B's own key where A had one (see foundKey)
		case want != 0 && d.standIns && d.sub != nil:
			if key, ok := d.sub.foundKey(m, k, want); ok {
				return key
			}
			d.departed = true
		default:
			d.departed = true
		}
		return k
	}
	return template.FuncMap{
		setAt: func(id int, m map[string]any, k string, v any) map[string]any {
			return set(m, had(id, m, k), v)
		},
		unsetAt: func(id int, m map[string]any, k string) map[string]any {
			return unset(m, had(id, m, k))
		},
	}
}

// Funcs binds the decision functions to d.
func (d *Decider) Funcs() template.FuncMap {
	return template.FuncMap{
		// A pointer, not a bool: reflect allocates every result of a call that is not
		// pointer-shaped, and an if takes a nil pointer as false and any other as true.
		decideIf: func(id int, v any) *bool {
			if d.decide(id, v) {
				return &yes
			}
			return nil
		},
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
func (d *Decider) Log() Decisions {
	if d.log == nil {
		return Decisions{} // not nil: a replay of it is a replay
	}
	return d.log
}
