package render

import (
	"encoding/base64"
	"strings"
	"testing"

	"gantry.dev/gantry/boundary"
)

// TestFlowCollectionOverride (found by review): in a flow collection, a tenant string ends it
// early with `,`, `]` or `}` and writes keys of its own, and a comment hides the rest of the
// template's line. Every key and node kind stays, so the structures compared equal: the
// template's `privileged: false` was overridden or replaced. Inserted as is, the scalar is seen
// cut short; transformed (b64dec), only the comment it made shows.
func TestFlowCollectionOverride(t *testing.T) {
	boundary.SetMemory(0) // not the memory's doing: a fresh B let them through as well
	defer boundary.SetMemory(boundary.DefaultMemory)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, tt := range []struct{ name, line, img string }{
		{"override a value", "spec: {image: {{ .Values.img }}, privileged: false}", "nginx, privileged: true} #"},
		{"replace a key", "spec: {image: {{ .Values.img }}, privileged: false}", "nginx, hostNetwork: true} #"},
		{"flow sequence", "args: [{{ .Values.img }}, --admin=false]", "x, --admin=true] #"},
		{"b64dec in a flow mapping", "spec: {image: {{ .Values.img | b64dec }}, privileged: false}", b64("nginx, privileged: true} #")},
		{"b64dec hides a flag", "command: {{ .Values.img | b64dec }} --admin=false", b64("run #")},
		{"replace makes a comment", `command: {{ .Values.img | replace "_" " " }} --admin=false`, "run_#"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := configMapBlueprint(t, "  k: v\n"+tt.line+"\n")
			out, err := b.RenderGateway(tenantInput("web", map[string]any{"img": tt.img}))
			if err == nil {
				o := out.Objects[0].Object
				t.Fatalf("a tenant string rewrote the template's output: spec %v, args %v, command %v", o["spec"], o["args"], o["command"])
			}
			if !strings.Contains(err.Error(), "GatewayConfig team-a/p value img") {
				t.Errorf("error %v, want one naming GatewayConfig team-a/p value img", err)
			}
		})
	}
}

// TestCommentsThatAreNotTheTenants: a '#' a tenant string brings into a quoted scalar, or into
// a comment the template writes, hides nothing and is no change.
func TestCommentsThatAreNotTheTenants(t *testing.T) {
	for _, tt := range []struct{ name, line, v string }{
		{"quoted after b64dec", "note: {{ .Values.v | b64dec | quote }}", base64.StdEncoding.EncodeToString([]byte("see #1, and # 2"))},
		{"in the template's own comment", "# note: {{ .Values.v }}\nnote: x", "a #b"},
		{"a template comment and a quoted tenant string", "# managed by gantry\nnote: {{ .Values.v | quote }}", "x #y"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := configMapBlueprint(t, "  k: v\n"+tt.line+"\n")
			if _, err := b.RenderGateway(tenantInput("web", map[string]any{"v": tt.v})); err != nil {
				t.Errorf("false alarm: %v", err)
			}
		})
	}
}
