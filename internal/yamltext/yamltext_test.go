package yamltext

import (
	"reflect"
	"testing"
)

func TestSplitDocuments(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		docs  []string
		lines []int
	}{{
		name:  "separator line",
		text:  "a: 1\n---\nb: 2\n",
		docs:  []string{"a: 1\n", "b: 2\n"},
		lines: []int{1, 3},
	}, {
		name:  "separators with comments and trailing blanks",
		text:  "--- # first\na: 1\n---   # second\nb: 2\n---\t\nc: 3",
		docs:  []string{"a: 1\n", "b: 2\n", "c: 3"},
		lines: []int{2, 4, 6},
	}, {
		name:  "--- inside a line, a string, a block scalar or a longer run is not a separator",
		text:  "a: x --- y\nb: \"---\"\nc: |\n  ---\n----\n---x\n -- -\n",
		docs:  []string{"a: x --- y\nb: \"---\"\nc: |\n  ---\n----\n---x\n -- -\n"},
		lines: []int{1},
	}, {
		name:  "empty and comment-only documents drop out",
		text:  "---\n# just a comment\n---\n\n   \n---\na: 1\n---\n",
		docs:  []string{"a: 1\n"},
		lines: []int{7},
	}, {
		name:  "CRLF line ends",
		text:  "a: 1\r\n---\r\nb: 2\r\n",
		docs:  []string{"a: 1\r\n", "b: 2\r\n"},
		lines: []int{1, 3},
	}, {
		name: "nothing",
		text: "",
	}, {
		name: "only separators",
		text: "---\n---\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, lines := SplitDocuments(tt.text)
			if !reflect.DeepEqual(docs, tt.docs) || !reflect.DeepEqual(lines, tt.lines) {
				t.Errorf("SplitDocuments(%q) =\n%q %v\nwant\n%q %v", tt.text, docs, lines, tt.docs, tt.lines)
			}
		})
	}
}
