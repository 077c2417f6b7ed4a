package render

import (
	"strings"
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/boundary"
)

func configMapBlueprint(t *testing.T, data string) *Blueprint {
	t.Helper()
	b, err := Compile("bp", &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{
		"cm": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Gateway.metadata.name }}\ndata:\n" + data,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tenantInput is a Gateway named name whose values (all tenant strings) are values.
func tenantInput(name string, values map[string]any) *Input {
	gw := map[string]any{"metadata": map[string]any{"name": name, "namespace": "team-a"}}
	in := &Input{Values: values, Gateway: gw, Namespace: "team-a"}
	in.Tainted = append(boundary.TaintedStrings(values, func(p string) string { return "GatewayConfig team-a/p value " + p }),
		boundary.TaintedStrings(gw, func(p string) string { return "Gateway team-a/" + name + " field " + p })...)
	return in
}

// countRenders renders in and returns how many times the structure check rendered B.
func countRenders(t *testing.T, b *Blueprint, in *Input) (int, error) {
	t.Helper()
	renders := -1
	checked = func(r, _ int) { renders = r }
	defer func() { checked = nil }()
	_, err := b.RenderGateway(in)
	return renders, err
}

// TestRememberedCheckStillCatchesInjection: the attack meets B's output from memory. A benign
// render leaves B's output for an input of one shape; a tenant then puts an injecting string
// where the benign one was (the same shape: one tenant value, at the same place, in the same
// sorted order among the tenant strings, which numbers the placeholders). B is not rendered
// again, and the render must still fail, naming the value.
func TestRememberedCheckStillCatchesInjection(t *testing.T) {
	doc := "x\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: pwn"
	for _, tt := range []struct{ name, line, benign, attack string }{
		{"inline toYaml", "  k: {{ toYaml .Values.v }}\n", "f", "finalizers:\n- example.com/block"},
		// A value transformed past recognition: B and C differ there, so it is the tenant's.
		// (b64dec was here: it turns both placeholders into one error text, so since issue 19
		// a decoded tenant value printed unquoted is refused, benign or not.)
		{"upper", "  k: {{ .Values.v | upper }}\n", "xy", doc},
		{"replace", "  k: {{ .Values.v | replace \"~\" \"\\n\" }}\n", "x", strings.ReplaceAll(doc, "\n", "~")},
		{"nindent", "  k: {{ .Values.v | nindent 4 }}\n", "x", "x\ninjected: yes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := configMapBlueprint(t, tt.line)
			if r, err := countRenders(t, b, tenantInput("web", map[string]any{"v": tt.benign})); err != nil || r != 1 {
				t.Fatalf("benign render: B rendered %d times, error %v; want once, no error", r, err)
			}
			r, err := countRenders(t, b, tenantInput("web", map[string]any{"v": tt.attack}))
			if r != 0 {
				t.Fatalf("B rendered %d times for an input of the same shape; want 0 (taken from memory), or this test proves nothing", r)
			}
			if err == nil || !strings.Contains(err.Error(), "GatewayConfig team-a/p value v") {
				t.Fatalf("attack with B from memory: error %v, want one naming GatewayConfig team-a/p value v", err)
			}
		})
	}
}

// TestRememberedCheckFollowsDecisions: B replays A's decisions, so they are part of what B's
// output is remembered by. Two renders with the same data shape but a conditional on a tenant
// value that goes the other way must each compare with a B that took their branch: with only
// the data in the key, the second would meet the first's B and fail as an injection.
func TestRememberedCheckFollowsDecisions(t *testing.T) {
	b := configMapBlueprint(t, "  tier: {{ .Values.tier | quote }}\n{{- if eq .Values.tier \"premium\" }}\n  extra: \"yes\"\n  more: \"yes\"\n{{- end }}\n")
	// "plain" and "premium" sort at the same place among the tenant strings: the same B data.
	for _, tier := range []string{"plain", "premium", "plain"} {
		if _, err := countRenders(t, b, tenantInput("web", map[string]any{"tier": tier})); err != nil {
			t.Fatalf("tier %s: %v", tier, err)
		}
	}
	// Another Gateway whose name sorts where "web" does among the tenant strings.
	if r, _ := countRenders(t, b, tenantInput("wez", map[string]any{"tier": "premium"})); r != 0 {
		t.Errorf("a second premium Gateway rendered B %d times, want 0 (remembered)", r)
	}
}

// TestRememberedCheckIsSharedByShape: Gateways that differ only in the content of tenant strings
// (names, values), not in their sorted order, share B's output; a Gateway whose data differs in shape, a platform (not
// tenant) value, or another compile of the blueprint renders B afresh.
func TestRememberedCheckIsSharedByShape(t *testing.T) {
	data := "  k: {{ .Values.v | quote }}\n  n: {{ .Values.n | quote }}\n"
	b := configMapBlueprint(t, data)
	first := tenantInput("web", map[string]any{"v": "a", "n": 1})
	if r, err := countRenders(t, b, first); err != nil || r != 1 {
		t.Fatalf("first render: B rendered %d times, error %v", r, err)
	}
	for _, tt := range []struct {
		name string
		b    *Blueprint
		in   *Input
		want int
	}{
		{"another name and value", b, tenantInput("www", map[string]any{"v": "b", "n": 1}), 0},
		// A tenant number is a placeholder in B, as a string is: its value is not B's input.
		{"another number", b, tenantInput("web", map[string]any{"v": "a", "n": 2}), 0},
		{"a string for the number", b, tenantInput("web", map[string]any{"v": "a", "n": "2"}), 1},
		{"another key", b, tenantInput("web", map[string]any{"v": "a", "n": 1, "w": "c"}), 1},
		{"another compile", configMapBlueprint(t, data), tenantInput("web", map[string]any{"v": "a", "n": 1}), 1},
	} {
		if r, err := countRenders(t, tt.b, tt.in); err != nil || r != tt.want {
			t.Errorf("%s: B rendered %d times (error %v), want %d", tt.name, r, err, tt.want)
		}
	}
	// A platform value is not a tenant string: it is B's input as it is.
	platform := tenantInput("web", map[string]any{"v": "a", "n": 1})
	platform.Values["p"] = "platform"
	if r, _ := countRenders(t, b, platform); r != 1 {
		t.Errorf("a new platform value: B rendered %d times, want 1", r)
	}
	platform.Values["p"] = "other"
	if r, _ := countRenders(t, b, platform); r != 1 {
		t.Errorf("another platform value: B rendered %d times, want 1", r)
	}
}

// TestCheckMemoryOff: with the memory off, every render renders B.
func TestCheckMemoryOff(t *testing.T) {
	boundary.SetMemory(0)
	defer boundary.SetMemory(boundary.DefaultMemory)
	b := configMapBlueprint(t, "  k: {{ .Values.v | quote }}\n")
	for range 2 {
		if r, err := countRenders(t, b, tenantInput("web", map[string]any{"v": "a"})); err != nil || r != 1 {
			t.Fatalf("B rendered %d times (error %v), want 1", r, err)
		}
	}
}

// TestSplitChecksAreRememberedByTheirParts: B's parts of a split tenant string are A's record
// (how many, which are equal), so B's output is remembered by them with its input. Hosts of
// one pattern of parts meet the remembered B, and an injecting part among them is still
// refused; another pattern ("c,c": two equal parts) renders B itself.
func TestSplitChecksAreRememberedByTheirParts(t *testing.T) {
	b := configMapBlueprint(t, "{{- range splitList \",\" .Values.hosts }}\n  {{ . }}: \"1\"\n{{- end }}\n")
	for _, c := range []struct {
		hosts   string
		renders int
		refused bool
	}{
		{"a,b", 1, false},
		{"c,c", 1, true}, // two keys "c"
		{"d,e", 0, false},
		{"f,g: \"1\"\n  admin", 0, true},
	} {
		r, err := countRenders(t, b, tenantInput("web", map[string]any{"hosts": c.hosts}))
		if r != c.renders || (err != nil) != c.refused {
			t.Errorf("hosts %q: B rendered %d times, error %v; want %d, refused %v", c.hosts, r, err, c.renders, c.refused)
		}
	}
}
