package render

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// SchemaViolation is one way the merged values break the blueprint's valuesSchema.
type SchemaViolation struct {
	// Path is the location of the offending value in .Values.
	Path []string
	Msg  string
	// Missing lists the required properties of the object at Path that are not there.
	Missing []string
}

var printer = message.NewPrinter(language.English)

func compileSchema(raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("valuesSchema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("valuesSchema.json")
}

// ValidateValues checks merged values against the blueprint's valuesSchema and returns every
// violation at its deepest location, or nil.
func (b *Blueprint) ValidateValues(values map[string]any) []SchemaViolation {
	if b.schema == nil {
		return nil
	}
	// Values already hold only JSON types (string, bool, nil, int64, float64, maps and lists of
	// them), which the validator takes as they are; no JSON round trip needed.
	var doc any = values
	err := b.schema.Validate(doc)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out []SchemaViolation
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			v := SchemaViolation{Path: e.InstanceLocation, Msg: e.ErrorKind.LocalizedString(printer)}
			if r, ok := e.ErrorKind.(*kind.Required); ok {
				v.Missing = r.Missing
			}
			out = append(out, v)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	// The validator's order varies between runs; errors must not.
	slices.SortStableFunc(out, func(a, b SchemaViolation) int {
		return cmp.Or(slices.Compare(a.Path, b.Path), cmp.Compare(a.Msg, b.Msg))
	})
	return out
}
