package render_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// memoHelpers are helpers a memo may remember: with a dict of scalars, with the root, with a
// conditional inside, one that includes the others, and two given a scalar.
const memoHelpers = `{{- define "say" }}{{ if .p }}{{ .p }}{{ else }}mode: strict{{ end }}{{ end }}
{{- define "port" }}{{ if eq .p "http" }}80{{ else }}443{{ end }}{{ end }}
{{- define "name" }}{{ .Values.name | default "x" }}{{ end }}
{{- define "tier" }}{{ if eq .Values.tier "gold" }}gold{{ else }}{{ .Values.tier }}{{ end }}{{ end }}
{{- define "nest" }}{{ include "say" . }}-{{ include "port" . }}{{ end }}
{{- define "sayS" }}{{ if . }}{{ . }}{{ else }}mode: strict{{ end }}{{ end }}
{{- define "portS" }}{{ if eq . "http" }}80{{ else }}443{{ end }}{{ end }}`

// memoLines are the lines a case's ConfigMap data is made of; %d is the line's own key, X
// and Y are tenant values.
var memoLines = []string{
	`  k%d: {{ include "say" (dict "p" .Values.X) }}`,
	`  k%d: {{ include "say" (dict "p" .Values.X) | quote }}`,
	`  k%d: "{{ include "port" (dict "p" .Values.X) }}"`,
	`  k%d: "{{ include "port" (dict "p" "http") }}"`,
	`  k%d: {{ include "say" (dict "p" "mode: strict") | quote }}`,
	`  k%d: {{ include "name" . | quote }}`,
	`  k%d: {{ include "tier" . }}`,
	`  k%d: {{ include "tier" (default $ .Values.flag) }}`,
	`  {{- $_ := or .Values.X (include "say" (dict)) }}`,
	`  {{- $_ := and .Values.X (include "say" (dict "p" .Values.Y)) }}`,
	"  {{- if eq .Values.X \"gold\" }}\n  k%d: {{ include \"say\" (dict \"p\" .Values.Y) }}\n  {{- end }}",
	`  k%d: "{{ include "nest" (dict "p" .Values.X) }}"`,
	`  k%d: {{ include "nest" (dict "p" .Values.X) }}`,
	`  {{- range .Values.list }}{{ $_ := include "say" (dict "p" .) }}{{ end }}`,
	`  k%d: {{ include "say" (dict "p" (splitList "," .Values.X | first)) }}`,
	`  k%d: {{ range splitList "," .Values.X }}{{ include "port" (dict "p" .) }}{{ end }}`,
	`  k%d: {{ include "sayS" .Values.X }}`,
	`  k%d: {{ include "sayS" .Values.X | quote }}`,
	`  k%d: "{{ include "portS" .Values.X }}"`,
	`  k%d: "{{ include "portS" "http" }}"`,
	`  {{- range .Values.list }}{{ $_ := include "sayS" . }}{{ end }}`,
	`  k%d: {{ range splitList "," .Values.X }}{{ include "portS" . }}{{ end }}`,
}

var memoValues = map[string][]any{
	"name": {"http", "mode: strict", "a", "x\n  admin: yes", "gold"},
	"tier": {"gold", "plain", "http", "a: b"},
	"mode": {"", "http", "k: v", "http,gold"},
	"flag": {false, true, int64(0), "x"},
	"list": {[]any{"http", "a"}, []any{"mode: strict", "mode: strict"}, []any{}},
}

// TestIncludeMemoChangesNothing: the include memo (render.execution.include) remembers a
// helper's output with the decisions its body made, and a render that uses it takes those
// decisions again (boundary.Decider.Apply), in A and in the check's B alike. The oracle is
// the same render with the memo off: whatever the template and the tenant's values, the memo
// must not change the verdict (an injection accepted, a harmless template refused) nor the
// output. Generated: random lines of includes with tenant values in their arguments, in
// conditionals, in and/or, in loops and splits, and hostile or platform-equal values.
func TestIncludeMemoChangesNothing(t *testing.T) {
	rng := rand.New(rand.NewSource(22))
	n := 600
	if testing.Short() {
		n = 150
	}
	hits0 := render.IncludeMemoHits()
	var refused, hitCases int
	for i := range n {
		var lines []string
		for k := range 2 + rng.Intn(5) {
			l := memoLines[rng.Intn(len(memoLines))]
			l = strings.NewReplacer("X", pick(rng, "name", "tier", "mode"), "Y", pick(rng, "name", "tier", "mode")).Replace(l)
			if strings.Contains(l, "%d") {
				l = fmt.Sprintf(l, k)
			}
			lines = append(lines, l)
		}
		cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  x: \"1\"\n" + strings.Join(lines, "\n") + "\n"
		values := map[string]any{}
		for k, vs := range memoValues {
			values[k] = vs[rng.Intn(len(vs))]
		}
		b := mustCompile(t, gatewaySpec(map[string]string{"_helpers": memoHelpers, "cm": cm}))
		render1 := func(memo bool) (*render.Output, error) {
			defer render.SetIncludeMemo(memo)()
			in := input(values)
			in.Tainted = boundary.TaintedStrings(values, tenant)
			return b.RenderGateway(in)
		}
		before := render.IncludeMemoHits()
		on, errOn := render1(true)
		if render.IncludeMemoHits() > before {
			hitCases++
		}
		off, errOff := render1(false)
		if errOff != nil {
			refused++
		}
		switch {
		case (errOn == nil) != (errOff == nil):
			t.Errorf("case %d: with the memo: %v; without: %v\ntemplate:\n%s\nvalues: %#v", i, errOn, errOff, cm, values)
		case errOn != nil && errOn.Error() != errOff.Error():
			t.Errorf("case %d: with the memo: %v\nwithout: %v\ntemplate:\n%s\nvalues: %#v", i, errOn, errOff, cm, values)
		case errOn == nil && !reflect.DeepEqual(on.Objects, off.Objects):
			t.Errorf("case %d: with the memo: %v\nwithout: %v\ntemplate:\n%s\nvalues: %#v", i, on.Objects, off.Objects, cm, values)
		}
	}
	t.Logf("%d cases, %d refused without the memo, %d took outputs from the memo (%d outputs)", n, refused, hitCases, render.IncludeMemoHits()-hits0)
	if hitCases < n/4 || refused < n/10 || refused > n*9/10 {
		t.Errorf("%d of %d cases used the memo and %d were refused: the cases do not test the memo", hitCases, n, refused)
	}
}

func pick(rng *rand.Rand, s ...string) string { return s[rng.Intn(len(s))] }
