package render_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"gantry.dev/gantry/render"
)

// Issue 19 item 3: every function a template can call is linear, or refuses inputs past a
// bound, and a render's allocations are budgeted.

// renderValues renders one gateway template with values and returns the error and the time.
func renderValues(t *testing.T, tmpl string, values map[string]any) (string, error, time.Duration) {
	t.Helper()
	b := mustCompile(t, gatewaySpec(map[string]string{"loop": tmpl}))
	start := time.Now()
	out, err := b.RenderGateway(input(values))
	took := time.Since(start)
	if err != nil {
		return "", err, took
	}
	var sb strings.Builder
	for _, o := range out.Objects {
		fmt.Fprint(&sb, o.Object)
	}
	return sb.String(), nil, took
}

func distinct(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("h%d.example.com", i)
	}
	return out
}

// uniq compared every value with every one kept (reflect.DeepEqual): 73 s over 100k distinct
// hostnames, in one call the budget's clock never interrupted.
func TestCostUniqIsLinear(t *testing.T) {
	tmpl := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  first: {{ .Values.hosts | uniq | len | quote }}\n  second: {{ mustUniq .Values.hosts | len | quote }}\n"
	out, err, took := renderValues(t, tmpl, map[string]any{"hosts": append(distinct(100000), distinct(10)...)})
	t.Logf("uniq of 100,010 values: %v", took)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "first:100000 second:100000") {
		t.Errorf("got %s, want 100000 distinct values twice", out)
	}
	if took > 5*time.Second {
		t.Errorf("uniq of 100,010 values took %v, past the render budget", took)
	}
}

// trimAll with a cutset that is not ASCII looked each trimmed character up in the whole
// cutset: the product of their lengths.
func TestCostTrimAllIsLinear(t *testing.T) {
	cut := strings.Repeat("ü", 600000) + "é"
	s := strings.Repeat("é", 150000) + "x" + strings.Repeat("é", 150000)
	tmpl := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: {{ trimAll .Values.cut .Values.s | quote }}\n  b: {{ trimall .Values.cut .Values.s | quote }}\n"
	out, err, took := renderValues(t, tmpl, map[string]any{"cut": cut, "s": s})
	t.Logf("trimAll: %v", took)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "a:x b:x") {
		t.Errorf("got %.200s, want x twice", out)
	}
	// Linear, it takes milliseconds; the product took seconds.
	if took > time.Second {
		t.Errorf("trimAll took %v", took)
	}
}

// append in a loop copies the list each time: 10,000 iterations (within the loop and step
// budgets) allocated 800 MB before anything was written. Results are charged before they are
// built.
func TestCostAllocationBudget(t *testing.T) {
	e := budgetErr(t, `{{ $l := list }}{{ range until 10000 }}{{ $l = append $l . }}{{ end }}`, render.Limits{}, "allocation")
	if !strings.Contains(e.Msg, "append") {
		t.Errorf("error %q does not name the function", e.Msg)
	}
	// A list of 2,000 built the same way (32 MB of copies) is within the default budget.
	b := mustCompile(t, gatewaySpec(map[string]string{"loop": `{{ $l := list }}{{ range until 2000 }}{{ $l = append $l . }}{{ end }}`}))
	if _, err := b.RenderGateway(input(map[string]any{})); err != nil {
		t.Fatal(err)
	}
}
