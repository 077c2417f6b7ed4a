package render_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"gantry.dev/gantry/render"
)

// budgetErr renders one gateway template with the given limits and returns the render.Error
// it must fail with, checking that it names the template and the budget.
func budgetErr(t *testing.T, tmpl string, limits render.Limits, budget string) *render.Error {
	t.Helper()
	b := mustCompile(t, gatewaySpec(map[string]string{"loop": tmpl}))
	in := input(map[string]any{})
	in.Limits = limits
	// Which budget the error names is what proves the budget stopped the render; the wall time
	// only guards against a render that nothing stopped (under -race on a busy 2-core machine,
	// a 100,000-step budget took 10–20 s, so a tight bound here was a flaky timed test).
	start := time.Now()
	out, err := b.RenderGateway(in)
	if took := time.Since(start); took > 2*time.Minute {
		t.Errorf("the render took %v before it failed", took)
	}
	if err == nil {
		t.Fatalf("render succeeded with %d objects; want a %s budget error", len(out.Objects), budget)
	}
	e := renderErr(t, err)
	if e.Template != "gatewayTemplate.resourceTemplates.loop" {
		t.Errorf("error names template %q, want the loop template: %v", e.Template, err)
	}
	if !strings.Contains(e.Msg, budget) {
		t.Errorf("error %q does not name the budget %q", e.Msg, budget)
	}
	return e
}

// The attacks of issue 7 item 5: loops and sizes that exhaust the controller today.
func TestBudgetUntilArgument(t *testing.T) {
	// until 100000000 allocated 800 MB before ranging; the cap refuses it before allocating.
	e := budgetErr(t, "{{ range until 100000000 }}{{ end }}", render.Limits{}, "until")
	if e.Line != 1 {
		t.Errorf("line %d, want 1", e.Line)
	}
	budgetErr(t, "{{ range untilStep 0 100000000 1 }}{{ end }}", render.Limits{}, "untilStep")
	budgetErr(t, "{{ seq 100000000 }}", render.Limits{}, "seq")
}

func TestBudgetRepeatAndIndent(t *testing.T) {
	budgetErr(t, `{{ repeat 100000000 "x" }}`, render.Limits{}, "repeat")
	budgetErr(t, `{{ indent 100000000 "x" }}`, render.Limits{}, "indent")
	budgetErr(t, `{{ nindent 100000000 "x" }}`, render.Limits{}, "nindent")
	budgetErr(t, `{{ $s := repeat 4000 "x" }}{{ replace "" $s $s }}`, render.Limits{}, "replace")
}

func TestBudgetOutputBytes(t *testing.T) {
	// Each until is within its cap; together they write far more than a render may.
	budgetErr(t, `{{ range until 5000 }}{{ range until 5000 }}xxxxxxxxxxxxxxxx{{ end }}{{ end }}`,
		render.Limits{MaxSteps: -1, Timeout: time.Minute}, "output")
}

func TestBudgetObjects(t *testing.T) {
	tmpl := `{{ range until 5000 }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-{{ . }}
{{ end }}`
	budgetErr(t, tmpl, render.Limits{}, "objects")
	// Within a raised budget the same template renders.
	b := mustCompile(t, gatewaySpec(map[string]string{"loop": tmpl}))
	in := input(map[string]any{})
	in.Limits = render.Limits{MaxObjects: 5000}
	out, err := b.RenderGateway(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Objects) != 5000 {
		t.Errorf("%d objects, want 5000", len(out.Objects))
	}
}

func TestBudgetLoopsThatWriteNothing(t *testing.T) {
	// A step budget smaller than the default and a generous clock, so that the step budget
	// is what stops them, deterministically, even on a busy machine or under -race.
	steps := render.Limits{MaxSteps: 100000, Timeout: time.Minute}
	// Nested ranges, each within the until cap, that write nothing: only the step budget or
	// the clock stop them.
	budgetErr(t, `{{ range until 10000 }}{{ range until 10000 }}{{ range until 10000 }}{{ end }}{{ end }}{{ end }}`,
		steps, "steps")
	// Go's range over an integer calls no function at all.
	budgetErr(t, `{{ range 1000000000 }}{{ end }}`, steps, "steps")
	// Template recursion that doubles at each level, 40 levels deep (text/template's depth
	// limit of 100000 does not stop it).
	budgetErr(t, `{{ define "a" }}{{ if lt (len .) 40 }}{{ template "a" (append . 1) }}{{ template "a" (append . 1) }}{{ end }}{{ end }}{{ template "a" list }}`,
		steps, "steps")
	// With no step budget the clock stops them.
	budgetErr(t, `{{ range 1000000000 }}{{ end }}`, render.Limits{MaxSteps: -1, Timeout: 200 * time.Millisecond}, "time")
}

// Each derivePassword runs scrypt: the clock is read before every call.
func TestBudgetExpensiveCalls(t *testing.T) {
	budgetErr(t, `{{ range until 1000 }}{{ $x := derivePassword 1 "long" "p" "u" "s" }}{{ end }}`,
		render.Limits{Timeout: 300 * time.Millisecond}, "time")
}

// Once one template has spent the budget, the next ones say they did not run rather than
// repeat the first one's error as their own.
func TestBudgetSpentNamesTheTemplateThatSpentIt(t *testing.T) {
	b := mustCompile(t, gatewaySpec(map[string]string{"a": "{{ until 100000000 }}", "b": configMap("b")}))
	_, err := b.RenderGateway(input(nil))
	if err == nil {
		t.Fatal("rendered")
	}
	for _, want := range []string{
		"gatewayTemplate.resourceTemplates.a:1: render budget exceeded: until 100000000",
		"gatewayTemplate.resourceTemplates.b: not rendered: an earlier template exceeded",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestBudgetIncludeAndTpl(t *testing.T) {
	steps := render.Limits{MaxSteps: 100000, Timeout: time.Minute}
	budgetErr(t, `{{ define "a" }}{{ range 1000000000 }}{{ end }}{{ end }}{{ include "a" . }}`, steps, "steps")
	budgetErr(t, `{{ tpl "{{ range 1000000000 }}{{ end }}" . }}`, steps, "steps")
	// Include recursion that doubles at each level, with no loop: each include is a step
	// (counted in Go since the helper's own step action is gone, see unstep).
	budgetErr(t, `{{ define "a" }}{{ if lt (len .) 40 }}{{ include "a" (append . 1) }}{{ include "a" (append . 1) }}{{ end }}{{ end }}{{ include "a" list }}`, steps, "steps")
	budgetErr(t, `{{ define "a" }}{{ repeat 1000000 "x" }}{{ end }}{{ range until 100 }}{{ $x := include "a" . }}{{ end }}`, render.Limits{}, "output")
}

// Values that grow without being written: a list that holds itself twice doubles at each
// step while its memory grows by one element, then a function that walks it (toJson, print,
// or printing it) expands it all at once; a string passed twice to print doubles.
func TestBudgetValuesThatDouble(t *testing.T) {
	dag := `{{ $l := list 1 }}{{ range until 24 }}{{ $l = list $l $l }}{{ end }}`
	budgetErr(t, dag+`{{ $x := toJson $l }}`, render.Limits{}, "output")
	budgetErr(t, dag+`{{ $x := print $l }}`, render.Limits{}, "output")
	budgetErr(t, dag+`{{ $x := deepCopy $l }}`, render.Limits{}, "output")
	budgetErr(t, dag+`{{ $l }}`, render.Limits{}, "output")
	budgetErr(t, `{{ $s := "xx" }}{{ range until 30 }}{{ $s = print $s $s }}{{ end }}`, render.Limits{}, "output")
	budgetErr(t, `{{ $s := "xx" }}{{ range until 80 }}{{ $s = b64enc $s }}{{ end }}`, render.Limits{}, "output")
}

// TestBudgetValuesThatHoldThemselves: set can make a map that holds itself, and merge can,
// through maps two values share. mergo's merge then recursed forever: a fatal stack overflow
// that no recover catches, so one blueprint's bug crashed the controller for every Gateway.
// Merging such a value is refused like any value larger than the output budget, before mergo
// walks it; the other functions that walk values already were.
func TestBudgetValuesThatHoldThemselves(t *testing.T) {
	self := `{{ $d := dict "a" 1 }}{{ $_ := set $d "self" $d }}`
	for _, use := range []string{
		`{{ $x := merge $d $d }}`, `{{ $x := mergeOverwrite $d (dict "self" $d) }}`,
		`{{ $x := mustMerge $d $d }}`, `{{ $x := mustMergeOverwrite $d (dict "self" $d) }}`,
		`{{ $x := toString $d }}`, `{{ $x := deepCopy $d }}`, `{{ $d }}`,
	} {
		budgetErr(t, self+use, render.Limits{}, "output")
	}
	// merge through shared maps, no set at all.
	budgetErr(t, `{{ $m := dict "a" (list 1) }}{{ range until 22 }}{{ $m = merge (dict) $m (dict "b" $m) }}{{ end }}`, render.Limits{}, "output")
}

// An encoder refuses a value built by doubling before it encodes it, not after: the check of
// its result alone would let it expand the whole value in memory first.
func TestBudgetEncodersCheckTheirArgument(t *testing.T) {
	dag := `{{ $l := list "xxxxxxxxxxxxxxxx" }}{{ range until 22 }}{{ $l = list $l $l }}{{ end }}`
	for _, fn := range []string{"toJson", "toYaml"} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		budgetErr(t, dag+`{{ $x := `+fn+` $l }}`, render.Limits{}, "output")
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
			t.Errorf("%s: the render allocated %d MiB before it failed", fn, grew>>20)
		}
	}
}
