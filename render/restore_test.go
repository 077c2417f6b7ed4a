package render

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestRestoresToIsRestoreThenCompare: the structure check's comparison without a restored
// copy answers what restoring and comparing answers, for texts with placeholders at the ends,
// side by side, cut short, unknown numbers, "qz" that is no placeholder, and originals that are
// not inert (which never compare equal), against targets that match or differ anywhere.
func TestRestoresToIsRestoreThenCompare(t *testing.T) {
	tainted := []Tainted{{Value: "web"}, {Value: "team-a"}, {Value: "a: b"}, {Value: "qz"}, {Value: "x"}, {Value: "*.example.com"}}
	r := rand.New(rand.NewPCG(1, 2))
	for _, set := range [][]Tainted{tainted, tainted[:2], tainted[4:5]} {
		s := newSubstitution(set, nil)
		pieces := []string{"name: ", "-", "\n", "qz", "q", "z", "qz9", "qz99", "qz0", "web", "team-a", ""}
		for i := range s.originals {
			pieces = append(pieces, s.placeholder(i), s.originals[i])
		}
		for range 20000 {
			var text strings.Builder
			for range r.IntN(6) {
				text.WriteString(pieces[r.IntN(len(pieces))])
			}
			restored, inertOnly := s.restore(text.String())
			wants := []string{restored, restored + "x", strings.TrimSuffix(restored, "b"), "x" + restored, text.String()}
			if len(restored) > 2 {
				wants = append(wants, restored[:len(restored)/2]+"#"+restored[len(restored)/2+1:])
			}
			for _, want := range wants {
				got := s.restoresTo(text.String(), want)
				if expected := inertOnly && restored == want; got != expected {
					t.Fatalf("restoresTo(%q, %q) = %v; restore gives %q (inert only: %v)", text.String(), want, got, restored, inertOnly)
				}
			}
		}
	}
}

// TestVerbatimInsertionStillCaught: a value inserted as is restores B's text to A's exactly,
// the case the comparison without a copy decides alone; a value that is not inert must still
// fail the render, naming it, rather than pass because the texts match.
func TestVerbatimInsertionStillCaught(t *testing.T) {
	b, err := Compile("bp", &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{"t": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: {{ .Values.v }}\n"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"x\n  extra: injected", "x\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s"} {
		values := map[string]any{"v": v}
		in := &Input{Values: values, Gateway: map[string]any{}, Namespace: "ns", Tainted: TaintedStrings(values, func(p string) string { return "tenant " + p })}
		out, err := b.RenderGateway(in)
		var e *Error
		if err == nil || !errors.As(err, &e) || e.Origin != "tenant v" {
			t.Errorf("value %q: RenderGateway = %v, %v; want an error naming tenant v", v, out, err)
		}
	}
}
