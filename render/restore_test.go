package render

import (
	"errors"
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/boundary"
)

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
		in := &Input{Values: values, Gateway: map[string]any{}, Namespace: "ns", Tainted: boundary.TaintedStrings(values, func(p string) string { return "tenant " + p })}
		out, err := b.RenderGateway(in)
		var e *Error
		if err == nil || !errors.As(err, &e) || e.Origin != "tenant v" {
			t.Errorf("value %q: RenderGateway = %v, %v; want an error naming tenant v", v, out, err)
		}
	}
}
