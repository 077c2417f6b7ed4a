package render_test

import (
	"reflect"
	"strings"
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// tenant names values as desired does: the GatewayConfig and the path.
func tenant(p string) string { return "GatewayConfig team-a/tenant value " + p }

// changed is the error for a tenant value that changed the YAML structure of a template's
// output.
func changed(template, origin string) string {
	return "blueprint bp: gatewayTemplate.resourceTemplates." + template + ": " + origin +
		": this value changed the YAML structure of the output (it would add documents or fields); the template must quote it, e.g. `| quote`, or use toYaml"
}

// TestTaintedStrings: every non-empty string and key counts, however harmless it looks (b64dec
// turns a harmless one into anything), and so does every number and bool (an indentation, a
// branch).
func TestTaintedStrings(t *testing.T) {
	values := map[string]any{
		"name": "web",
		"a":    map[string]any{"b": "x: y", "c": "", "d": int64(3), "e": false},
		"l":    []any{"ok", map[string]any{"m": "#c"}},
		"enc":  "LSBmb28=",
		"":     "empty key",
	}
	got := boundary.TaintedStrings(values, tenant)
	want := []boundary.Tainted{
		{Value: "empty key", Origin: tenant("")},
		{Value: "a", Origin: tenant("a") + " (a key)"},
		{Value: "b", Origin: tenant("a.b") + " (a key)"},
		{Value: "x: y", Origin: tenant("a.b")},
		{Value: "c", Origin: tenant("a.c") + " (a key)"},
		{Value: "d", Origin: tenant("a.d") + " (a key)"},
		{Value: "3", Origin: tenant("a.d"), Scalar: int64(3)},
		{Value: "e", Origin: tenant("a.e") + " (a key)"},
		{Value: "false", Origin: tenant("a.e"), Scalar: false},
		{Value: "enc", Origin: tenant("enc") + " (a key)"},
		{Value: "LSBmb28=", Origin: tenant("enc")},
		{Value: "l", Origin: tenant("l") + " (a key)"},
		{Value: "ok", Origin: tenant("l[0]")},
		{Value: "m", Origin: tenant("l[1].m") + " (a key)"},
		{Value: "#c", Origin: tenant("l[1].m")},
		{Value: "name", Origin: tenant("name") + " (a key)"},
		{Value: "web", Origin: tenant("name")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("TaintedStrings =\n%q\nwant\n%q", got, want)
	}
}

const crb = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: pwned\n" +
	"roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: cluster-admin\n" +
	"subjects:\n- kind: ServiceAccount\n  name: default\n  namespace: team-a"

// deployment is a Deployment template with a tenant annotation and the given lines in its
// pod spec (indent 6).
func deployment(podSpec ...string) string {
	var b strings.Builder
	b.WriteString("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    note: {{ .Values.note | quote }}\n")
	b.WriteString("spec:\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n")
	for _, l := range podSpec {
		b.WriteString("      " + l + "\n")
	}
	return b.String()
}

// TestInjection: tenant strings used unquoted never add an object or a field; the render fails
// naming the value.
func TestInjection(t *testing.T) {
	tests := []struct {
		name     string
		template string
		values   map[string]any
		want     string
	}{{
		name:     "newline and --- add a ClusterRoleBinding",
		template: deployment("serviceAccountName: {{ .Values.sa }}"),
		values:   map[string]any{"sa": "x\n---\n" + crb},
		want:     changed("t", tenant("sa")),
	}, {
		name:     "newline and --- with a comment add a document",
		template: deployment("serviceAccountName: {{ .Values.sa }}"),
		values:   map[string]any{"sa": "x\n--- # more\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s"},
		want:     changed("t", tenant("sa")),
	}, {
		name:     "newline and indentation add a field to the pod template",
		template: deployment("serviceAccountName: {{ .Values.sa }}"),
		values:   map[string]any{"sa": "x\n    hostNetwork: true"},
		want:     changed("t", tenant("sa")),
	}, {
		name:     "newline and indentation add a field to the pod spec",
		template: deployment("serviceAccountName: {{ .Values.sa }}", "containers: []"),
		values:   map[string]any{"sa": "x\n      hostNetwork: true"},
		want:     changed("t", tenant("sa")),
	}, {
		name:     "line separator adds a field",
		template: deployment("serviceAccountName: {{ .Values.sa }}"),
		values:   map[string]any{"sa": "x\u2028      hostNetwork:\u2028        true"},
		want:     changed("t", tenant("sa")),
	}, {
		name:     "next line adds a field",
		template: deployment("serviceAccountName: {{ .Values.sa }}"),
		values:   map[string]any{"sa": "x\u0085      hostNetwork: true"},
		want:     changed("t", tenant("sa")),
	}, {
		name:     "flow map turns a string into an object",
		template: deployment("serviceAccountName: {{ .Values.sa }}"),
		values:   map[string]any{"sa": "{hostNetwork: true}"},
		want:     changed("t", tenant("sa")),
	}, {
		name:     "flow sequence turns a string into a list",
		template: deployment("serviceAccountName: {{ .Values.sa }}"),
		values:   map[string]any{"sa": "[a, b]"},
		want:     changed("t", tenant("sa")),
	}, {
		name:     "comment cuts off the rest of the line",
		template: deployment("containers:", "- name: proxy", "  command: /bin/proxy --listen={{ .Values.listen }} --admin=false"),
		values:   map[string]any{"listen": "0.0.0.0 #"},
		want:     changed("t", tenant("listen")),
	}, {
		name: "key adds a label",
		template: deployment("containers: []") + "  selector:\n    matchLabels:\n" +
			"    {{- range $k, $v := .Values.labels }}\n      {{ $k }}: {{ $v | quote }}\n    {{- end }}\n",
		values: map[string]any{"labels": map[string]any{"app: web\n      tier": "x"}},
		want:   changed("t", tenant("labels.app: web\n      tier")+" (a key)"),
	}, {
		name:     "list item adds an argument",
		template: deployment("containers:", "- name: proxy", "  args:", "  - {{ .Values.arg }}"),
		values:   map[string]any{"arg": "--verbose\n        - --admin-listen=0.0.0.0"},
		want:     changed("t", tenant("arg")),
	}, {
		name:     "list item adds an argument through a line separator",
		template: deployment("containers:", "- name: proxy", "  args:", "  - {{ .Values.arg }}"),
		values:   map[string]any{"arg": "run\u2028        - --admin-listen=0.0.0.0"},
		want:     changed("t", tenant("arg")),
	}, {
		name:     "single quotes do not escape",
		template: deployment("serviceAccountName: {{ .Values.sa | squote }}"),
		values:   map[string]any{"sa": "x'\n      hostNetwork: true\n      y: 'z"},
		want:     changed("t", tenant("sa")),
	}, {
		name:     "the same text quoted elsewhere does not hide it",
		template: deployment("serviceAccountName: {{ .Values.sa }}"),
		values:   map[string]any{"note": "see x\n    hostNetwork: true", "sa": "x\n    hostNetwork: true"},
		want:     changed("t", tenant("sa")),
	}, {
		name:     "anchor and alias",
		template: deployment("serviceAccountName: {{ .Values.sa }}", "containers: []"),
		values:   map[string]any{"sa": "&a x\n      automountServiceAccountToken: *a"},
		want:     changed("t", tenant("sa")),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := gatewaySpec(map[string]string{"t": tt.template})
			// Even a blueprint allowed to produce ClusterRoleBindings gets none from a tenant.
			spec.ClusterScopedKinds = []v1alpha1.GroupKind{{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}}
			b := mustCompile(t, spec)
			values := map[string]any{"note": ""}
			for k, v := range tt.values {
				values[k] = v
			}
			in := input(values)
			in.Tainted = boundary.TaintedStrings(values, tenant)
			out, err := b.RenderGateway(in)
			if err == nil {
				t.Fatalf("RenderGateway = %v, want error %q", out.Objects, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %q\nwant %q", err, tt.want)
			}
		})
	}
}

// TestInjectionInvalidYAML: a value that breaks the YAML fails the render naming the value.
func TestInjectionInvalidYAML(t *testing.T) {
	b := mustCompile(t, gatewaySpec(map[string]string{"t": deployment("serviceAccountName: {{ .Values.sa }}")}))
	values := map[string]any{"note": "", "sa": "x\n  - y: ["}
	in := input(values)
	in.Tainted = boundary.TaintedStrings(values, tenant)
	_, err := b.RenderGateway(in)
	prefix := "blueprint bp: gatewayTemplate.resourceTemplates.t: document 1: " + tenant("sa") + ": output is not valid YAML once this value is inserted ("
	suffix := "); the template must quote it, e.g. `| quote`"
	if err == nil || !strings.HasPrefix(err.Error(), prefix) || !strings.HasSuffix(err.Error(), suffix) {
		t.Errorf("error %v, want %q...%q", err, prefix, suffix)
	}
}

// TestInjectionThroughObjects: Gateway and HTTPRoute fields are tenant data too.
func TestInjectionThroughObjects(t *testing.T) {
	template := deployment(`serviceAccountName: {{ index .Gateway.metadata.annotations "gantry.dev/sa" }}`)
	b := mustCompile(t, gatewaySpec(map[string]string{"t": template}))
	in := input(map[string]any{"note": ""})
	in.Gateway["metadata"].(map[string]any)["annotations"] = map[string]any{"gantry.dev/sa": "x\n    hostNetwork: true"}
	in.Tainted = boundary.TaintedStrings(in.Gateway, func(p string) string { return "Gateway team-a/web field " + p })
	_, err := b.RenderGateway(in)
	if want := changed("t", "Gateway team-a/web field metadata.annotations.gantry.dev/sa"); err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

// TestInjectionIntoStatus: the status template's output is checked the same way.
func TestInjectionIntoStatus(t *testing.T) {
	spec := gatewaySpec(nil)
	spec.GatewayTemplate.Status = &v1alpha1.StatusTemplate{Template: "addresses:\n- value: {{ .Values.ip }}\n"}
	b := mustCompile(t, spec)
	values := map[string]any{"ip": "192.0.2.1\n- value: 203.0.113.66"}
	in := input(values)
	in.Tainted = boundary.TaintedStrings(values, tenant)
	_, err := b.RenderGateway(in)
	want := "blueprint bp: gatewayTemplate.status.template: " + tenant("ip") + ": this value changed the YAML structure of the status; the template must quote it"
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

// TestTenantStringsAsData: the same values, quoted, as JSON or through toYaml, render as
// exactly the literal string; harmless ones render literally even unquoted.
func TestTenantStringsAsData(t *testing.T) {
	attacks := []string{
		"x\n---\n" + crb,
		"x\n--- # more\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s",
		"x\n    hostNetwork: true",
		"x\u2028      hostNetwork: true",
		"x\u2028      hostNetwork:\u2028        true",
		"run\u2028        - --admin-listen=0.0.0.0",
		"x\u0085      hostNetwork: true",
		"x\u2029y",
		"{hostNetwork: true}",
		"[a, b]",
		"0.0.0.0 #",
		"app: web\n      tier",
		"--verbose\n        - --admin-listen=0.0.0.0",
		"x'\n      hostNetwork: true\n      y: 'z",
		`x"\n  y: "z`,
		"&a x\n automountServiceAccountToken: *a",
		"...",
		"- item",
		"!!binary aGk=",
		"%TAG ! tag:example.com,2000:",
		"  leading and trailing  ",
		"tab\there",
	}
	quoted := []string{`quoted: {{ .Values.v | quote }}`, `json: {{ toJson .Values.v }}`}
	b := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("a", quoted...)}))
	withYAML := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("a", append(quoted, `{{- toYaml (dict "yaml" .Values.v) | nindent 2 }}`)...)}))
	for _, v := range attacks {
		t.Run(v, func(t *testing.T) {
			values := map[string]any{"v": v}
			in := input(values)
			in.Tainted = boundary.TaintedStrings(values, tenant)
			if len(in.Tainted) != 2 {
				t.Fatalf("TaintedStrings(%q) = %q, want the key and the value", v, in.Tainted)
			}
			data := map[string]any{"quoted": v, "json": v}
			bp := b
			// The YAML encoder treats NEL, LS and PS as line breaks and folds them; the value
			// stays one string, but not this one, so toYaml is checked on the others only.
			if !strings.ContainsAny(v, "\u0085\u2028\u2029") {
				data["yaml"], bp = v, withYAML
			}
			out, err := bp.RenderGateway(in)
			if err != nil {
				t.Fatalf("RenderGateway: %v", err)
			}
			want := []render.Object{{Template: "t", Object: cm("a", data)}}
			if !reflect.DeepEqual(out.Objects, want) {
				t.Errorf("objects =\n%q\nwant\n%q", out.Objects, want)
			}
		})
	}

	harmless := []string{"a,b", "50%", "x!", "user@example.com", "a:b", "key=value", "*"}
	unquoted := mustCompile(t, gatewaySpec(map[string]string{"t": configMap("a", `v: x-{{ .Values.v }}`)}))
	for _, v := range harmless {
		t.Run("unquoted "+v, func(t *testing.T) {
			values := map[string]any{"v": v}
			in := input(values)
			in.Tainted = boundary.TaintedStrings(values, tenant)
			out, err := unquoted.RenderGateway(in)
			if err != nil {
				t.Fatalf("RenderGateway: %v", err)
			}
			want := []render.Object{{Template: "t", Object: cm("a", map[string]any{"v": "x-" + v})}}
			if !reflect.DeepEqual(out.Objects, want) {
				t.Errorf("objects =\n%q\nwant\n%q", out.Objects, want)
			}
		})
	}
}

// TestTransformedInjection: the forms trim, lower and upper give a tenant value are checked as
// the value itself is.
func TestTransformedInjection(t *testing.T) {
	for _, fn := range []string{"trim", "lower", "upper"} {
		t.Run(fn, func(t *testing.T) {
			spec := &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{
				"cm": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  sa: {{ .Values.sa | " + fn + " }}\n",
			}}}
			bp, err := render.Compile("bp", spec)
			if err != nil {
				t.Fatal(err)
			}
			value := "  x\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: pwned\n  "
			values := map[string]any{"sa": value}
			_, err = bp.RenderGateway(&render.Input{Values: values, Gateway: map[string]any{}, Namespace: "ns",
				Tainted: boundary.TaintedStrings(values, func(p string) string { return "GatewayConfig ns/web value " + p })})
			if err == nil || !strings.Contains(err.Error(), "GatewayConfig ns/web value sa") {
				t.Fatalf("%s of an injected value: err = %v, want an error naming the GatewayConfig value", fn, err)
			}
		})
	}
}
