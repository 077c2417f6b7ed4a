package render_test

import (
	"fmt"
	"reflect"
	"testing"

	"gantry.dev/gantry/boundary"
)

// Review attacks on 8.1: unusual line breaks, BOMs, tabs, CR, backslashes through ordinary
// insertion forms. Oracle: text/template+sprig+yaml/v3 (ipExecute, ipParse, ipJSON from
// identity_property_test.go), no Gantry code. If Gantry renders, the template's keys must be
// as written, the tenant's key must hold a string, and Gantry's object must equal yaml/v3's
// reading of the same text.
func TestReviewOddLineBreaks(t *testing.T) {
	forms := map[string]string{
		"quote":          `v: {{ .Values.v | quote }}`,
		"squote":         `v: {{ .Values.v | squote }}`,
		"toJson":         `v: {{ .Values.v | toJson }}`,
		"hand-dquote":    `v: "{{ .Values.v }}"`,
		"block-nindent":  "v: |\n    {{- .Values.v | nindent 4 }}",
		"toYaml-nindent": "v:\n    {{- toYaml .Values.v | nindent 4 }}",
		"plain":          `v: {{ .Values.v }}`,
		"printf-q":       `v: {{ printf "%q" .Values.v }}`,
		"key-quote":      `{{ .Values.v | quote }}: x`,
		"replace-quote":  `v: {{ .Values.v | replace "-" "_" | quote }}`,
		"trunc-quote":    `v: {{ .Values.v | trunc 20 | quote }}`,
	}
	values := []string{
		"x\u2028owner: tenant", "x\u2029owner: tenant", "x\u0085owner: tenant",
		"\ufeffowner: tenant", "x\ufeff\nowner: tenant", "x\rowner: tenant", "x\r\nowner: tenant",
		"x\n\towner: tenant", "\tx", "x\t#c", "x\\", "x\\\"\nowner: tenant", "\u00a0owner: tenant",
		"x\n  owner: tenant", "x\n\u2028  owner: tenant", "a\u2028\u2028owner: tenant",
		"x\"\n  owner: tenant\n  y: \"", "x\\u2028", "x\x00y", "\x1b[31m", "x\u200b#y", "x #\u2028owner: tenant",
	}
	for fname, form := range forms {
		for i, v := range values {
			t.Run(fmt.Sprintf("%s/%d", fname, i), func(t *testing.T) {
				tmpl := configMap("cm", "owner: platform", form, "after: platform")
				b := mustCompile(t, gatewaySpec(map[string]string{"t": tmpl}))
				vals := map[string]any{"v": v}
				in := input(vals)
				in.Tainted = boundary.TaintedStrings(vals, tenant)
				out, err := b.RenderGateway(in)
				if err != nil {
					return // refused: held
				}
				data, _ := out.Objects[0].Object["data"].(map[string]any)
				if data["owner"] != "platform" || data["after"] != "platform" {
					t.Errorf("BROKE: %q via %s: template keys changed: %#v", v, fname, data)
				}
				for k, x := range data {
					if k == "owner" || k == "after" {
						continue
					}
					if _, ok := x.(string); !ok {
						t.Errorf("BROKE: %q via %s: tenant node %q is %T", v, fname, k, x)
					}
				}
				if len(data) != 3 {
					t.Errorf("BROKE: %q via %s: %d keys: %#v", v, fname, len(data), data)
				}
				text, err := ipExecute(tmpl, vals)
				if err != nil {
					t.Fatalf("oracle render: %v", err)
				}
				n, err := ipParse(text)
				if err != nil {
					t.Errorf("BROKE?: Gantry rendered %#v but yaml/v3 refuses the text: %v\n%q", data, err, text)
					return
				}
				obj, ok := ipJSON(n)
				if !ok {
					t.Errorf("BROKE?: yaml/v3 reads anchors/merges/odd keys Gantry accepted: %q", text)
					return
				}
				want := obj.(map[string]any)["data"]
				if !reflect.DeepEqual(want, any(data)) && data["v"] != v {
					t.Errorf("BROKE: %q via %s: Gantry's data %#v, yaml/v3 reads %#v\n%q", v, fname, data, want, text)
				}
			})
		}
	}
}
