package boundary

import (
	"maps"
	"strings"
	"text/template"
	"text/template/parse"

	"gantry.dev/gantry/internal/tmplwalk"
	"gantry.dev/gantry/internal/yamltext"
)

// TemplateWords collects the names a template set spells out: fields (`.Values.service`),
// variable fields and string constants (`index .Gateway.metadata.labels "app"`). Map keys with
// these names keep them in B, so that the templates still find what they look up.
func TemplateWords(t *template.Template) map[string]bool {
	words := map[string]bool{}
	tmplwalk.All(t, wordsOf(words))
	keepable(words)
	return words
}

// wordsOf adds to words the names a parse node spells out (see TemplateWords).
func wordsOf(words map[string]bool) func(parse.Node) {
	return func(n parse.Node) {
		switch n := n.(type) {
		case *parse.FieldNode:
			for _, w := range n.Ident {
				words[w] = true
			}
		case *parse.ChainNode:
			for _, w := range n.Field {
				words[w] = true
			}
		case *parse.VariableNode:
			for _, w := range n.Ident[1:] {
				words[w] = true
			}
		case *parse.StringNode:
			// A constant YAML does not read as the string it is (`on`, `yes`, `~`, `0x1F`,
			// which a template may compare a value with) would keep a tenant key that YAML
			// retypes; names of fields are kept whatever they are, lookups need them.
			if n.Text != "" && yamltext.ReadsAsString(n.Text) {
				words[n.Text] = true
			}
			// A constant that is template code, for tpl (`tpl "{{ .Values.name }}" .`):
			// the names it spells are the template's too.
			if strings.Contains(n.Text, "{{") {
				if tree := parseText(n.Text); tree != nil {
					tmplwalk.Inspect(tree.Root, wordsOf(words))
				}
			}
		case *parse.TemplateNode:
			words[n.Name] = true
		}
	}
}

// keepable drops the words no tenant key may keep in B: one that could change structure
// itself (a "\n" the template passes to replace) is no name to look up. A tenant key equal to
// one is still replaced.
func keepable(words map[string]bool) {
	maps.DeleteFunc(words, func(w string, _ bool) bool { return w == "" || !inert(w) })
}

// PlatformTemplateWords adds to b.words the names spelled out by the template texts among the
// platform's values (strings with an action that are no tenant's), which a blueprint runs
// through tpl: `motd: "Welcome to {{ .Gateway.metadata.name }}"` must find .Gateway.metadata
// in the stand-in renders as the real one does. It returns b.words itself when there are none.
func PlatformTemplateWords(base map[string]bool, values map[string]any, tainted []Tainted) map[string]bool {
	var texts []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case string:
			if strings.Contains(v, "{{") {
				texts = append(texts, v)
			}
		}
	}
	walk(values)
	if len(texts) == 0 {
		return base
	}
	tenant := make(map[string]bool, len(tainted))
	for _, t := range tainted {
		if t.Scalar == nil {
			tenant[t.Value] = true
		}
	}
	words := map[string]bool{}
	for _, text := range texts {
		if tenant[text] {
			continue // the tenant's: its names are no reason to keep anything
		}
		if tree := parseText(text); tree != nil {
			tmplwalk.Inspect(tree.Root, wordsOf(words))
		}
	}
	keepable(words)
	if len(words) == 0 {
		return base
	}
	maps.Copy(words, base)
	return words
}

// parseText parses a template text whose functions are not known here, or returns nil.
func parseText(text string) *parse.Tree {
	tree := parse.New("text")
	tree.Mode = parse.SkipFuncCheck
	if _, err := tree.Parse(text, "", "", map[string]*parse.Tree{}); err != nil || tree.Root == nil {
		return nil
	}
	return tree
}
