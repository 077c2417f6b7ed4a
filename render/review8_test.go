package render_test

import (
	"testing"
)

// Review 8 (a helper session, thirteenth session) of d9265ac: a range over a map of string
// keys visited an iter.Seq that read each value when it was reached (boundary.entries), in A
// as in B, whenever a check ran. text/template's own map range takes every key and value
// before the first iteration. A template that changed the map while ranging over it rendered
// otherwise checked than unchecked (each test failed when found); entries takes the values
// up front since. The review found no accepted injection or data selection through the
// ordering.

// unset of a later key during the range: MapIndex gives the zero Value, .Interface() panics;
// the checked render is refused ("template panicked") where the unchecked one prints a and b.
func TestReview8UnsetDuringRangePanics(t *testing.T) {
	cm := rvHead + "  t: {{ .Values.t | quote }}\n{{- $m := dict \"a\" \"1\" \"b\" \"2\" }}{{ range $k, $v := $m }}{{ $_ := unset $m \"b\" }}\n  {{ $k }}: {{ $v | quote }}{{ end }}\n"
	rvMustAccept(t, "", cm, map[string]any{"t": "x"})
}

// set of a later key during the range: checked prints the new value, unchecked the old.
func TestReview8SetDuringRangeTwoVars(t *testing.T) {
	cm := rvHead + "  t: {{ .Values.t | quote }}\n{{- $m := dict \"a\" \"1\" \"b\" \"2\" }}{{ range $k, $v := $m }}{{ $_ := set $m \"b\" \"new\" }}\n  {{ $k }}: {{ $v | quote }}{{ end }}\n"
	rvMustAccept(t, "", cm, map[string]any{"t": "x"})
}

// The same with dot: the output's keys differ (k2 unchecked, knew checked).
func TestReview8SetDuringRangeDot(t *testing.T) {
	cm := rvHead + "  t: {{ .Values.t | quote }}\n{{- $m := dict \"a\" \"1\" \"b\" \"2\" }}{{ range $m }}{{ $_ := set $m \"b\" \"new\" }}\n  k{{ . }}: {{ . | quote }}{{ end }}\n"
	rvMustAccept(t, "", cm, map[string]any{"t": "x"})
}
