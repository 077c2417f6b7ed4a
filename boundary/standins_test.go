package boundary

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRestoresToIsRestoreThenCompare: the structure check's comparison without a restored
// copy answers what restoring and comparing answers, for texts with placeholders at the ends,
// side by side, cut short, unknown numbers, "qz" that is no placeholder, and originals that are
// not inert (which never compare equal), against targets that match or differ anywhere.
func TestRestoresToIsRestoreThenCompare(t *testing.T) {
	tainted := []Tainted{{Value: "web"}, {Value: "team-a"}, {Value: "a: b"}, {Value: "qz"}, {Value: "x"}, {Value: "*.example.com"}}
	r := rand.New(rand.NewPCG(1, 2))
	for _, set := range [][]Tainted{tainted, tainted[:2], tainted[4:5]} {
		s := NewSubstitution(set, nil)
		pieces := []string{"name: ", "-", "\n", "qz", "q", "z", "qz9", "qz99", "qz0", "web", "team-a", ""}
		for i := range s.originals {
			pieces = append(pieces, s.placeholder(i), s.originals[i])
		}
		for range 20000 {
			var text strings.Builder
			for range r.IntN(6) {
				text.WriteString(pieces[r.IntN(len(pieces))])
			}
			restored, inertOnly := s.Restore(text.String())
			wants := []string{restored, restored + "x", strings.TrimSuffix(restored, "b"), "x" + restored, text.String()}
			if len(restored) > 2 {
				wants = append(wants, restored[:len(restored)/2]+"#"+restored[len(restored)/2+1:])
			}
			for _, want := range wants {
				got := s.RestoresTo(text.String(), want)
				if expected := inertOnly && restored == want; got != expected {
					t.Fatalf("restoresTo(%q, %q) = %v; restore gives %q (inert only: %v)", text.String(), want, got, restored, inertOnly)
				}
			}
		}
	}
}
