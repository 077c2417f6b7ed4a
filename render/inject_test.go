package render_test

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// finalizer is issue 7's inline toYaml value: it adds a finalizer and an annotation.
const finalizer = "finalizers:\n- example.com/block\nannotations:\n  injected: \"yes\""

// TestInjectionWhateverTheTemplateDoes: a tenant string passed through any function still
// cannot add a document or a field; the render fails naming the policy and the value's path.
// Each of these got past the check that followed only verbatim, trimmed, lowered and upper-cased
// strings.
func TestInjectionWhateverTheTemplateDoes(t *testing.T) {
	doc := "x\n---\n" + crb // adds a ClusterRoleBinding document
	tilde := strings.ReplaceAll(doc, "\n", "~")
	tests := []struct {
		name, line, value string
	}{
		{"trunc", fmt.Sprintf("k: {{ .Values.v | trunc %d }}", len(doc)), doc + "~tail"},
		{"replace", `k: {{ .Values.v | replace "~" "\n" }}`, tilde},
		{"regexReplaceAll", `k: {{ regexReplaceAll "~" .Values.v "\n" }}`, tilde},
		{"substr", `k: {{ substr 1 1000 .Values.v }}`, "_" + doc},
		{"abbrev", fmt.Sprintf("k: {{ abbrev %d .Values.v }}", len(doc)+3), doc + "~tail"},
		{"trimSuffix", `k: {{ .Values.v | trimSuffix ".end" }}`, doc + ".end"},
		{"splitList first", `k: {{ splitList "," .Values.v | first }}`, doc + ",rest"},
		{"indent", `k: {{ .Values.v | indent 1 }}`, "x\n injected: yes"},
		{"nindent", `k: {{ .Values.v | nindent 4 }}`, "x\ninjected: yes"},
		{"inline toYaml", `k: {{ toYaml .Values.v }}`, finalizer},
		{"b64dec", `k: {{ .Values.v | b64dec }}`, base64.StdEncoding.EncodeToString([]byte(doc))},
		{"tpl", `k: {{ tpl .Values.v . }}`, "x{{ \"\\n\" }}---{{ \"\\n\" }}" + strings.ReplaceAll(crb, "\n", "{{ \"\\n\" }}")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			template := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n    app: web\ndata:\n  " + tt.line + "\n"
			spec := gatewaySpec(map[string]string{"t": template})
			// Even a blueprint allowed to produce ClusterRoleBindings gets none from a tenant.
			spec.ClusterScopedKinds = []v1alpha1.GroupKind{{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}}
			b := mustCompile(t, spec)
			values := map[string]any{"v": tt.value}
			in := input(values)
			in.Tainted = boundary.TaintedStrings(values, tenant)
			out, err := b.RenderGateway(in)
			if err == nil {
				t.Fatalf("RenderGateway = %v, want an error naming %s", out.Objects, tenant("v"))
			}
			var e *render.Error
			if !asError(err, &e) || e.Origin != tenant("v") || e.Template != "gatewayTemplate.resourceTemplates.t" {
				t.Fatalf("error %v, want one naming the template and %s", err, tenant("v"))
			}
			// tpl on a tenant string that brings actions is refused for the code itself, before it runs.
			if !strings.Contains(e.Msg, "changed the YAML structure") && !strings.Contains(e.Msg, "not valid YAML once this value is inserted") &&
				!(tt.name == "tpl" && strings.Contains(e.Msg, "refused to run this text: it holds template code")) {
				t.Errorf("error %v, want it to say the value changed the structure", err)
			}
		})
	}
}

func asError(err error, e **render.Error) bool {
	for err != nil {
		if x, ok := err.(*render.Error); ok {
			*e = x
			return true
		}
		u, ok := err.(interface{ Unwrap() []error })
		if !ok || len(u.Unwrap()) != 1 {
			return false
		}
		err = u.Unwrap()[0]
	}
	return false
}

// TestInlineToYamlAddsNoFinalizer: issue 7's exact input, with the exact error.
func TestInlineToYamlAddsNoFinalizer(t *testing.T) {
	template := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n    l: {{ toYaml .Values.v }}\n"
	b := mustCompile(t, gatewaySpec(map[string]string{"t": template}))
	values := map[string]any{"v": finalizer}
	in := input(values)
	in.Tainted = boundary.TaintedStrings(values, tenant)
	_, err := b.RenderGateway(in)
	if want := changed("t", tenant("v")); err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

// TestConditionalsOnTenantValues: branching on a tenant value is not a change of structure,
// though the branches render different structures.
func TestConditionalsOnTenantValues(t *testing.T) {
	tests := []struct{ name, line string }{
		{"if eq", `{{ if eq .Values.tier "premium" }}extra: {a: "1"}{{ else }}extra: none{{ end }}`},
		{"if not eq", `{{ if ne .Values.tier "premium" }}extra: none{{ else }}extra: {a: "1"}{{ end }}`},
		{"else if", `{{ if eq .Values.tier "basic" }}extra: none{{ else if eq .Values.tier "premium" }}extra: {a: "1"}{{ else }}extra: []{{ end }}`},
		{"with", `{{ with eq .Values.tier "premium" }}extra: {a: "1"}{{ else }}extra: none{{ end }}`},
		{"if with a variable", `{{ if $p := eq .Values.tier "premium" }}extra: {a: "{{ if $p }}1{{ end }}"}{{ end }}`},
		{"if in a loop", `extra: {{ range $i, $e := list 1 }}{{ if eq $.Values.tier "premium" }}{a: "1"}{{ else }}x{{ end }}{{ end }}`},
		{"ternary", `extra: {a: {{ ternary "\"1\"" "\"2\"" (eq .Values.tier "premium") }}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("a", tt.line)}))
			values := map[string]any{"tier": "premium"}
			in := input(values)
			in.Tainted = boundary.TaintedStrings(values, tenant)
			out, err := b.RenderGateway(in)
			if err != nil {
				t.Fatalf("RenderGateway: %v", err)
			}
			want := []render.Object{{Template: "t", Object: cm("a", map[string]any{"extra": map[string]any{"a": "1"}})}}
			if !reflect.DeepEqual(out.Objects, want) {
				t.Errorf("objects =\n%v\nwant\n%v", out.Objects, want)
			}
		})
	}
}

// TestTenantListsAndSplitStrings: a list split from a tenant string is checked as a tenant's
// list is: as many parts as the tenant gave, each tenant content (B cuts what its stand-ins
// stand for; boundary countedSplit). Until 2026-11-27 the split was refused: B's stand-in did
// not split, and the check saw one key where A had two. A part that carries an injection is
// refused (TestSplitCannotCarryAnInjection).
func TestTenantListsAndSplitStrings(t *testing.T) {
	want := []render.Object{{Template: "t", Object: cm("a", map[string]any{"a": "1", "b": "1"})}}
	for name, c := range map[string]struct {
		line   string
		values map[string]any
	}{
		"split": {`{{- range splitList "," .Values.hosts }}`, map[string]any{"hosts": "a,b"}},
		"list":  {`{{- range .Values.hosts }}`, map[string]any{"hosts": []any{"a", "b"}}},
	} {
		t.Run(name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("a", c.line, `  {{ . }}: "1"`, `{{- end }}`)}))
			in := input(c.values)
			in.Tainted = boundary.TaintedStrings(c.values, tenant)
			out, err := b.RenderGateway(in)
			if err != nil {
				t.Fatalf("RenderGateway: %v", err)
			}
			if !reflect.DeepEqual(out.Objects, want) {
				t.Errorf("objects =\n%v\nwant\n%v", out.Objects, want)
			}
		})
	}
}

// TestTenantKeyEqualToATemplateString: a tenant key that equals a string the template spells
// out is still checked when it is not a plain word.
func TestTenantKeyEqualToATemplateString(t *testing.T) {
	template := configMap("a", `{{- range $k, $v := .Values.labels }}`, `  {{ $k }}: {{ $v | replace "~" "\n" | quote }}`, `{{- end }}`)
	b := mustCompile(t, gatewaySpec(map[string]string{"t": template}))
	values := map[string]any{"labels": map[string]any{"\n": "1"}}
	in := input(values)
	in.Tainted = boundary.TaintedStrings(values, tenant)
	if _, err := b.RenderGateway(in); err == nil || !strings.Contains(err.Error(), tenant("labels.\n")+" (a key)") {
		t.Errorf("error %v, want one naming the key", err)
	}
}

// TestTenantTemplateCode: a blueprint that passes a tenant string to tpl would run the tenant's
// template code with the render's whole context. Without changing the output's structure, that
// reads what the tenant must not see (a platform value) or chooses which value to read. The
// template text tpl runs may hold tenant strings only as text: an action, a field name or a
// function that a tenant string brings is refused, naming the value.
func TestTenantTemplateCode(t *testing.T) {
	const (
		run    = `{{ tpl .Values.v . | quote }}`                             // the tenant string is the template
		choose = `{{ tpl (printf "{{ .Values.%s }}" .Values.v) . | quote }}` // it names the value read
	)
	for _, tt := range []struct {
		name, line, value string
		refused           bool
	}{
		{"reads a platform value", run, "{{ .Values.platformSecret }}", true},
		{"calls a function", run, `{{ "x" | sha256sum }}`, true},
		{"chooses the value read", choose, "platformSecret", true},
		{"plain text", run, "plain words, {not} an action", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"t": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: " + tt.line + "\n"}))
			in := input(map[string]any{"v": tt.value, "platformSecret": "s3cr3t"})
			in.Tainted = boundary.TaintedStrings(map[string]any{"v": tt.value}, tenant)
			out, err := b.RenderGateway(in)
			if !tt.refused {
				if err != nil {
					t.Fatalf("RenderGateway: %v", err)
				}
				if got := out.Objects[0].Object["data"].(map[string]any)["k"]; got != tt.value {
					t.Errorf("k = %q, want the text as is", got)
				}
				return
			}
			if err == nil {
				t.Fatalf("RenderGateway = %v, want an error naming %s", out.Objects[0].Object["data"], tenant("v"))
			}
			var e *render.Error
			if !asError(err, &e) || e.Origin != tenant("v") || e.Template != "gatewayTemplate.resourceTemplates.t" {
				t.Fatalf("error %v, want one naming the template and %s", err, tenant("v"))
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("error %v shows the platform value", err)
			}
		})
	}
}

// TestConditionalInARememberedInclude: a template that waits for a live object (pending)
// renders an include with a conditional on a tenant value before it stops; the next template
// gets that include's output remembered. The structure check's second render must take the
// same branch there too, or a conditional looks like a change of structure. Each template
// order is tried: the waiting one first and last.
func TestConditionalInARememberedInclude(t *testing.T) {
	helpers := `{{ define "extra" }}{{ if eq .Values.tier "premium" }}extra: "yes"{{ end }}{{ end }}`
	waits := `{{ $x := include "extra" . }}{{ (index .Resources.zlive 0).status.ready }}`
	uses := configMap("a", `{{- include "extra" . | nindent 2 }}`)
	for _, names := range [][2]string{{"a-waits", "b-uses"}, {"z-waits", "b-uses"}} {
		t.Run(names[0], func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"_helpers": helpers, names[0]: waits, names[1]: uses, "zlive": configMap("live")}))
			values := map[string]any{"tier": "premium"}
			in := input(values)
			in.Tainted = boundary.TaintedStrings(values, tenant)
			out, err := b.RenderGateway(in)
			if err != nil {
				t.Fatalf("RenderGateway: %v", err)
			}
			if len(out.Pending) != 1 || out.Pending[0].Template != "gatewayTemplate.resourceTemplates."+names[0] {
				t.Errorf("pending = %v, want %s waiting", out.Pending, names[0])
			}
			want := cm("a", map[string]any{"extra": "yes"})
			if len(out.Objects) == 0 || !reflect.DeepEqual(out.Objects[0].Object, want) {
				t.Errorf("objects = %v, want first %v", out.Objects, want)
			}
		})
	}
}

// TestInjectionThroughARememberedInclude: an include of a dict that holds a tenant value is
// remembered in both renders of the structure check; a value that changes the structure
// through it is still caught, at the first call and at the remembered one.
func TestInjectionThroughARememberedInclude(t *testing.T) {
	helpers := `{{ define "label" }}{{ .name | replace "~" "\n" }}{{ end }}`
	for name, line := range map[string]string{
		"first call":      `k: {{ include "label" (dict "name" .Values.v "max" 63) }}`,
		"remembered call": `k: {{ $_ := include "label" (dict "name" .Values.v "max" 63) }}{{ include "label" (dict "name" .Values.v "max" 63) }}`,
	} {
		t.Run(name, func(t *testing.T) {
			b := mustCompile(t, gatewaySpec(map[string]string{"_helpers": helpers, "t": configMap("a", line)}))
			values := map[string]any{"v": "x~  extra: injected"}
			in := input(values)
			in.Tainted = boundary.TaintedStrings(values, tenant)
			out, err := b.RenderGateway(in)
			var e *render.Error
			if err == nil || !asError(err, &e) || e.Origin != tenant("v") {
				t.Fatalf("RenderGateway = %v, %v; want an error naming %s", out, err, tenant("v"))
			}
		})
	}
}
