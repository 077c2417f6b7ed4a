package render

import (
	"errors"
	"strings"
	"testing"
)

// TestYAML11BooleanKeys: YAML 1.1, which Kubernetes' parser speaks, reads y, yes, on, n, no,
// off (any case) as booleans, so `{y: 3, on: 2}` has the key true twice. That stays refused,
// but the error names the keys and says to quote them, instead of only `key true already set
// in map`.
func TestYAML11BooleanKeys(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{"a: 1\ndata: {y: \"3\", on: \"2\"}\n", `keys y, on on line 2 are all true in YAML 1.1; quote them ("y", "on")`},
		{"data:\n  no: a\n  Off: b\n", `keys no (line 2), Off (line 3) are all false in YAML 1.1; quote them ("no", "Off")`},
	} {
		err := ExplainYAML(errors.New("yaml: unmarshal errors:\n  line 3: key x already set in map"), tt.doc)
		if err.Error() != "yaml: unmarshal errors:\n  line 3: key x already set in map" {
			t.Errorf("an unrelated duplicate changed: %v", err)
		}
		_, err = parseDocument(tt.doc)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseDocument(%q) = %v, want it to say %q", tt.doc, err, tt.want)
		}
	}
}
