package desired_test

import (
	"reflect"
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/render"
)

// TestOutputsRenderOnlyWhatChanged: with the controller's memory of outputs, a Gateway renders
// again only when what its render reads changed. A global policy edit that every tenth Gateway
// overrides with its own, more specific default (the scale harness's fan-out) renders the
// others and leaves that one alone; the result is always the result of a fresh render.
func TestOutputsRenderOnlyWhatChanged(t *testing.T) {
	bp := blueprint(map[string]string{"cm": configMapTemplate("{{ .Gateway.metadata.name }}", "replicas: {{ .Values.replicas | quote }}")}, `{"replicas": 1}`)
	compiled, err := desired.Compile(&desired.Input{Class: class(), Blueprint: bp})
	if err != nil {
		t.Fatal(err)
	}
	global := gatewayClassConfig("gantry-system", "global", target("GatewayClass", className), `{"replicas": 2}`)
	pinned := gatewayConfig(ns, "pinned", target("Gateway", "pinned"), `{"replicas": 4}`, "")
	memory := render.NewOutputMemory(1 << 20)
	input := func(gw string, outputs *render.OutputMemory) *desired.Input {
		return &desired.Input{Gateway: gateway(gw), Class: class(), Blueprint: bp, Compiled: compiled, Outputs: outputs,
			GatewayClassConfigs: []*v1alpha1.GatewayClassConfig{global}, GatewayConfigs: []*v1alpha1.GatewayConfig{pinned}}
	}
	// pass renders both Gateways with the memory, checks each result against a render without
	// it, and returns how many renders the memory ran.
	pass := func() int64 {
		before, _ := memory.Renders()
		for _, gw := range []string{"free", "pinned"} {
			got, err := desired.Gateway(input(gw, memory))
			if err != nil {
				t.Fatal(err)
			}
			want, err := desired.Gateway(input(gw, nil))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Objects, want.Objects) {
				t.Fatalf("Gateway %s from the memory:\n%v\nrendered afresh:\n%v", gw, got.Objects, want.Objects)
			}
		}
		after, _ := memory.Renders()
		return after - before
	}
	if n := pass(); n != 2 {
		t.Fatalf("first pass rendered %d times; want 2", n)
	}
	if n := pass(); n != 0 {
		t.Fatalf("a pass with nothing changed rendered %d times; want 0", n)
	}
	global = gatewayClassConfig("gantry-system", "global", target("GatewayClass", className), `{"replicas": 3}`)
	if n := pass(); n != 1 {
		t.Fatalf("after a global edit that only Gateway free sees, rendered %d times; want 1", n)
	}
	pinned = gatewayConfig(ns, "pinned", target("Gateway", "pinned"), `{"replicas": 5}`, "")
	if n := pass(); n != 1 {
		t.Fatalf("after an edit of Gateway pinned's own policy, rendered %d times; want 1", n)
	}
}

// TestVersionsAreNotRenderInput: a Gateway's or a live object's resourceVersion changes with
// every write, Gantry's own status writes included, and says nothing a template can use: it is
// not in the template context, so a write that changed nothing else does not render again.
// The cache's objects keep theirs (the apply and prune read them).
func TestVersionsAreNotRenderInput(t *testing.T) {
	bp := blueprint(map[string]string{"cm": configMapTemplate("web", "v: {{ .Gateway.metadata.resourceVersion | default \"none\" | quote }}",
		"live: {{ hasKey (index .Resources.cm 0).metadata \"resourceVersion\" | ternary \"some\" \"none\" | quote }}")}, "")
	compiled, err := desired.Compile(&desired.Input{Class: class(), Blueprint: bp})
	if err != nil {
		t.Fatal(err)
	}
	memory := render.NewOutputMemory(1 << 20)
	live := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "web", "namespace": ns, "resourceVersion": "5"}}
	for i, rv := range []string{"1", "2"} {
		gw := gateway("web")
		gw.ResourceVersion = rv
		live["metadata"].(map[string]any)["resourceVersion"] = "5" + rv
		res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: bp, Compiled: compiled, Outputs: memory,
			Live: map[string][]map[string]any{"cm": {live}}})
		if err != nil {
			t.Fatal(err)
		}
		data := res.Objects[0].Object["data"].(map[string]any)
		if data["v"] != "none" || data["live"] != "none" {
			t.Fatalf("pass %d: templates read versions %v and %v; want none", i, data["v"], data["live"])
		}
		if got := live["metadata"].(map[string]any)["resourceVersion"]; got != "5"+rv {
			t.Fatalf("the live object's resourceVersion is %v after the render; want it untouched", got)
		}
	}
	if rendered, remembered := memory.Renders(); rendered != 1 || remembered != 1 {
		t.Fatalf("rendered %d, remembered %d; want 1 and 1 (only versions changed)", rendered, remembered)
	}
}
