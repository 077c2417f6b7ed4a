package render_test

import (
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/render"
)

// TestReadsRoutes: .Routes is built (and checked) only for a blueprint that may read it; every
// way of naming it counts, and tpl, which runs text the compile cannot see, counts too.
func TestReadsRoutes(t *testing.T) {
	for tmpl, want := range map[string]bool{
		`{{ .Values.x }}`:              false,
		`{{ index .Values "routes" }}`: false,
		`{{ len .Routes }}`:            true,
		`{{ len $.Routes }}`:           true,
		`{{ index $ "Routes" }}`:       true,
		`{{ $r := $ }}{{ $r.Routes }}`: true,
		`{{ include "x" $ }}{{ define "x" }}{{ .Routes }}{{ end }}`: true,
		`{{ tpl .Values.t $ }}`: true,
	} {
		b, err := render.Compile("bp", &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{"t": tmpl}}})
		if err != nil {
			t.Fatalf("%s: %v", tmpl, err)
		}
		if got := b.ReadsRoutes(); got != want {
			t.Errorf("%s: ReadsRoutes() = %v, want %v", tmpl, got, want)
		}
	}
}
