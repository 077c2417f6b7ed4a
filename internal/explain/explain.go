// Package explain prints the provenance of effective values: for each value, who set it, in
// which stanza and at which level, and what it shadowed; then what became of each policy. It is
// what `gantry render --explain` and the playground print.
package explain

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"gantry.dev/gantry/precedence"
)

// Write prints a value-by-value account of a precedence result, then each policy's outcome.
func Write(w io.Writer, v *precedence.Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PATH\tVALUE\tSET BY\tSTANZA\tLEVEL\tSHADOWED")
	for _, l := range v.Leaves {
		value := compact(l.Value)
		if l.Removed {
			value = "(removed)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", l.Path, value, l.Source.Ref, l.Source.Stanza, l.Source.Level, shadows(l))
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "POLICY\tLEVEL\tOUTCOME\tDETAIL")
	for _, out := range v.Outcomes {
		level := "-"
		if out.State != precedence.StateNotApplicable {
			level = out.Level.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", out.Ref, level, out.State, detail(out))
	}
	tw.Flush()
}

func shadows(l precedence.Leaf) string {
	if len(l.Shadowed) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(l.Shadowed))
	for _, s := range l.Shadowed {
		value := compact(s.Value)
		if s.Removed {
			value = "(removed)"
		}
		at := ""
		if s.Path.String() != l.Path.String() {
			at = s.Path.String() + "="
		}
		parts = append(parts, fmt.Sprintf("%s%s from %s %s", at, value, s.Source.Ref, s.Source.Stanza))
	}
	return strings.Join(parts, "; ")
}

func detail(o precedence.Outcome) string {
	if o.State == precedence.StateNotApplicable {
		return o.Reason
	}
	if len(o.Superseded) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(o.Superseded))
	for _, s := range o.Superseded {
		parts = append(parts, fmt.Sprintf("%s (%s) superseded by %s %s", s.Path, s.Stanza, s.By.Ref, s.By.Stanza))
	}
	return strings.Join(parts, "; ")
}

// compact prints a value as JSON: strings quoted, so that "" and "true" read as strings.
func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
