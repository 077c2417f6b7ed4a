package boundary

import (
	"strings"

	"gantry.dev/gantry/internal/yamltext"
	yamlv3 "go.yaml.in/yaml/v3"
)

// A comment is how a tenant string hides what the template wrote after it: in a flow mapping,
// `{image: {{ .Values.img }}, privileged: false}` with a string that decodes to
// `nginx, privileged: true} #` keeps every key and node kind, so the structures compare equal,
// but the template's `privileged: false` is now a comment and the tenant's value stands in its
// place. Where the tenant string is inserted as it is, cutShort sees the scalar cut short; a
// transformed one (b64dec, replace) leaves no prefix to see. So a render whose output has more
// comments than the placeholder render's fails the check, whatever made them.

// commentMarks counts the places in text where a comment could start: a '#' at the start of a
// line or after a blank. It over-counts ('#' inside a quoted or block scalar), never
// under-counts: a cheap filter before the parse that counts real comments.
func commentMarks(text string) int {
	n := 0
	for i := 0; i < len(text); i++ {
		if text[i] == '#' && (i == 0 || text[i-1] == ' ' || text[i-1] == '\t' || text[i-1] == '\n' || text[i-1] == '\r') {
			n++
		}
	}
	return n
}

// comments counts the comments YAML finds in text, document by document as SplitDocuments
// splits it; ok is false when a document does not parse. yaml.v3 is used because it keeps
// comments (yaml.v2, which decodes the objects, drops them); only whether there are comments is
// read from it, not the values.
func comments(text string) (n int, ok bool) {
	docs, _ := yamltext.SplitDocuments(text)
	for _, d := range docs {
		var node yamlv3.Node
		if err := yamlv3.Unmarshal([]byte(d), &node); err != nil {
			return 0, false
		}
		n += countComments(&node)
	}
	return n, true
}

func countComments(n *yamlv3.Node) int {
	c := 0
	for _, s := range []string{n.HeadComment, n.LineComment, n.FootComment} {
		if s != "" {
			c += strings.Count(s, "\n") + 1 // one comment a line
		}
	}
	for _, k := range n.Content {
		c += countComments(k)
	}
	return c
}

// moreComments reports whether A's output has comments that B's does not: a tenant string,
// however transformed, turned part of the template's text into a comment.
func moreComments(textA, textB string) bool {
	if commentMarks(textA) <= commentMarks(textB) {
		return false // the common case: no '#' where a comment could start, or no more than B has
	}
	a, okA := comments(textA)
	b, okB := comments(textB)
	if !okA || !okB {
		return okA != okB // the parsers disagree on validity: count it as a change
	}
	return a > b
}
