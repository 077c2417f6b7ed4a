package render_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestSplitCannotCarryAnInjection: the splitting functions cut, in B, what B's stand-ins stand
// for (boundary countedSplit), so that B loops as A did. Each case here is a tenant string
// whose parts, or whose choice of separator or pattern, add a field "admin" to the output.
// The oracle is the same render with the values as the platform's, unchecked: it must show the
// field (the attack works when nothing checks it), and the tenant's render must be refused.
func TestSplitCannotCarryAnInjection(t *testing.T) {
	cmHead := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n"
	perPart := func(split string) string {
		return "{{- range $i, $h := " + split + " }}\n  h{{ $i }}: {{ $h }}\n{{- end }}\n"
	}
	for _, c := range []struct {
		name, body string
		values     map[string]any
	}{
		{"a part breaks its line", perPart(`splitList "," .Values.hosts`),
			map[string]any{"hosts": "a.example.com,b\n  admin: yes"}},
		{"a part closes a flow mapping's quote",
			"{{- range splitList \";\" .Values.hosts }}\n  c{{ len . }}: {name: \"{{ . }}\"}\n{{- end }}\n",
			map[string]any{"hosts": `a;b", admin: "yes`}},
		{"the tenant chooses the separator", "{{- range splitList .Values.sep \"x: one,admin: yes\" }}\n  {{ . }}\n{{- end }}\n",
			map[string]any{"sep": ","}},
		{"the tenant chooses the pattern", "{{- range regexFindAll .Values.re \"x: one;admin: yes\" -1 }}\n  {{ . }}\n{{- end }}\n",
			map[string]any{"re": "[a-z]+: [a-z]+"}},
		{"split's map", "{{- $p := split \",\" .Values.hosts }}\n  first: {{ $p._0 }}\n  second: {{ $p._1 }}\n",
			map[string]any{"hosts": "a,b\n  admin: yes"}},
		{"splitn's map", "{{- $p := splitn \",\" 2 .Values.hosts }}\n  first: {{ $p._0 }}\n  second: {{ $p._1 }}\n",
			map[string]any{"hosts": "a,b\n  admin: yes"}},
		{"regexSplit", perPart(`regexSplit ";" .Values.hosts -1`),
			map[string]any{"hosts": "a;b\n  admin: yes"}},
		{"a part that is another tenant value", perPart(`splitList "," .Values.hosts`),
			map[string]any{"hosts": "a,b\n  admin: yes", "other": "b\n  admin: yes"}},
		{"with platform text", perPart(`splitList "," (printf "p.example.com,%s" .Values.hosts)`),
			map[string]any{"hosts": "a,b\n  admin: yes"}},
		{"lowered first", perPart(`splitList "," (lower .Values.hosts)`),
			map[string]any{"hosts": "A,B\n  ADMIN: yes"}},
		{"uppered first", perPart(`splitList "," (upper .Values.hosts)`),
			map[string]any{"hosts": "a,b\n  admin: yes"}},
		{"split twice", "{{- range splitList \";\" .Values.hosts }}{{ range splitList \",\" . }}\n  h{{ len . }}: {{ . }}\n{{- end }}{{ end }}\n",
			map[string]any{"hosts": "a;bb,ccc\n  admin: yes"}},
		{"sorted", perPart(`splitList "," .Values.hosts | sortAlpha`),
			map[string]any{"hosts": "z,b\n  admin: yes"}},
		{"a tpl text splits", "{{ tpl \"{{- range $i, $h := splitList \\\",\\\" .Values.hosts }}\\n  h{{ $i }}: {{ $h }}\\n{{- end }}\" $ }}\n",
			map[string]any{"hosts": "a,b\n  admin: yes"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cm := cmHead + c.body
			if got := renderPlatform(t, "", cm, c.values); !strings.Contains(strings.ToLower(fmt.Sprint(got)), "admin") {
				t.Fatalf("the attack adds no field even unchecked: data = %v", got)
			}
			mustRefuse(t, "", cm, c.values)
		})
	}
}
