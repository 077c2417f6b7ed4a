package render

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Kubernetes' YAML parser speaks YAML 1.1, which reads y, yes, on, n, no and off (any case,
// unquoted) as booleans: `{y: 3, on: 2}` has the key true twice, and the parser says only
// `key true already set in map`. ExplainYAML adds which keys those were and that quoting them
// keeps them strings. Other errors pass unchanged.

var (
	boolKeyDuplicate = regexp.MustCompile(`line (\d+): key (true|false) already set in map`)
	// yaml11Bool matches an unquoted key YAML 1.1 reads as a boolean, at the start of a line
	// (after indentation or a list dash) or after { or , in a flow map.
	yaml11Bool = regexp.MustCompile(`(?:^|[{,]|^\s*-?\s*)\s*(?i:(y|yes|n|no|on|off|true|false))\s*:(?:\s|$)`)
)

// ExplainYAML returns err with the YAML 1.1 boolean keys that collide in doc named, or err.
func ExplainYAML(err error, doc string) error {
	m := boolKeyDuplicate.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	want := m[2] == "true"
	var keys, where []string
	lines := strings.Split(doc, "\n")
	sameLine := true
	first := 0
	for i, line := range lines {
		for _, k := range yaml11Bool.FindAllStringSubmatch(line, -1) {
			key := k[1]
			if isTrue(key) != want {
				continue
			}
			if len(keys) == 0 {
				first = i
			} else if i != first {
				sameLine = false
			}
			keys = append(keys, key)
			where = append(where, fmt.Sprintf("%s (line %d)", key, i+1))
		}
	}
	if len(keys) < 2 {
		return err
	}
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = strconv.Quote(k)
	}
	named := strings.Join(where, ", ")
	if sameLine {
		named = strings.Join(keys, ", ") + " on line " + strconv.Itoa(first+1)
	}
	return fmt.Errorf("%w (keys %s are all %s in YAML 1.1; quote them (%s) to keep them strings)", err, named, m[2], strings.Join(quoted, ", "))
}

func isTrue(key string) bool {
	switch strings.ToLower(key) {
	case "y", "yes", "on", "true":
		return true
	}
	return false
}
