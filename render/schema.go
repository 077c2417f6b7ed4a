package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

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
	// The validator wants plain JSON types; a round trip gives it exactly those.
	raw, err := json.Marshal(values)
	if err != nil {
		return []SchemaViolation{{Msg: err.Error()}}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return []SchemaViolation{{Msg: err.Error()}}
	}
	err = b.schema.Validate(doc)
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
	return out
}
