package render_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	yamlv3 "go.yaml.in/yaml/v3"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// fuzzFuncs and fuzzContexts are the grammar of the templates FuzzStructureCheck builds: a
// tenant value passed through one function, put in one YAML context.
var (
	fuzzFuncs = []string{
		"V", "V | trunc 20", `V | replace "~" "\n"`, `regexReplaceAll "~" V "\n"`, "V | b64dec", "V | nindent 4",
		"V | indent 2", "toYaml V", "V | quote", "V | squote", "V | upper", "substr 1 40 V", `V | trimSuffix "x"`,
		`splitList "," V | first`, "tpl V .", "abbrev 30 V", "V | trim", "toJson V",
	}
	fuzzContexts = []string{
		"data:\n  k: X\n", "data:\n  k: \"X\"\n", "data:\n  k: a X b\n", "data:\n  X: v\n", "data:\n  k: [X]\n",
		"data:\n  k: |\n    X\n", "data:\n  l:\n  - X\n", "data:\n  k: {a: X}\n",
	}
)

// FuzzStructureCheck: an independent oracle decides whether the output's structure depends on
// the tenant value: it renders the same template itself (text/template and sprig, no Gantry
// code) with the value and with several random inert words, and compares the shapes that
// another YAML parser (yaml.v3 nodes) gives. Where they differ, the check must fail the
// render; where the value is itself an inert word, the check must let it pass.
//
//	go test -run='^$' -fuzz=FuzzStructureCheck -fuzztime=60s ./render
func FuzzStructureCheck(f *testing.F) {
	f.Add(uint8(0), uint8(0), "x\n---\nkind: Secret")
	f.Add(uint8(7), uint8(0), "finalizers:\n- example.com/block")
	f.Add(uint8(4), uint8(0), base64.StdEncoding.EncodeToString([]byte("x\ny: z")))
	f.Add(uint8(2), uint8(6), "a~  - b")
	f.Add(uint8(0), uint8(3), "plain")
	f.Fuzz(func(t *testing.T, fn, ctx uint8, value string) {
		if value == "" {
			// Empty strings get no placeholder: an empty value can take an item away (`[{{ .v }}]`
			// has none), never add one, and templates test for it with `if`.
			return
		}
		expr := strings.ReplaceAll(fuzzFuncs[int(fn)%len(fuzzFuncs)], "V", ".Values.v")
		body := strings.Replace(fuzzContexts[int(ctx)%len(fuzzContexts)], "X", "{{ "+expr+" }}", 1)
		tmpl := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n" + body
		b, err := render.Compile("bp", gatewaySpec(map[string]string{"t": tmpl}))
		if err != nil {
			t.Fatalf("Compile %q: %v", tmpl, err)
		}
		values := map[string]any{"v": value}
		in := input(values)
		in.Tainted = boundary.TaintedStrings(values, tenant)
		_, checkErr := b.RenderGateway(in)

		shape, ok := oracleShape(tmpl, value)
		if !ok {
			return // the template itself fails with this value: nothing to decide
		}
		inert := []string{"qzx", "Word7", "abc.def", "k9k9k9k9k9k9"}
		var inertShapes []string
		for _, w := range inert {
			s, ok := oracleShape(tmpl, w)
			if !ok {
				return
			}
			inertShapes = append(inertShapes, s)
		}
		for _, s := range inertShapes[1:] {
			if s != inertShapes[0] {
				return // the shape depends on the content of inert words already (b64dec): no oracle
			}
		}
		if shape != inertShapes[0] && checkErr == nil {
			t.Fatalf("template %q, value %q: the structure depends on the value (%s vs %s), but the render passed", tmpl, value, shape, inertShapes[0])
		}
		if shape == inertShapes[0] && isInertWord(value) && checkErr != nil && !strings.Contains(tmpl, "b64dec") && !strings.HasSuffix(inertShapes[0], "invalid") {
			t.Fatalf("template %q, inert value %q: %v", tmpl, value, checkErr)
		}
	})
}

func isInertWord(s string) bool {
	if s == "" || len(s) > 12 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s[0] >= 'a'
}

// oracleShape renders tmpl with .Values.v = value by text/template and sprig alone and returns
// the shape of the output by yaml.v3: per document, node kinds, list lengths and map key
// counts. Keys are left out (a tenant value in key position is data). ok is false when the
// template fails.
func oracleShape(tmpl, value string) (string, bool) {
	funcs := sprig.HermeticTxtFuncMap()
	var t *template.Template
	funcs["tpl"] = func(text string, data any) (string, error) {
		c, err := t.Clone()
		if err != nil {
			return "", err
		}
		c, err = c.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = c.Execute(&buf, data)
		return buf.String(), err
	}
	t, err := template.New("t").Option("missingkey=error").Funcs(funcs).Parse(tmpl)
	if err != nil {
		return "", false
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, map[string]any{"Values": map[string]any{"v": value}}); err != nil {
		return "", false
	}
	dec := yamlv3.NewDecoder(&buf)
	var out strings.Builder
	for {
		var n yamlv3.Node
		err := dec.Decode(&n)
		if err != nil {
			if err.Error() == "EOF" {
				return out.String(), true
			}
			return out.String() + "invalid", true
		}
		if len(n.Content) == 1 && n.Content[0].Kind == yamlv3.ScalarNode && n.Content[0].Tag == "!!null" && n.Content[0].Value == "" {
			continue // an empty document: Gantry drops those, as Helm does
		}
		out.WriteString("doc(")
		shapeOf(&out, &n)
		out.WriteString(")")
	}
}

func shapeOf(out *strings.Builder, n *yamlv3.Node) {
	switch n.Kind {
	case yamlv3.DocumentNode:
		for _, c := range n.Content {
			shapeOf(out, c)
		}
	case yamlv3.MappingNode:
		fmt.Fprintf(out, "map%d{", len(n.Content)/2)
		for i := 1; i < len(n.Content); i += 2 {
			shapeOf(out, n.Content[i])
			out.WriteString(",")
		}
		out.WriteString("}")
	case yamlv3.SequenceNode:
		fmt.Fprintf(out, "list%d[", len(n.Content))
		for _, c := range n.Content {
			shapeOf(out, c)
			out.WriteString(",")
		}
		out.WriteString("]")
	case yamlv3.AliasNode:
		out.WriteString("alias")
	default:
		out.WriteString("s")
	}
}
