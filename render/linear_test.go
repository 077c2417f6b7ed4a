package render

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/boundary"
)

// annotationsBlueprint renders a Service whose annotations come from the values through
// toYaml, as the proxy blueprint does.
var annotationsBlueprint = &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{
	"service": "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Gateway.metadata.name }}\n" +
		"  {{- with .Values.service.annotations }}\n  annotations:\n    {{- toYaml . | nindent 4 }}\n  {{- end }}\n" +
		"  {{- range $k, $v := .Values.headers }}\n  x-{{ $k }}: {{ $v | quote }}\n  {{- end }}\n",
}}}

// manyTenantStrings is an input with n tenant annotations whose values hold commas and colons
// (strings that are not inert, so no shortcut applies), and n header values.
func manyTenantStrings(n int) *Input {
	annotations := make(map[string]any, n)
	headers := make(map[string]any, n)
	for i := range n {
		annotations[fmt.Sprintf("example.com/a%d", i)] = fmt.Sprintf("internal, fast: %d", i)
		headers[fmt.Sprintf("h%d", i)] = fmt.Sprintf("v%d, w", i)
	}
	values := map[string]any{"service": map[string]any{"annotations": annotations}, "headers": headers}
	in := &Input{Values: values, Gateway: map[string]any{"metadata": map[string]any{"name": "web", "namespace": "team-a"}}, Namespace: "team-a"}
	in.Tainted = boundary.TaintedStrings(values, func(p string) string { return "GatewayConfig team-a/web value " + p })
	return in
}

// TestStructureCheckIsLinear: however many tenant strings a render has, the check renders
// each template once more and parses its output at most once more: its work grows with the
// output, not with the output times the tenant strings (3,000 annotations took 22–27 s when
// it parsed once per string).
func TestStructureCheckIsLinear(t *testing.T) {
	b, err := Compile("bp", annotationsBlueprint)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 100, 10000} {
		var renders, parses int
		checked = func(r, p int) { renders, parses = r, p }
		in := manyTenantStrings(n)
		// What is counted is the check's work, not its time: a busy machine under -race took
		// more than the default 5 s for 10,000 strings.
		in.Limits.Timeout = 2 * time.Minute
		out, err := b.RenderGateway(in)
		checked = nil
		if err != nil {
			t.Fatalf("%d tenant strings: %v", n, err)
		}
		meta := out.Objects[0].Object["metadata"].(map[string]any)
		if got := len(meta["annotations"].(map[string]any)); got != n || len(meta) != 3+n {
			t.Fatalf("%d tenant strings: %d annotations, %d metadata fields", n, got, len(meta))
		}
		if renders != 1 || parses > 1 {
			t.Errorf("%d tenant strings: the check rendered %d times and parsed %d times, want 1 and at most 1", n, renders, parses)
		}
	}
}

// TestPlainTenantStringsNeedNoParse: when every tenant string is inert, B's output is not
// parsed at all.
func TestPlainTenantStringsNeedNoParse(t *testing.T) {
	b, err := Compile("bp", annotationsBlueprint)
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]any{"service": map[string]any{"annotations": map[string]any{"example.com/lb": "internal"}}, "headers": map[string]any{}}
	in := &Input{Values: values, Gateway: map[string]any{"metadata": map[string]any{"name": "web"}}, Namespace: "team-a",
		Tainted: boundary.TaintedStrings(values, func(p string) string { return p })}
	renders, parses := -1, -1
	checked = func(r, p int) { renders, parses = r, p }
	defer func() { checked = nil }()
	if _, err := b.RenderGateway(in); err != nil {
		t.Fatal(err)
	}
	if renders != 1 || parses != 0 {
		t.Errorf("the check rendered %d times and parsed %d times, want 1 and 0", renders, parses)
	}
}

// BenchmarkManyTenantStrings renders 10,000 annotations and 10,000 header values, all with
// commas: issue 7 asks for well under a second.
func BenchmarkManyTenantStrings(b *testing.B) {
	bp, err := Compile("bp", annotationsBlueprint)
	if err != nil {
		b.Fatal(err)
	}
	in := manyTenantStrings(10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bp.RenderGateway(in); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCheckSpendsTheRendersTime: the structure check's renders share the render's deadline.
// Were each to get the full --render-timeout, a slow template would take the limit once for A,
// once for B and once per step of the search for a culprit. A deadline that passes during the
// check is reported as the time budget, and no tenant value is blamed for it.
func TestCheckSpendsTheRendersTime(t *testing.T) {
	b, err := Compile("bp", &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{
		// The loop's 2,000 steps make the render read the clock (every 1,024 steps).
		"cm": "{{ range until 2000 }}{{ end }}apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: {{ .Values.v }}\n",
	}}})
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]any{"v": "a\n  injected: yes"} // changes the structure: the search runs
	in := &Input{Values: values, Gateway: map[string]any{"metadata": map[string]any{"name": "web"}}, Namespace: "team-a",
		Tainted: boundary.TaintedStrings(values, func(p string) string { return "GatewayConfig team-a/p value " + p })}
	c := b.gateway[0]
	x, err := b.newExecution(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.done()
	textA, _, err := x.run(c)
	if err != nil {
		t.Fatal(err)
	}
	parsedA, _, errA := resourceOutput.Parse(textA)
	if errA != nil {
		t.Fatal(errA)
	}
	past := time.Now().Add(-time.Second)
	for _, tt := range []struct {
		name           string
		checkDeadline  time.Time // B's
		searchDeadline time.Time // the search's renders'
	}{
		{"B's render", past, past},
		{"the search for a culprit", time.Now().Add(time.Minute), past},
	} {
		check := b.newCheck(in, tt.checkDeadline)
		sub := check.Substitution()
		key, keyed := bInputKey(b, in, sub)
		// The same check, with the search's renders (every start after B's) given their own deadline.
		check = boundary.NewCheck(&searchDeadline{checkEngine{b, in}, tt.checkDeadline, tt.searchDeadline, 0}, sub, in.Tainted, key, keyed, tt.checkDeadline)
		check.Ran(c, nil, nil)
		err = b.verify(check, c, textA, parsedA, 0, nil, resourceOutput)
		check.Done()
		if err == nil || !strings.Contains(err.Error(), "render budget exceeded: time") || strings.Contains(err.Error(), "team-a/p") {
			t.Errorf("time up in %s: got %v, want the time budget and no tenant value blamed", tt.name, err)
		}
	}
	// The same check with time left blames the value: the cases above fail for the deadline.
	check := b.newCheck(in, time.Now().Add(time.Minute))
	defer check.Done()
	check.Ran(c, nil, nil)
	if err := b.verify(check, c, textA, parsedA, 0, nil, resourceOutput); err == nil || !strings.Contains(err.Error(), "team-a/p") {
		t.Errorf("with time left: got %v, want the tenant value named", err)
	}
}

// searchDeadline starts B's render with the check's deadline and every later one (the search
// for a culprit) with another.
type searchDeadline struct {
	checkEngine
	first, later time.Time
	starts       int
}

func (e *searchDeadline) Start(sub *boundary.Substitution, g *boundary.TplGuard, _ time.Time) (boundary.Run, error) {
	e.starts++
	if e.starts == 1 {
		return e.checkEngine.Start(sub, g, e.first)
	}
	return e.checkEngine.Start(sub, g, e.later)
}
