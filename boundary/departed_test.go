package boundary

import "testing"

// TestDeparted: a replay is in step only when it takes every decision A recorded, in A's
// order, and asks for no other; recording is never out of step.
func TestDeparted(t *testing.T) {
	var r Decider // A's record: 1, 2, 1
	r.Start(nil)
	r.decide(1, true)
	r.decide(2, true)
	r.decide(1, false)
	rec := r.Log()
	for _, tt := range []struct {
		name  string
		calls []int // decision ids asked, in order
		want  bool
	}{
		{"every decision taken", []int{1, 2, 1}, false},
		{"one of A's never reached", []int{1, 2}, true},
		{"one A did not make", []int{1, 2, 1, 1}, true},
		{"an id A never decided", []int{1, 2, 1, 3}, true},
		{"as many of each, in another order", []int{1, 1, 2}, true},
	} {
		var d Decider
		d.Start(rec)
		for _, id := range tt.calls {
			d.decide(id, true)
		}
		if got := d.Departed(); got != tt.want {
			t.Errorf("%s: Departed() = %v, want %v", tt.name, got, tt.want)
		}
	}
	var d Decider
	d.Start(nil)
	d.decide(1, true)
	if d.Departed() {
		t.Error("a recording render departed")
	}
	// with on an empty value that is not a bool, where A's was true: B cannot take A's
	// decision.
	d.Start(Decisions{1, 1, 1})
	d.Funcs()[decideWith].(func(int, any) any)(1, "")
	if !d.Departed() {
		t.Error("with on an empty string where A took the body: not departed")
	}
}
