package render_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/Masterminds/sprig/v3"
	yamlv3 "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// The exact identity property. Whenever RenderGateway returns no error:
//
//	(a) every key and scalar of the output that does not depend on tenant content is identical
//	    (same path, same type, same value) to what the template writes with inert input, and
//	    every map and list the template writes has the same size;
//	(b) every node that depends on tenant content is a scalar (a map or list only where the
//	    tenant supplied one), and a tenant string printed into a scalar stays a string: YAML 1.1
//	    must not turn the tenant's `yes`, `~`, `9_090`, `0x1F` into a bool, null or number;
//	    likewise a tenant string printed as a key stays that string (`on` must not become
//	    "true", `~` must not become "null");
//	(c) no tenant key collides with a key the template writes;
//	(d) the output is deterministic.
//
// The oracle uses no Gantry code. It renders the template itself (text/template and sprig, the
// toYaml of Helm: sigs.k8s.io/yaml) with inert words in place of the tenant's strings, parses
// that with another YAML implementation (go.yaml.in/yaml/v3 nodes), and so learns which nodes
// are the template's (no inert word in them) and which are holes the tenant fills. It does this
// with two different sets of inert words and decides nothing when the two disagree (a function
// that made the inert words' content matter). Gantry's output for the hostile values is then
// checked against that tree. Where yaml/v3 reads the same hostile text with the template's
// structure intact and every hole a string, that reading (YAML 1.2, no `yes`/`on` booleans) is
// also the exact output expected of Gantry, which catches tenant keys that YAML 1.1 re-typed.
//
//	go test -run TestIdentityProperty ./render/
//	go test -run='^$' -fuzz=FuzzIdentityProperty -fuzztime=60s ./render/

// ipVar is one tenant value a generated template reads: .Values.<name>.
type ipVar struct {
	name  string
	isMap bool // a map of strings, read with range or toYaml
	b64   bool // read through b64dec: its inert stand-in is the base64 of an inert word
	// A tenant number (int64, or float64 with float) or bool: its inert stand-ins are a
	// number of the same type (small with count: a width or a count) or false and true.
	num, float, count, isBool bool
}

// ipCase is a template, the values it reads and the tenant's (hostile) values.
type ipCase struct {
	name     string
	tmpl     string
	vars     []ipVar
	values   map[string]any
	mustFail bool // a known attack: the render must fail
	// Cases with tenant numbers and bools (ipGenerateScalar): otmpl is the template the oracle
	// renders, where each `if`, `with`, `ternary` condition and `until` count on a tenant value
	// reads .D.<key> instead, which the oracle decides on the tenant's values (decisions).
	scalar    bool
	otmpl     string
	decisions []ipDecision
}

// ipDecision is a condition or a loop count the template decides on tenant values: the branch
// taken and the items made are the template's, as the tenant's values decide them.
type ipDecision struct {
	key   string // .D.<key> in the oracle's template
	expr  string // the template's pipeline
	count bool   // an `until` count (an int), else a condition (a bool)
}

// ---------------------------------------------------------------------------------------------
// The generator.

// ipTemplateLines are lines the template owns: YAML 1.1 and YAML 1.2 read each alike, and none
// holds the word "inert".
var ipTemplateLines = []string{
	"automountServiceAccountToken: false", "owner: platform", `"true": platform`, `"9090": platform`,
	"enabled: true", "port: 8080", "mode: strict", `tier: "gold"`, "nothing: null", "team: core-infra",
	"ratio: 0.5", `quoted: 'yes'`, "path: /var/run", "empty: []", "obj: {}", "list: [a, b]",
	"nested:\n  a: b\n  c: 2", "items:\n- one\n- two",
}

// ipContexts are where a tenant string lands; K is the hole's own key, X the expression.
var ipContexts = []string{
	"K: X", `K: "X"`, "K: 'X'", "K: pre X post", "K: pre-X-post", "X: platform", `"X": platform`,
	"K: [X, fixed]", "K: {a: X, b: fixed}", "K: |\n  X", "K: >-\n  X", "K:\n- X\n- fixed",
	"K:\n- name: X\n  port: 80",
}

// ipFuncs are what a tenant string passes through; N is replaced by the nested indentation.
var ipFuncs = []string{
	"", "quote", "squote", "lower", "upper", `replace "~" "\n"`, "trunc 20", "toYaml", "toJson",
	"b64dec", "nindent N", "indent 2",
}

// ipMapContexts are how a tenant map is read; M is the value, I the current indentation, N the
// nested one, K the hole's key.
var ipMapContexts = []string{
	"{{- range $k, $v := M }}\nI{{ $k }}: {{ $v }}\n{{- end }}",
	"{{- range $k, $v := M }}\nI{{ $k | quote }}: {{ $v | quote }}\n{{- end }}",
	"{{- range $k, $v := M }}\nI{{ $k }}: {{ $v | squote }}\n{{- end }}",
	"{{- range $k, $v := M }}\nI{{ $k | quote }}: {{ $v | upper }}\n{{- end }}",
	"IK:\n{{- range $k, $v := M }}\nI- {{ $k }}={{ $v }}\n{{- end }}",
	"IK:{{ toYaml M | nindent N }}",
	"IK: {{ toJson M }}",
}

// ipHostile are whole tenant strings; ipFragments are pieces that are strung together.
var (
	ipHostile = []string{
		"'x", `"x`, `x"`, "x'", `x\`, `\`, `a\"b`, `\"`, "'", `"`, "''",
		"x\n  injected: true", "x\n      hostNetwork: true", "x\n    - evil", "\n", "\n  ",
		"#c", "a #c", "a#b", " #", "[a, b]", "{a: b}", "a, b", "a,b", "a: b", "a:b", "- a", "-", "---", "...",
		"x\n---\nkind: Secret", "yes", "on", "off", "no", "y", "Y", "NO", "On", "~", "null", "Null", "true",
		"False", "9_090", "0x1F", "0o17", "017", "1:20", "1e3", ".inf", "-.inf", ".nan", "3", "-1",
		"2001-12-14", "&a x", "*a", "!!int 3", "!x", "<<", "<<: *a", "|", ">", "%x", "@x", "`x", "? x",
		"a\tb", "\t", " ", " x", "x ", "web", "blue", "app-1", "platform", "owner",
		"'\n      hostNetwork: true\n      x: '",
	}
	ipFragments = []string{
		"'", `"`, `\`, "\n", "\n  ", "\n    ", "\n      ", "\n        ", "x", "evil: true",
		"hostNetwork: true", "owner: tenant", "automountServiceAccountToken: true", "- name: proxy", "#",
		" #c", "[", "]", "{", "}", ",", ": ", "- ", "---", "yes", "on", "~", "null", "9_090", "0x1F",
		"&a ", "*a", "<<: ", "\t", " ",
	}
)

// ipHostileString is a tenant string for a hole (key) in a block mapping indented by indent: a whole
// hostile string, fragments strung together, or one half of an attack that opens a quoted
// scalar in one value and closes it in another, with lines indented to land in the template.
func ipHostileString(rng *rand.Rand, indent int, key string) string {
	switch rng.Intn(3) {
	case 0:
		return ipHostile[rng.Intn(len(ipHostile))]
	case 1:
		var b strings.Builder
		for n := 1 + rng.Intn(4); n > 0; n-- {
			b.WriteString(ipFragments[rng.Intn(len(ipFragments))])
		}
		return b.String()
	}
	if rng.Intn(2) == 0 {
		return []string{"'x", "x'", `"x`, `x"`, `x\`, "x''", "'", `"`}[rng.Intn(8)]
	}
	pad := "\n" + strings.Repeat(" ", max(0, indent+[]int{0, 0, -2, 2}[rng.Intn(4)]))
	closer := []string{"'", `"`, "x'", `x"`, "", "'x"}[rng.Intn(6)]
	line := []string{"hostNetwork: true", "owner: tenant", "automountServiceAccountToken: true", "- evil", "k1: evil"}[rng.Intn(5)]
	opener := []string{"'", `"`, "", "'z", `"z`, "z #"}[rng.Intn(6)]
	if rng.Intn(2) == 0 {
		// Re-create the hole's own key, so that the keys the template wrote are as many as before.
		return closer + pad + line + pad + key + ": " + opener
	}
	return closer + pad + line + pad + "z: " + opener
}

// ipCoordinated gives the values of one case an attack in concert: the first opens a quoted
// scalar (or escapes the template's closing quote), the later ones close it, add a field and
// write the hole's own key again, so that the template's keys seem as many as before.
func ipCoordinated(rng *rand.Rand) func(indent int, key string) string {
	q := []string{"'", `"`}[rng.Intn(2)]
	n := 0
	return func(indent int, key string) string {
		n++
		if n == 1 {
			return []string{q + "x", "x" + q, `x\`, "x" + q + q}[rng.Intn(4)]
		}
		pad := "\n" + strings.Repeat(" ", indent)
		line := []string{"hostNetwork: true", "owner: tenant", "automountServiceAccountToken: true"}[rng.Intn(3)]
		return []string{q, "x" + q, ""}[rng.Intn(3)] + pad + line + pad + key + ": " + []string{q + "z", "z", q, ""}[rng.Intn(4)]
	}
}

// ipBlock is a block mapping of the generated object, at an indentation, and its lines.
type ipBlock struct {
	indent int
	lines  []string
}

func ipIndent(text string, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = pad + l
	}
	return strings.Join(lines, "\n")
}

// ipGenerate builds a template with 2 or 3 tenant values, each in one context through one
// function, and template-owned lines between them; strs gives the tenant's strings in turn.
// With concert, the values are all strings, in one block mapping, in contexts where a quote
// can open or close a scalar, through functions that keep the quotes: ipCoordinated's ground.
func ipGenerate(rng *rand.Rand, strs func(indent int, key string) string, concert bool) ipCase {
	deploy := rng.Intn(2) == 0
	var blocks []*ipBlock
	if deploy {
		blocks = []*ipBlock{{indent: 6}, {indent: 8}} // pod spec, container
	} else {
		blocks = []*ipBlock{{indent: 2}, {indent: 4}} // data, labels
	}
	nv := 2 + rng.Intn(2)
	mapVar := -1
	if rng.Intn(4) == 0 && !concert {
		mapVar = rng.Intn(nv)
	}
	only := blocks[rng.Intn(len(blocks))]
	used := map[*ipBlock][]int{}
	addTemplateLine := func(b *ipBlock) {
		perm := rng.Perm(len(ipTemplateLines))
		for _, i := range perm {
			if !slices.Contains(used[b], i) {
				used[b] = append(used[b], i)
				b.lines = append(b.lines, ipIndent(ipTemplateLines[i], b.indent))
				return
			}
		}
	}
	var c ipCase
	c.values = map[string]any{}
	var desc []string
	for _, b := range blocks {
		if rng.Intn(2) == 0 {
			addTemplateLine(b)
		}
	}
	for i := range nv {
		b := blocks[rng.Intn(len(blocks))]
		if concert {
			b = only
		}
		key := fmt.Sprintf("k%d", i+1)
		v := ipVar{name: fmt.Sprintf("v%d", i+1)}
		ind, nested := b.indent, b.indent+2
		if i == mapVar {
			v.isMap = true
			ctx := ipMapContexts[rng.Intn(len(ipMapContexts))]
			r := strings.NewReplacer("M", ".Values."+v.name, "I", strings.Repeat(" ", ind), "N", fmt.Sprint(nested), "K", key)
			b.lines = append(b.lines, r.Replace(ctx))
			m := map[string]any{}
			for n, tries := 1+rng.Intn(3), 0; len(m) < n && tries < 10; tries++ {
				if k := strs(ind, key); k != "" {
					m[k] = strs(ind, key)
				}
			}
			if len(m) == 0 {
				m["key"] = "value"
			}
			c.values[v.name] = m
			desc = append(desc, fmt.Sprintf("%s: map %q", v.name, ctx))
		} else {
			ctx := ipContexts[rng.Intn(len(ipContexts))]
			fn := ipFuncs[rng.Intn(len(ipFuncs))]
			if concert {
				ctx = []string{"K: X", `K: "X"`, "K: 'X'", "K: pre X post", "K: pre-X-post", "K:\n- X\n- fixed"}[rng.Intn(6)]
				fn = []string{"", "", "squote", "lower", "trunc 20", `replace "~" "\n"`}[rng.Intn(6)]
			}
			var expr string
			switch {
			case fn == "":
				expr = "{{ .Values." + v.name + " }}"
			case fn == "toYaml" || fn == "toJson":
				expr = "{{ " + fn + " .Values." + v.name + " }}"
			default:
				expr = "{{ .Values." + v.name + " | " + strings.ReplaceAll(fn, "N", fmt.Sprint(nested)) + " }}"
			}
			text := ctx
			if fn == "nindent N" && strings.Contains(ctx, "\n  X") {
				text = strings.Replace(ctx, "\n  X", "X", 1) // `K: |{{ v | nindent n }}`
			}
			text = strings.NewReplacer("K", key, "X", expr).Replace(text)
			b.lines = append(b.lines, ipIndent(text, ind))
			s := strs(ind, key)
			if fn == "b64dec" {
				v.b64 = true
				if rng.Intn(5) != 0 {
					s = base64.StdEncoding.EncodeToString([]byte(s))
				}
			}
			c.values[v.name] = s
			desc = append(desc, fmt.Sprintf("%s: %q through %q", v.name, ctx, fn))
		}
		c.vars = append(c.vars, v)
		addTemplateLine(b) // a template line after every hole, for a second value to eat
	}
	for _, b := range blocks {
		if len(b.lines) == 0 {
			addTemplateLine(b)
		}
	}
	var t strings.Builder
	if deploy {
		t.WriteString("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  template:\n    spec:\n")
		t.WriteString(strings.Join(blocks[0].lines, "\n") + "\n")
		t.WriteString("      containers:\n      - name: app\n")
		t.WriteString(strings.Join(blocks[1].lines, "\n") + "\n")
		t.WriteString("        ports:\n        - containerPort: 8080\n")
	} else {
		t.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n    app: web\n")
		t.WriteString(strings.Join(blocks[1].lines, "\n") + "\n")
		t.WriteString("data:\n")
		t.WriteString(strings.Join(blocks[0].lines, "\n") + "\n")
	}
	c.tmpl = t.String()
	c.name = strings.Join(desc, "; ")
	return c
}

// ---------------------------------------------------------------------------------------------
// Known attacks: each must end in a render error.

const ipDeployHead = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"

func ipSeeds() []ipCase {
	deploy := func(sa, image string) string {
		return ipDeployHead + "      serviceAccountName: " + sa + "\n      automountServiceAccountToken: false\n" +
			"      containers:\n      - name: app\n        image: " + image + "\n"
	}
	sa, image := "{{ .Values.sa }}", "{{ .Values.image }}"
	escape := "\n      hostNetwork: true\n      containers:\n      - name: proxy\n        image: "
	vars := []ipVar{{name: "sa"}, {name: "image"}}
	banner := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  banner: {{ .Values.banner }}\n  owner: platform\n  motd: {{ .Values.motd }}\n"
	bannerVars := []ipVar{{name: "banner"}, {name: "motd"}}
	keys := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  \"true\": platform\n  \"9090\": platform\n" +
		"{{- range $k, $v := .Values.m }}\n  {{ $k }}: {{ $v }}\n{{- end }}\n"
	return []ipCase{
		{name: "1 unquoted: a quote opened in one value, closed in the next", tmpl: deploy(sa, image), vars: vars,
			values: map[string]any{"sa": "'x", "image": "'" + escape + "evil"}},
		{name: "2a hand-written double quotes, a value ending in a backslash", tmpl: deploy(`"`+sa+`"`, `"`+image+`"`), vars: vars,
			values: map[string]any{"sa": `x\`, "image": escape + `"evil`}},
		{name: "2b squote", tmpl: deploy("{{ .Values.sa | squote }}", "{{ .Values.image | squote }}"), vars: vars,
			values: map[string]any{"sa": "x'", "image": escape + "'evil"}},
		{name: "2c hand-written single quotes", tmpl: deploy("'"+sa+"'", "'"+image+"'"), vars: vars,
			values: map[string]any{"sa": "x'", "image": escape + "'evil"}},
		{name: "3a banner eats owner", tmpl: banner, vars: bannerVars,
			values: map[string]any{"banner": "'hi", "motd": "x'\n  owner: tenant"}},
		{name: "3b banner yes", tmpl: banner, vars: bannerVars, values: map[string]any{"banner": "yes", "motd": "hello"}},
		{name: "3c banner ~", tmpl: banner, vars: bannerVars, values: map[string]any{"banner": "~", "motd": "hello"}},
		{name: "3d banner 9_090", tmpl: banner, vars: bannerVars, values: map[string]any{"banner": "9_090", "motd": "hello"}},
		{name: "3e banner adds owner", tmpl: banner, vars: bannerVars, values: map[string]any{"banner": "hi\n  owner: tenant", "motd": "hello"}},
		{name: "4 tenant keys read as true and 9090", tmpl: keys, vars: []ipVar{{name: "m", isMap: true}},
			values: map[string]any{"m": map[string]any{"on": "x", "9_090": "y", "~": "z"}}},
	}
}

// ---------------------------------------------------------------------------------------------
// The oracle: text/template, sprig and yaml/v3, no Gantry code.

// ipExecute renders tmpl as Helm would, with sprig's hermetic functions and Helm's toYaml.
func ipExecute(tmpl string, values map[string]any) (string, error) {
	return ipExecuteData(tmpl, map[string]any{"Values": values})
}

// ipExecuteData renders tmpl with data as its dot.
func ipExecuteData(tmpl string, data map[string]any) (string, error) {
	funcs := sprig.HermeticTxtFuncMap()
	funcs["toYaml"] = func(v any) (string, error) {
		b, err := sigsyaml.Marshal(v)
		return strings.TrimSuffix(string(b), "\n"), err
	}
	t, err := template.New("t").Option("missingkey=error").Funcs(funcs).Parse(tmpl)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	err = t.Execute(&buf, data)
	return buf.String(), err
}

// ipParse parses text with yaml/v3 and returns its one non-empty document.
func ipParse(text string) (*yamlv3.Node, error) {
	dec := yamlv3.NewDecoder(strings.NewReader(text))
	var doc *yamlv3.Node
	for {
		var n yamlv3.Node
		if err := dec.Decode(&n); err != nil {
			if err.Error() == "EOF" {
				break
			}
			return nil, err
		}
		if len(n.Content) == 1 && n.Content[0].Kind == yamlv3.ScalarNode && n.Content[0].ShortTag() == "!!null" && n.Content[0].Value == "" {
			continue
		}
		if doc != nil {
			return nil, errors.New("more than one document")
		}
		doc = &n
	}
	if doc == nil || len(doc.Content) != 1 {
		return nil, errors.New("no document")
	}
	return doc.Content[0], nil
}

// ipInertValues returns the inert stand-ins of the case's values: distinct plain lowercase
// words, set telling the two sets apart. Maps keep their number of entries.
func ipInertValues(c ipCase, set byte) map[string]any { return ipInertValuesMixed(c, set, set) }

// ipInertValuesMixed takes the inert strings of set and the inert numbers and bools of
// scalarSet: the bools are false ('p') and true ('q'); numbers are six digits, which print as
// they are as ints and as floats (a float of seven digits prints with an exponent), or, used
// as a width or a count, small ones.
func ipInertValuesMixed(c ipCase, set, scalarSet byte) map[string]any {
	out := map[string]any{}
	for i, v := range c.vars {
		w := fmt.Sprintf("inert%c%c", set, 'a'+i)
		switch {
		case v.isBool:
			out[v.name] = scalarSet == 'q'
			continue
		case v.num:
			base, frac := int64(123457), 0.25
			if scalarSet == 'q' {
				base, frac = 654323, 0.75
			}
			n := base + 1000*int64(i)
			if v.count {
				n = map[byte]int64{'p': 37, 'q': 53}[scalarSet] + 2*int64(i)
			}
			if v.float {
				out[v.name] = float64(n) + frac
			} else {
				out[v.name] = n
			}
			continue
		}
		switch {
		case v.isMap:
			m := map[string]any{}
			for j := range len(c.values[v.name].(map[string]any)) {
				m[fmt.Sprintf("%sk%d", w, j)] = fmt.Sprintf("%sv%d", w, j)
			}
			out[v.name] = m
		case v.b64:
			out[v.name] = base64.StdEncoding.EncodeToString([]byte(w))
		default:
			out[v.name] = w
		}
	}
	return out
}

func ipInert(s string) bool { return strings.Contains(strings.ToLower(s), "inert") }

// ipNode is the oracle's reading of the inert output: the template's nodes with their JSON
// values, and the holes the tenant fills.
type ipNode struct {
	kind    yamlv3.Kind // MappingNode, SequenceNode or ScalarNode
	hole    bool        // a scalar with an inert word in it
	val     any         // a template scalar, JSON-typed
	text    string      // the scalar's text
	keys    []string
	keyHole []bool
	kids    []*ipNode // map values, in keys' order, or list items
	// kinds, for a hole told apart by two inert renders that write different scalars there
	// (a tenant number or bool, printed or computed): the kinds (ipKind) those are.
	kinds []string
}

// ipScalar is a yaml/v3 scalar as a JSON value, as Kubernetes stores it.
func ipScalar(n *yamlv3.Node) (any, bool) {
	switch n.ShortTag() {
	case "!!str":
		return n.Value, true
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		return b, n.Decode(&b) == nil
	case "!!int":
		var i int64
		return i, n.Decode(&i) == nil
	case "!!float":
		var f float64
		if n.Decode(&f) != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<62 {
			return int64(f), true // JSON numbers: whole ones are integers
		}
		return f, true
	}
	return nil, false
}

// ipTree reads the inert output; an error means the oracle cannot decide.
func ipTree(n *yamlv3.Node) (*ipNode, error) {
	if n.Anchor != "" {
		return nil, errors.New("anchor in the template")
	}
	switch n.Kind {
	case yamlv3.ScalarNode:
		if ipInert(n.Value) {
			if n.ShortTag() != "!!str" {
				return nil, fmt.Errorf("inert hole %q read as %s", n.Value, n.ShortTag())
			}
			return &ipNode{kind: n.Kind, hole: true, text: n.Value}, nil
		}
		v, ok := ipScalar(n)
		if !ok {
			return nil, fmt.Errorf("template scalar %q (%s)", n.Value, n.ShortTag())
		}
		return &ipNode{kind: n.Kind, val: v, text: n.Value}, nil
	case yamlv3.SequenceNode:
		o := &ipNode{kind: n.Kind}
		for _, c := range n.Content {
			k, err := ipTree(c)
			if err != nil {
				return nil, err
			}
			o.kids = append(o.kids, k)
		}
		return o, nil
	case yamlv3.MappingNode:
		o := &ipNode{kind: n.Kind}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yamlv3.ScalarNode || k.Anchor != "" {
				return nil, errors.New("complex key")
			}
			hole := ipInert(k.Value)
			if !hole && k.ShortTag() != "!!str" {
				return nil, fmt.Errorf("template key %q is a %s", k.Value, k.ShortTag())
			}
			if !hole && slices.Contains(o.keys, k.Value) {
				return nil, fmt.Errorf("template key %q twice", k.Value)
			}
			v, err := ipTree(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			o.keys = append(o.keys, k.Value)
			o.keyHole = append(o.keyHole, hole)
			o.kids = append(o.kids, v)
		}
		return o, nil
	}
	return nil, fmt.Errorf("node kind %v", n.Kind)
}

// ipSameShape reports whether two inert readings agree on everything but the holes' text.
func ipSameShape(a, b *ipNode) bool {
	if a.kind != b.kind || a.hole != b.hole || len(a.kids) != len(b.kids) || !slices.Equal(a.keyHole, b.keyHole) {
		return false
	}
	if a.kind == yamlv3.ScalarNode && !a.hole && !reflect.DeepEqual(a.val, b.val) {
		return false
	}
	for i := range a.kids {
		if a.kind == yamlv3.MappingNode && !a.keyHole[i] && a.keys[i] != b.keys[i] || !ipSameShape(a.kids[i], b.kids[i]) {
			return false
		}
	}
	return true
}

// ipAddNamespace adds metadata.namespace, which Gantry sets, to the expected object.
func ipAddNamespace(root *ipNode) {
	for i, k := range root.keys {
		if k == "metadata" && !root.keyHole[i] && root.kids[i].kind == yamlv3.MappingNode && !slices.Contains(root.kids[i].keys, "namespace") {
			m := root.kids[i]
			m.keys = append(m.keys, "namespace")
			m.keyHole = append(m.keyHole, false)
			m.kids = append(m.kids, &ipNode{kind: yamlv3.ScalarNode, val: ns, text: ns})
		}
	}
}

// ipNonStringKey marks, in the YAML 1.2 reading, a key that is not the string it is written as.
const ipNonStringKey = "\x00not a string: "

// ipJSON is the YAML 1.2 reading of a node as JSON values; a key that reads as something other
// than a string is kept only when JSON writes it as it is written (3, true), and otherwise
// marked with ipNonStringKey. ok is false where JSON has no value (aliases, NaN, odd tags).
func ipJSON(n *yamlv3.Node) (any, bool) {
	switch n.Kind {
	case yamlv3.ScalarNode:
		if n.Anchor != "" {
			return nil, false
		}
		return ipScalar(n)
	case yamlv3.SequenceNode:
		out := []any{}
		for _, c := range n.Content {
			v, ok := ipJSON(c)
			if !ok {
				return nil, false
			}
			out = append(out, v)
		}
		return out, true
	case yamlv3.MappingNode:
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yamlv3.ScalarNode || k.ShortTag() == "!!merge" {
				return nil, false
			}
			key := k.Value
			if k.ShortTag() != "!!str" {
				if v, ok := ipScalar(k); !ok || (v == nil && key != "null") || v != nil && fmt.Sprint(v) != key {
					key = ipNonStringKey + k.ShortTag() + " " + strings.TrimSpace("&"+k.Anchor+" "+key)
					key = strings.Replace(key, "& ", "", 1)
				}
			}
			if _, dup := out[key]; dup {
				return nil, false
			}
			v, ok := ipJSON(n.Content[i+1])
			if !ok {
				return nil, false
			}
			out[key] = v
		}
		return out, true
	}
	return nil, false
}

// ipCompare checks got (Gantry's object, or another reading) against the oracle's tree.
type ipCompare struct{ diffs []string }

func (c *ipCompare) add(path, format string, args ...any) {
	c.diffs = append(c.diffs, path+": "+fmt.Sprintf(format, args...))
}

func ipShow(v any) string {
	switch v.(type) {
	case map[string]any:
		return fmt.Sprintf("a map %v", v)
	case []any:
		return fmt.Sprintf("a list %v", v)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T %#v", v, v)
}

func (c *ipCompare) node(path string, o *ipNode, got any) {
	switch o.kind {
	case yamlv3.ScalarNode:
		if o.hole && o.kinds != nil {
			if k := ipKind(got); !slices.Contains(o.kinds, k) {
				c.add(path, "the hole of a tenant number or bool (inert %s) is %s, want a %s", o.text, ipShow(got), strings.Join(o.kinds, " or a "))
			}
			return
		}
		if o.hole {
			if _, ok := got.(string); !ok {
				c.add(path, "the tenant's hole (inert text %q) is %s, want a string", o.text, ipShow(got))
			}
			return
		}
		if !reflect.DeepEqual(o.val, got) {
			c.add(path, "the template writes %s, got %s", ipShow(o.val), ipShow(got))
		}
	case yamlv3.SequenceNode:
		l, ok := got.([]any)
		if !ok {
			c.add(path, "the template writes a list, got %s", ipShow(got))
			return
		}
		if len(l) != len(o.kids) {
			c.add(path, "the list has %d items, the template writes %d", len(l), len(o.kids))
		}
		for i := range min(len(l), len(o.kids)) {
			c.node(fmt.Sprintf("%s[%d]", path, i), o.kids[i], l[i])
		}
	case yamlv3.MappingNode:
		m, ok := got.(map[string]any)
		if !ok {
			c.add(path, "the template writes a map, got %s", ipShow(got))
			return
		}
		if len(m) != len(o.keys) {
			c.add(path, "the map has %d keys %q, the template writes %d (%q)", len(m), ipSortedKeys(m), len(o.keys), o.keys)
		}
		var tenant []int
		own := map[string]bool{}
		for i, k := range o.keys {
			if o.keyHole[i] {
				tenant = append(tenant, i)
				continue
			}
			own[k] = true
			v, ok := m[k]
			if !ok {
				c.add(path, "the template's key %q is missing", k)
				continue
			}
			c.node(path+"."+k, o.kids[i], v)
		}
		var extra []string
		for _, k := range ipSortedKeys(m) {
			if !own[k] {
				extra = append(extra, k)
			}
		}
		if len(extra) != len(tenant) {
			c.add(path, "keys besides the template's: %q, want %d tenant keys", extra, len(tenant))
			return
		}
		if len(tenant) == 1 {
			c.node(path+"."+extra[0], o.kids[tenant[0]], m[extra[0]])
			return
		}
		if !ipMatch(path, o, tenant, m, extra, make([]bool, len(extra))) {
			c.add(path, "the entries under tenant keys %q do not match what the template writes under them:", extra)
			for i, k := range extra { // in order, to show how
				c.node(path+"."+k, o.kids[tenant[i]], m[k])
			}
		}
	}
}

// ipMatch pairs the tenant entries of o with the keys extra of m, each value matching.
func ipMatch(path string, o *ipNode, tenant []int, m map[string]any, extra []string, taken []bool) bool {
	if len(tenant) == 0 {
		return true
	}
	for j, k := range extra {
		if taken[j] {
			continue
		}
		var sub ipCompare
		sub.node(path+"."+k, o.kids[tenant[0]], m[k])
		if len(sub.diffs) == 0 {
			taken[j] = true
			if ipMatch(path, o, tenant[1:], m, extra, taken) {
				return true
			}
			taken[j] = false
		}
	}
	return false
}

func ipSortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ipDeepDiff lists where want and got differ.
func ipDeepDiff(path string, want, got any, out *[]string) {
	if len(*out) > 8 {
		return
	}
	wm, wok := want.(map[string]any)
	gm, gok := got.(map[string]any)
	if wok && gok {
		for _, k := range ipSortedKeys(wm) {
			if g, ok := gm[k]; ok {
				ipDeepDiff(path+"."+k, wm[k], g, out)
			} else {
				if t, ok := strings.CutPrefix(k, ipNonStringKey); ok {
					*out = append(*out, fmt.Sprintf("%s: the tenant's key (%s) is not a string: YAML 1.2 reads it as %s", path, ipShow(wm[k]), t))
				} else {
					*out = append(*out, fmt.Sprintf("%s: key %q (%s) missing", path, k, ipShow(wm[k])))
				}
			}
		}
		for _, k := range ipSortedKeys(gm) {
			if _, ok := wm[k]; !ok {
				*out = append(*out, fmt.Sprintf("%s: key %q (%s) not expected", path, k, ipShow(gm[k])))
			}
		}
		return
	}
	wl, wok := want.([]any)
	gl, gok := got.([]any)
	if wok && gok && len(wl) == len(gl) {
		for i := range wl {
			ipDeepDiff(fmt.Sprintf("%s[%d]", path, i), wl[i], gl[i], out)
		}
		return
	}
	if !ipEqual(want, got) {
		*out = append(*out, fmt.Sprintf("%s: want %s, got %s", path, ipShow(want), ipShow(got)))
	}
}

// ---------------------------------------------------------------------------------------------
// The check.

// ipVerdict is what checking one case found.
type ipVerdict struct {
	undecided string   // why the oracle decides nothing, if it does not
	note      string   // something odd that is not a violation
	rendered  bool     // Gantry's render succeeded
	diffs     []string // violations of the property
	gantry    any      // Gantry's object
	inertText string
}

func ipCheck(c ipCase) ipVerdict {
	var v ipVerdict
	b, err := render.Compile("bp", gatewaySpec(map[string]string{"t": c.tmpl}))
	if err != nil {
		v.undecided = "compile: " + err.Error()
		return v
	}
	renderWith := func(values map[string]any) (*render.Output, error) {
		in := input(values)
		in.Tainted = boundary.TaintedStrings(values, tenant)
		return b.RenderGateway(in)
	}
	out, err := renderWith(c.values)
	out2, err2 := renderWith(c.values)
	// (d) deterministic: the same objects, or an error both times. (An error whose text
	// differs is noted, not counted: the property is about objects.)
	if (err == nil) != (err2 == nil) || err == nil && !reflect.DeepEqual(out.Objects, out2.Objects) {
		v.diffs = append(v.diffs, fmt.Sprintf("(d) two renders differ: %v / %v; %v / %v", err, err2, ipObjects(out), ipObjects(out2)))
	} else if err != nil && err.Error() != err2.Error() {
		v.note = fmt.Sprintf("the error's text differs between two renders:\n  %v\n  %v", err, err2)
	}
	if c.mustFail && err == nil {
		v.diffs = append(v.diffs, "a known attack rendered without an error")
	}
	v.rendered = err == nil
	if err == nil {
		if len(out.Objects) == 1 {
			v.gantry = out.Objects[0].Object
		} else {
			v.gantry = ipObjects(out)
		}
	}

	// The oracle's inert readings. With tenant numbers and bools, the template's decisions on
	// them are the tenant's (ipDecisions), and the oracle renders otmpl, which reads them.
	dec, derr := ipDecisions(c)
	if derr != nil {
		v.undecided = "decisions: " + derr.Error()
		return v
	}
	otmpl := c.tmpl
	if c.otmpl != "" {
		otmpl = c.otmpl
	}
	read := func(set, scalarSet byte) (*ipNode, string, *yamlv3.Node, string) {
		text, err := ipExecuteData(otmpl, map[string]any{"Values": ipInertValuesMixed(c, set, scalarSet), "D": dec})
		if err != nil {
			return nil, text, nil, "inert render: " + err.Error()
		}
		n, err := ipParse(text)
		if err != nil {
			return nil, text, nil, "inert output: " + err.Error()
		}
		t, err := ipTree(n)
		if err != nil {
			return nil, text, nil, "inert output: " + err.Error()
		}
		return t, text, n, ""
	}
	var trees [2]*ipNode
	var inertJSON any
	for i, set := range []byte{'p', 'q'} {
		t, text, n, why := read(set, set)
		if why != "" {
			v.undecided = why
			return v
		}
		trees[i] = t
		if i == 0 {
			v.inertText = text
			inertJSON, _ = ipJSON(n)
		}
	}
	var tree *ipNode
	if !c.scalar {
		if !ipSameShape(trees[0], trees[1]) {
			v.undecided = "the inert words' content shapes the output"
			return v
		}
		tree = trees[0]
	} else {
		// A scalar the two inert renders write differently depends on a tenant value: a hole,
		// of the kinds they write there.
		var merr error
		if tree, merr = ipMerge(trees[0], trees[1]); merr != nil {
			// The same strings with other numbers and bools: if the shape changes, the
			// tenant's number or bool shapes the output, and the render must fail.
			r, _, _, why := read('p', 'q')
			if why != "" {
				v.undecided = why
				return v
			}
			if _, err := ipMerge(trees[0], r); err == nil {
				v.undecided = "the inert words' content shapes the output"
				return v
			}
			if v.rendered {
				v.diffs = append(v.diffs, "(a) structure depends on a tenant number or bool: two inert numbers (bools) give two shapes ("+merr.Error()+"), and the render succeeded")
			}
			return v
		}
		// The self-check below renders Gantry with the inert values, which decide for
		// themselves: the oracle's reading of the template with them.
		inertJSON = nil
		if text, err := ipExecute(c.tmpl, ipInertValues(c, 'p')); err == nil {
			if n, err := ipParse(text); err == nil {
				inertJSON, _ = ipJSON(n)
			}
		}
	}
	if tree.kind != yamlv3.MappingNode {
		v.undecided = "not an object"
		return v
	}
	ipAddNamespace(tree)

	// Self-check of the oracle: with inert values, Gantry must write exactly the oracle's object,
	// or fail.
	if inertOut, err := renderWith(ipInertValues(c, 'p')); err == nil && (!c.scalar || inertJSON != nil) {
		if m, ok := inertJSON.(map[string]any); ok {
			if md, ok := m["metadata"].(map[string]any); ok {
				if _, has := md["namespace"]; !has {
					md["namespace"] = ns
				}
			}
		}
		if len(inertOut.Objects) != 1 || !reflect.DeepEqual(inertOut.Objects[0].Object, inertJSON) {
			var d []string
			if len(inertOut.Objects) == 1 {
				ipDeepDiff("", inertJSON, inertOut.Objects[0].Object, &d)
			}
			v.diffs = append(v.diffs, fmt.Sprintf("with inert values %v Gantry writes %v, the oracle reads %v: %q", ipInertValues(c, 'p'), ipObjects(inertOut), inertJSON, d))
		}
	}

	if err != nil {
		return v // failing is always allowed
	}
	if len(out.Objects) != 1 {
		v.diffs = append(v.diffs, fmt.Sprintf("(a) %d objects, the template writes 1", len(out.Objects)))
		return v
	}
	var cmp ipCompare
	cmp.node("", tree, out.Objects[0].Object)
	if len(cmp.diffs) > 0 {
		v.diffs = append(v.diffs, cmp.diffs...)
		return v
	}

	// Where YAML 1.2 reads the hostile text with the template's structure and every hole a
	// string, that reading is the exact output: it is what the tenant's strings are.
	text, err := ipExecute(c.tmpl, c.values)
	if err != nil {
		return v
	}
	n, err := ipParse(text)
	if err != nil {
		return v
	}
	want, ok := ipJSON(n)
	if !ok {
		return v
	}
	if m, ok := want.(map[string]any); ok {
		if md, ok := m["metadata"].(map[string]any); ok {
			if _, has := md["namespace"]; !has {
				md["namespace"] = ns
			}
		}
	}
	var cmp12 ipCompare
	cmp12.node("", tree, want)
	if len(cmp12.diffs) > 0 {
		return v
	}
	if !ipEqual(want, out.Objects[0].Object) {
		var d []string
		ipDeepDiff("", want, out.Objects[0].Object, &d)
		for i := range d {
			d[i] = "(b) not the tenant's string as YAML 1.2 reads the same text: " + d[i]
		}
		v.diffs = append(v.diffs, d...)
	}
	return v
}

func ipClass(d string) string {
	switch {
	case strings.HasPrefix(d, "(d)"):
		return "(d) nondeterministic"
	case strings.HasPrefix(d, "a known attack"):
		return "known attack passed"
	case strings.HasPrefix(d, "with inert values"):
		return "inert render differs from the oracle"
	case strings.Contains(d, "as YAML 1.2 reads") && strings.Contains(d, "key"):
		return "(b) tenant key not kept as the tenant's string"
	case strings.Contains(d, "as YAML 1.2 reads"):
		return "(b) tenant string not kept as written"
	case strings.HasPrefix(d, "(a) structure depends"):
		return "(a) structure depends on a tenant number or bool"
	case strings.HasPrefix(d, "(a)"):
		return "(a) object count"
	case strings.Contains(d, "the hole of a tenant number or bool"):
		return "(b) hole of a tenant number or bool changed kind"
	case strings.Contains(d, "the tenant's hole"):
		return "(b) hole is not a string"
	case strings.Contains(d, "keys besides"), strings.Contains(d, "the map has"), strings.Contains(d, "entries under tenant keys"):
		return "(a/c) map size or keys changed"
	case strings.Contains(d, "is missing"):
		return "(a) template key missing"
	case strings.Contains(d, "the list has"):
		return "(a) list length changed"
	case strings.Contains(d, "the template writes"):
		return "(a) template node changed"
	}
	return "other"
}

func ipObjects(out *render.Output) []any {
	if out == nil {
		return nil
	}
	var l []any
	for _, o := range out.Objects {
		l = append(l, o.Object)
	}
	return l
}

func ipReport(c ipCase, v ipVerdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "case %s\n--- template:\n%s--- tenant values: %#v\n", c.name, c.tmpl, c.values)
	if c.otmpl != "" {
		d, _ := ipDecisions(c)
		fmt.Fprintf(&b, "--- the oracle's template, with the tenant's decisions %v:\n%s", d, c.otmpl)
	}
	fmt.Fprintf(&b, "--- the oracle's inert output:\n%s\n", v.inertText)
	if v.rendered {
		y, _ := sigsyaml.Marshal(v.gantry)
		fmt.Fprintf(&b, "--- Gantry's object:\n%s", y)
	}
	b.WriteString("--- what broke:\n  " + strings.Join(v.diffs, "\n  ") + "\n")
	return b.String()
}

// ipCases is the test's case list: the known attacks and generated cases.
func ipCases(n int) []ipCase {
	cases := ipSeeds()
	for i := range cases {
		cases[i].mustFail = true
	}
	rng := rand.New(rand.NewSource(20240611))
	for range n {
		strs := func(indent int, key string) string { return ipHostileString(rng, indent, key) }
		concert := rng.Intn(3) == 0
		if concert {
			strs = ipCoordinated(rng)
		}
		cases = append(cases, ipGenerate(rng, strs, concert))
	}
	return cases
}

// TestIdentityProperty checks the exact identity property on the known attacks and on
// generated blueprints with hostile tenant values.
func TestIdentityProperty(t *testing.T) {
	n, ns := 2500, 700
	if testing.Short() || raceDetector {
		// The race detector makes each case several times slower (2.5 minutes for the whole
		// suite): make test runs the short one; `go test ./render` runs all of it.
		n, ns = 400, 100
	}
	start := time.Now()
	cases := append(ipCases(n), ipScalarCases(ns)...)
	var decided, rendered, failed, notes int
	var sCases, sDecided, sRendered, sFailed int // those with numbers and bools
	undecided := map[string]int{}
	byClass := map[string][]string{} // every class of violation a case shows
	shown := 0
	for _, c := range cases {
		v := ipCheck(c)
		if v.note != "" {
			if notes++; notes <= 3 {
				t.Logf("note (not a violation): case %s, values %#v: %s", c.name, c.values, v.note)
			}
		}
		if c.scalar {
			sCases++
		}
		if v.undecided != "" && len(v.diffs) == 0 {
			undecided[strings.SplitN(v.undecided, ":", 2)[0]]++
			continue
		}
		decided++
		if v.rendered {
			rendered++
		}
		if c.scalar {
			sDecided++
			if v.rendered {
				sRendered++
			}
			if len(v.diffs) > 0 {
				sFailed++
			}
		}
		if len(v.diffs) == 0 {
			continue
		}
		failed++
		classes := map[string]bool{}
		for _, d := range v.diffs {
			classes[ipClass(d)] = true
		}
		for cl := range classes {
			byClass[cl] = append(byClass[cl], fmt.Sprintf("%s %#v", c.name, c.values))
		}
		if shown < 40 || c.mustFail {
			shown++
			t.Errorf("identity property violated:\n%s", ipReport(c, v))
		}
	}
	t.Logf("%d cases (%d decided by the oracle, %d rendered by Gantry, %d violations, %d notes) in %v; undecided: %v",
		len(cases), decided, rendered, failed, notes, time.Since(start).Round(time.Millisecond), undecided)
	t.Logf("of them with tenant numbers and bools: %d cases (%d decided, %d rendered, %d violations)", sCases, sDecided, sRendered, sFailed)
	classes := make([]string, 0, len(byClass))
	for k := range byClass {
		classes = append(classes, k)
	}
	sort.Strings(classes)
	for _, k := range classes {
		t.Logf("%s: %d cases, e.g. %s", k, len(byClass[k]), byClass[k][0])
	}
}

// FuzzIdentityProperty: the fuzzer picks the template and the tenant's strings a, b and c. A
// seed of 0 or more generates the template (as TestIdentityProperty does); a negative seed
// takes the template of a known attack (ipSeeds), with a, b and c as its values (a map value
// is {a: b, c: a}), so that the fuzzer varies the attacks.
//
//	go test -run='^$' -fuzz=FuzzIdentityProperty -fuzztime=60s ./render/
func FuzzIdentityProperty(f *testing.F) {
	for i, s := range ipSeeds() {
		var strs []string
		for _, v := range s.vars {
			if m, ok := s.values[v.name].(map[string]any); ok {
				for _, k := range ipSortedKeys(m) {
					strs = append(strs, k, m[k].(string))
				}
			} else {
				strs = append(strs, s.values[v.name].(string))
			}
		}
		for len(strs) < 3 {
			strs = append(strs, "x")
		}
		f.Add(int64(-1-i), strs[0], strs[1], strs[2])
		f.Add(int64(i), strs[0], strs[1], strs[2])
	}
	f.Add(int64(7), "'x", "x'\n  owner: tenant", "yes")
	// Numbers and bools: a seed with bit 40 set generates a template with them; a, b and c
	// are the tenant's values in turn (a number as written, a bool "true" or otherwise by length).
	f.Add(ipFuzzScalar|1, "3", "-2.5", "true")
	f.Add(ipFuzzScalar|2, "900007", "0", "false")
	f.Add(ipFuzzScalar|3, "5000000011", "1e21", "'x")
	f.Add(ipFuzzScalar|4, "-1", "900007.5", "yes")
	f.Fuzz(func(t *testing.T, seed int64, a, b, c string) {
		if a == "" || b == "" || c == "" {
			return // empty strings are not tenant content Gantry tracks
		}
		var cs ipCase
		if seed < 0 {
			seeds := ipSeeds()
			cs = seeds[int((-seed-1)%int64(len(seeds)))]
			cs.values = map[string]any{}
			strs := []string{a, b, c}
			for i, v := range cs.vars {
				if v.isMap {
					cs.values[v.name] = map[string]any{a: b, c: a}
				} else {
					cs.values[v.name] = strs[i%3]
				}
			}
		} else if seed&ipFuzzScalar != 0 {
			rng := rand.New(rand.NewSource(seed))
			strs, i := []string{a, b, c}, 0
			next := func() string { i++; return strs[(i-1)%3] }
			cs = ipGenerateScalar(rng, ipSupply{
				num:     func(_, float bool) any { return ipFuzzNumber(next(), float) },
				boolean: func() bool { s := next(); return s == "true" || s != "false" && len(s)%2 == 1 },
				str:     func(int, string) string { return next() },
			})
		} else {
			rng := rand.New(rand.NewSource(seed))
			strs, i := []string{a, b, c}, 0
			cs = ipGenerate(rng, func(int, string) string { i++; return strs[(i-1)%3] }, seed%2 == 0)
		}
		if v := ipCheck(cs); len(v.diffs) > 0 {
			t.Fatalf("identity property violated:\n%s", ipReport(cs, v))
		}
	})
}

// ---------------------------------------------------------------------------------------------
// Tenant numbers and bools.
//
// A tenant number (int64 or float64) or bool is tenant input as much as a string. Generated
// templates use one printed as it is or through add, mul, toString, printf, quote, int,
// toYaml; as an indent or nindent width; as a repeat or trunc count; as an until count; in the
// condition of an if, with or ternary. The oracle renders with two inert numbers (bools: false
// and true) and reads a scalar the two renders write differently as a hole of the kinds they
// write there: a tenant number printed as a number must stay a number, one the template made
// into a string a string, a bool a bool. Every other node is the template's, and must be
// exactly so in Gantry's output. A decision is the template's too: the branch a condition on
// a tenant value takes, and as many items as an until over a tenant count makes, each item
// the template's (TestTenantNumbersAndBoolsAreTenantInput, "compared" and "counted"); the
// oracle takes the tenant's decisions (ipDecisions) and renders the rest with inert values.
// Where two inert numbers or bools give two shapes (`[{{ repeat n "a, " }}z]`, a bool's text
// replaced by YAML), the tenant's number shapes the output: the render must fail.

// ipKind is the kind of a JSON value: a hole of a tenant number must stay a "number".
func ipKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int, int64, float64:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	case map[string]any:
		return "map"
	case []any:
		return "list"
	}
	return fmt.Sprintf("%T", v)
}

// ipEqual is reflect.DeepEqual, except that an int64 and a float64 of the same value are
// equal (YAML reads 5e+18 as a float, JSON as an int).
func ipEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			if w, ok := bm[k]; !ok || !ipEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !ipEqual(a[i], bl[i]) {
				return false
			}
		}
		return true
	case int64:
		if bi, ok := b.(int64); ok {
			return a == bi
		}
		if bf, ok := b.(float64); ok {
			return float64(a) == bf
		}
		return false
	case float64:
		if bi, ok := b.(int64); ok {
			return a == float64(bi)
		}
	}
	return reflect.DeepEqual(a, b)
}

// ipMerge reads two inert renders as one tree: they must have the same shape; a scalar they
// write differently is a hole.
func ipMerge(a, b *ipNode) (*ipNode, error) {
	if a.kind != b.kind {
		return nil, fmt.Errorf("a %v and a %v", a.kind, b.kind)
	}
	switch a.kind {
	case yamlv3.ScalarNode:
		if a.hole || b.hole {
			if a.hole && b.hole {
				return a, nil
			}
			return nil, fmt.Errorf("%q and %q", a.text, b.text)
		}
		if reflect.DeepEqual(a.val, b.val) {
			return a, nil
		}
		kinds := []string{ipKind(a.val)}
		if k := ipKind(b.val); k != kinds[0] {
			kinds = append(kinds, k)
		}
		return &ipNode{kind: a.kind, hole: true, text: a.text + " / " + b.text, kinds: kinds}, nil
	case yamlv3.SequenceNode:
		if len(a.kids) != len(b.kids) {
			return nil, fmt.Errorf("lists of %d and %d items", len(a.kids), len(b.kids))
		}
	case yamlv3.MappingNode:
		if len(a.kids) != len(b.kids) || !slices.Equal(a.keyHole, b.keyHole) {
			return nil, fmt.Errorf("maps of keys %q and %q", a.keys, b.keys)
		}
		for i := range a.keys {
			if !a.keyHole[i] && a.keys[i] != b.keys[i] {
				return nil, fmt.Errorf("maps of keys %q and %q", a.keys, b.keys)
			}
		}
	}
	o := *a
	o.kids = make([]*ipNode, len(a.kids))
	for i := range a.kids {
		k, err := ipMerge(a.kids[i], b.kids[i])
		if err != nil {
			return nil, err
		}
		o.kids[i] = k
	}
	return &o, nil
}

// ipMaxLoop is the largest tenant loop count the oracle renders.
const ipMaxLoop = 2000

// ipDecisions evaluates the case's decisions on the tenant's values, with text/template and
// sprig: a condition's truth, a loop's count.
func ipDecisions(c ipCase) (map[string]any, error) {
	if len(c.decisions) == 0 {
		return nil, nil
	}
	d := map[string]any{}
	for _, x := range c.decisions {
		if x.count {
			text, err := ipExecute("{{ "+x.expr+" }}", c.values)
			if err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(text)
			if err != nil {
				return nil, err
			}
			if n > ipMaxLoop || n < -ipMaxLoop {
				return nil, fmt.Errorf("a loop of %d items", n)
			}
			d[x.key] = n
			continue
		}
		text, err := ipExecute("{{ if "+x.expr+" }}1{{ else }}0{{ end }}", c.values)
		if err != nil {
			return nil, err
		}
		d[x.key] = text == "1"
	}
	return d, nil
}

// ipScalarTemplateLines are the template's own lines in cases with numbers and bools: those
// of ipTemplateLines and numbers near Gantry's own stand-ins (boundary/standins.go).
var ipScalarTemplateLines = append(slices.Clip(ipTemplateLines),
	"magic: 900007", "magic2: 900017", "floaty: 900007.5", "big: 5000000011", "zero: 0", "neg: -1",
	"disabled: false", "count: 3", "half: 2.5")

// Where a printed tenant number, bool or string lands (@K the hole's key, @X the action).
var ipScalarContexts = []string{
	"@K: @X", `@K: "@X"`, "@K: '@X'", "@K: pre @X post", "@K: pre-@X-post", "@K: [@X, fixed]",
	"@K: {a: @X, b: fixed}", "@K: |\n  @X", "@K:\n- @X\n- fixed", "@K: @X.5", "@K: -@X", "@K: @X@X",
}

// What a printed tenant number or bool passes through (@V the value).
var (
	ipNumExprs = []string{
		"@V", "add @V 1", "mul @V 2", "sub @V 7", "@V | toString", `printf "%d" (int @V)`, `printf "%v" @V`,
		"@V | quote", "int @V", "@V | int | quote", "toYaml @V", "toJson @V", "@V | toString | quote",
	}
	ipBoolExprs = []string{
		"@V", "@V | toString", "@V | quote", `printf "%v" @V`, "not @V", "toYaml @V", "toJson @V",
		"@V | toString | upper", "@V | squote",
	}
)

// A tenant number as a width or a count (@I the indentation, @K the hole's key). Gantry
// renders its own stand-in (900007) as the width or count, which makes long renders (a tenth
// of a second): those are picked less often (ipWidthWeights). A count that makes list items
// (`[{{ repeat n "a, " }}z]`, a second a render) is a known attack in ipScalarSeeds.
var ipWidthContexts = []string{
	`@I@K:{{ toYaml (dict "a" "x" "b" "y") | nindent (int @V) }}`,
	`@I@K: |{{ "line one\nline two" | nindent (int @V) }}`,
	"@I@K: |\n" + `{{ "line one\nline two" | indent (int @V) }}`,
	`@I@K: {{ repeat (int @V) "ab" }}`,
	`@I@K: {{ repeat (int @V) "ab" | quote }}`,
	`@I@K: {{ trunc (int @V) "platform-owned" }}`,
	`@I@K: [{{ trunc (int @V) "a, b, c" }}]`,
	`@I@K: {{ trunc (int @V) "true" }}`,
}

var ipWidthWeights = []int{8, 5, 5, 2, 2, 15, 15, 15}

func ipPickWeighted(rng *rand.Rand, l []string, w []int) string {
	total := 0
	for _, x := range w {
		total += x
	}
	n := rng.Intn(total)
	for i, x := range w {
		if n < x {
			return l[i]
		}
		n -= x
	}
	return l[len(l)-1]
}

// A loop over a tenant count (@U: `until (int .Values.v)`).
var ipUntilContexts = []string{
	"@I@K:\n{{- range $i := @U }}\n@I- item-{{ $i }}\n{{- end }}",
	"@I@K:\n{{- range $i := @U }}\n@I- {{ $i }}\n{{- end }}",
	"{{- range $i := @U }}\n@I@K-{{ $i }}: v\n{{- end }}",
	"@I@K:\n{{- range $i := @U }}\n@I- name: n{{ $i }}\n@I  port: {{ add 8000 $i }}\n{{- end }}",
	"@I@K: [{{ range $i := @U }}{{ $i }}, {{ end }}end]",
	"@I@K:\n{{- range $i := @U }}\n@I- {{ if eq $i 0 }}first{{ else }}rest{{ end }}\n{{- end }}",
	"@I@K: {{ len (@U) }}",
}

// A condition on a tenant number or bool (@C).
var (
	ipDecisionContexts = []string{
		"@I@K: {{ if @C }}on-branch{{ else }}off-branch{{ end }}",
		"{{- if @C }}\n@I@K: {a: b}\n{{- end }}",
		"{{- if @C }}\n@I@K:\n@I- one\n@I- two\n{{- else }}\n@I@K: []\n{{- end }}",
		`@I@K: {{ ternary "large" "small" (@C) }}`,
		"@I@K: {{ ternary 10 20 (@C) }}",
		"{{- if not (@C) }}\n@I@K: negated\n{{- end }}",
		"@I@K: {{ if @C }}{{ @V }}{{ else }}none{{ end }}",
		"{{- with @C }}\n@I@K: with-branch\n{{- end }}",
	}
	ipBoolConds = []string{"@V", "not @V", "eq @V true", "and @V true", "or @V false"}
	ipNumConds  = []string{"@V", "gt (int @V) 2", "eq (int @V) 0", "lt (float64 @V) 2.5", "ge (int @V) 8080", "ne (int @V) 900007"}
)

// Hostile tenant numbers: edges, Gantry's own stand-ins (900007 + 10j, floats + 0.5, C's
// 5000000011), the oracle's, numbers the template writes, and ones that print with exponents.
var (
	ipHostileInts = []int64{
		0, 1, -1, 2, 3, -3, 7, 10, 100, -100, 8080, 65535, 123457, 654323, 900007, 900017, 900008,
		899997, 999999, 1000000, 5000000011, 1 << 31, -(1 << 31), 1<<53 + 1, math.MaxInt64, math.MinInt64, 42,
	}
	ipHostileFloats = []float64{
		0, math.Copysign(0, -1), 0.5, -0.5, 1.5, 2.5, -2.5, 3, 1e21, 1e-7, -1e300, 900007.5, 900017.5,
		123457.25, 1e6, 1.5e6, 7777777.7, math.MaxFloat64, math.SmallestNonzeroFloat64, 5e18, 0.1, 1e20, 8080,
	}
	ipHostileCounts      = []int64{0, 1, 2, 3, 4, 5, -1, -2, 6, 8, 10, 12, 37, 53, 100, 1000, 900007, 1 << 40, math.MaxInt64, math.MinInt64}
	ipHostileFloatCounts = []float64{0.5, 2.7, -1.5, 3, 6, 1e21, 1e300, -0.5}
	// Strings next to numbers: some read as numbers unquoted.
	ipNumericStrings = []string{"900007", "900017", "900007.5", "5000000011", "123457", "3", "-1", "1e21", "0.5", "true", "false"}
)

// ipHostileNumber is a tenant number: one of the lists, or a random one.
func ipHostileNumber(rng *rand.Rand, count, float bool) any {
	switch {
	case count && float:
		return ipHostileFloatCounts[rng.Intn(len(ipHostileFloatCounts))]
	case count:
		return ipHostileCounts[rng.Intn(len(ipHostileCounts))]
	case rng.Intn(5) == 0 && float:
		return rng.NormFloat64() * math.Pow(10, float64(rng.Intn(12)))
	case rng.Intn(5) == 0:
		return rng.Int63n(2_000_001) - 1_000_000
	case float:
		return ipHostileFloats[rng.Intn(len(ipHostileFloats))]
	}
	return ipHostileInts[rng.Intn(len(ipHostileInts))]
}

// ipSupply gives the tenant's values to ipGenerateScalar.
type ipSupply struct {
	num     func(count, float bool) any // an int64 or a float64 (the float is a hint)
	boolean func() bool
	str     func(indent int, key string) string
}

// ipGenerateScalar builds a template with 2 or 3 tenant values, numbers, bools and strings,
// each in one context, and template-owned lines between them.
func ipGenerateScalar(rng *rand.Rand, sup ipSupply) ipCase {
	deploy := rng.Intn(2) == 0
	type block struct {
		indent        int
		lines, olines []string // the template's, and the oracle's
	}
	var blocks []*block
	if deploy {
		blocks = []*block{{indent: 6}, {indent: 8}} // pod spec, container
	} else {
		blocks = []*block{{indent: 2}, {indent: 4}} // data, labels
	}
	used := map[*block][]int{}
	addTemplateLine := func(b *block) {
		for _, i := range rng.Perm(len(ipScalarTemplateLines)) {
			if !slices.Contains(used[b], i) {
				used[b] = append(used[b], i)
				l := ipIndent(ipScalarTemplateLines[i], b.indent)
				b.lines, b.olines = append(b.lines, l), append(b.olines, l)
				return
			}
		}
	}
	c := ipCase{scalar: true, values: map[string]any{}}
	var desc []string
	for _, b := range blocks {
		if rng.Intn(2) == 0 {
			addTemplateLine(b)
		}
	}
	pick := func(l []string) string { return l[rng.Intn(len(l))] }
	for i := range 2 + rng.Intn(2) {
		b := blocks[rng.Intn(len(blocks))]
		key := fmt.Sprintf("k%d", i+1)
		v := ipVar{name: fmt.Sprintf("v%d", i+1)}
		val := ".Values." + v.name
		ind := strings.Repeat(" ", b.indent)
		var text, otext string // the lines, for the template and for the oracle
		printed := func(ctx, expr string) {
			x := "{{ " + strings.ReplaceAll(expr, "@V", val) + " }}"
			text = ipIndent(strings.NewReplacer("@K", key, "@X", x).Replace(ctx), b.indent)
			otext = text
			desc = append(desc, fmt.Sprintf("%s: %q in %q", v.name, expr, ctx))
		}
		decision := func(ctx, cond string) {
			d := fmt.Sprintf("d%d", i+1)
			cond = strings.ReplaceAll(cond, "@V", val)
			c.decisions = append(c.decisions, ipDecision{key: d, expr: cond})
			r := func(cond string) string {
				return strings.NewReplacer("@I", ind, "@K", key, "@C", cond, "@V", val).Replace(ctx)
			}
			text, otext = r(cond), r(".D."+d)
			desc = append(desc, fmt.Sprintf("%s: %q deciding %q", v.name, cond, ctx))
		}
		switch kind := rng.Intn(20); {
		case kind < 3: // a string, next to the numbers
			s := sup.str(b.indent, key)
			if rng.Intn(2) == 0 {
				s = pick(ipNumericStrings)
			}
			c.values[v.name] = s
			printed(pick([]string{"@K: @X", `@K: "@X"`, "@K: pre @X post", "@K:\n- @X\n- fixed"}), pick([]string{"@V", "@V | quote", "@V | squote"}))
		case kind < 8: // a bool
			v.isBool = true
			c.values[v.name] = sup.boolean()
			if rng.Intn(2) == 0 {
				printed(pick(ipScalarContexts), pick(ipBoolExprs))
			} else {
				decision(pick(ipDecisionContexts), pick(ipBoolConds))
			}
		default: // a number
			v.num = true
			use := rng.Intn(20)
			v.count = use >= 9 && use < 16
			n := sup.num(v.count, rng.Intn(3) == 0)
			_, v.float = n.(float64)
			c.values[v.name] = n
			switch {
			case use < 9:
				printed(pick(ipScalarContexts), pick(ipNumExprs))
			case use < 13:
				ctx := ipPickWeighted(rng, ipWidthContexts, ipWidthWeights)
				text = strings.NewReplacer("@I", ind, "@K", key, "@V", val).Replace(ctx)
				otext = text
				desc = append(desc, fmt.Sprintf("%s: a width or count in %q", v.name, ctx))
			case use < 16:
				d := fmt.Sprintf("u%d", i+1)
				c.decisions = append(c.decisions, ipDecision{key: d, expr: "int " + val, count: true})
				ctx := pick(ipUntilContexts)
				r := func(u string) string { return strings.NewReplacer("@I", ind, "@K", key, "@U", u).Replace(ctx) }
				text, otext = r("until (int "+val+")"), r("until .D."+d)
				desc = append(desc, fmt.Sprintf("%s: an until count in %q", v.name, ctx))
			default:
				ctx := pick(ipDecisionContexts)
				conds := ipNumConds
				if strings.Contains(ctx, "ternary") {
					conds = conds[1:] // ternary wants a bool
				}
				decision(ctx, pick(conds))
			}
		}
		b.lines, b.olines = append(b.lines, text), append(b.olines, otext)
		c.vars = append(c.vars, v)
		addTemplateLine(b) // a template line after every hole
	}
	for _, b := range blocks {
		if len(b.lines) == 0 {
			addTemplateLine(b)
		}
	}
	assemble := func(l0, l1 []string) string {
		var t strings.Builder
		if deploy {
			t.WriteString("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  template:\n    spec:\n")
			t.WriteString(strings.Join(l0, "\n") + "\n")
			t.WriteString("      containers:\n      - name: app\n")
			t.WriteString(strings.Join(l1, "\n") + "\n")
			t.WriteString("        ports:\n        - containerPort: 8080\n")
		} else {
			t.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n    app: web\n")
			t.WriteString(strings.Join(l1, "\n") + "\n")
			t.WriteString("data:\n")
			t.WriteString(strings.Join(l0, "\n") + "\n")
		}
		return t.String()
	}
	c.tmpl = assemble(blocks[0].lines, blocks[1].lines)
	if o := assemble(blocks[0].olines, blocks[1].olines); o != c.tmpl {
		c.otmpl = o
	}
	c.name = strings.Join(desc, "; ")
	return c
}

// ipScalarSeeds are known attacks with numbers and bools (TestTenantNumbersAndBoolsAreTenantInput):
// each must end in a render error.
func ipScalarSeeds() []ipCase {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n"
	return []ipCase{
		{name: "a number as nindent's width", tmpl: cm + "  labels: {{- toYaml .Values.labels | nindent (int .Values.w) }}\n  owner: platform\n",
			vars:   []ipVar{{name: "w", num: true, count: true}, {name: "labels", isMap: true}},
			values: map[string]any{"w": int64(2), "labels": map[string]any{"x": "tenant"}}},
		{name: "a number as indent's width", tmpl: cm + "  labels: |\n{{ .Values.text | indent (int .Values.w) }}\n  owner: platform\n",
			vars: []ipVar{{name: "w", num: true, count: true}, {name: "text"}}, values: map[string]any{"w": int64(2), "text": "x"}},
		{name: "a bool's text as structure", tmpl: cm + "  flag: {{ .Values.flag | toString | replace \"true\" \"on\\n  owner: tenant\" }}\n",
			vars: []ipVar{{name: "flag", isBool: true}}, values: map[string]any{"flag": true}},
		{name: "a count making list items", tmpl: cm + "  k: [{{ repeat (int .Values.n) \"a, \" }}z]\n",
			vars: []ipVar{{name: "n", num: true, count: true}}, values: map[string]any{"n": int64(2)}},
		{name: "a float printed after a minus", tmpl: cm + "  k: -{{ .Values.n }}\n",
			vars: []ipVar{{name: "n", num: true}}, values: map[string]any{"n": -2.5}},
		{name: "a number cut short by trunc", tmpl: cm + "  k: {{ trunc (int .Values.n) \"true\" }}\n",
			vars: []ipVar{{name: "n", num: true, count: true}}, values: map[string]any{"n": int64(2)}},
		{name: "a loop too long", tmpl: cm + "{{- range $i := until (int .Values.n) }}\n  k{{ $i }}: v\n{{- end }}\n",
			vars: []ipVar{{name: "n", num: true}}, values: map[string]any{"n": int64(1) << 40},
			otmpl: cm + "{{- range $i := until .D.u }}\n  k{{ $i }}: v\n{{- end }}\n", decisions: []ipDecision{{key: "u", expr: "int .Values.n", count: true}}},
	}
}

// ipScalarCases are n generated cases with numbers and bools, and the known attacks.
func ipScalarCases(n int) []ipCase {
	cases := ipScalarSeeds()
	for i := range cases {
		cases[i].mustFail, cases[i].scalar = true, true
	}
	rng := rand.New(rand.NewSource(20240612))
	sup := ipSupply{
		num:     func(count, float bool) any { return ipHostileNumber(rng, count, float) },
		boolean: func() bool { return rng.Intn(2) == 0 },
		str:     func(indent int, key string) string { return ipHostileString(rng, indent, key) },
	}
	for range n {
		cases = append(cases, ipGenerateScalar(rng, sup))
	}
	return cases
}

// ipFuzzScalar marks a fuzz seed that generates a template with numbers and bools.
const ipFuzzScalar = int64(1) << 40

// ipFuzzNumber reads a fuzzed string as a tenant number: an int64 or a float64 as written,
// else one made of its bytes.
func ipFuzzNumber(s string, float bool) any {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		if float {
			return float64(i)
		}
		return i
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return f
	}
	var h int64
	for _, c := range []byte(s) {
		h = h*31 + int64(c)
	}
	if float {
		return float64(h) / 8
	}
	return h
}
