package render

import (
	"fmt"
	"runtime"
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/boundary"
)

// TestCheckMemoryHeapWithinBound: the memory counts an output as its text and 64 bytes, but an
// entry costs some 270 bytes of heap besides its text (the map's slot, the list element, the
// entry, the output). A tenant who changes a number in its GatewayConfig at every edit makes a
// new key for every template; a blueprint whose templates render nothing for it (a feature the
// tenant leaves off) makes those outputs empty. The memory then holds about four times its bound.
// Here with a 1 MiB bound; at the default 16 MiB it is some 70 MiB.
func TestCheckMemoryHeapWithinBound(t *testing.T) {
	const bound = 1 << 20
	boundary.SetMemory(bound)
	defer boundary.SetMemory(boundary.DefaultMemory)
	templates := map[string]string{}
	for i := range 8 {
		templates[fmt.Sprintf("t%d", i)] = "{{- if .Values.feature }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n{{- end }}\n"
	}
	b, err := Compile("bp", &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: templates}})
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	for n := range bound / 64 / 8 {
		if _, err := b.RenderGateway(tenantInput("web", map[string]any{"feature": false, "replicas": n})); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	held := int64(ms.HeapAlloc) - int64(before)
	counted, entries := boundary.MemoryHeld()
	t.Logf("%d outputs, counted %d bytes, heap grew by %d", entries, counted, held)
	if held > 2*bound {
		t.Errorf("the memory's bound is %d bytes and it holds %d", bound, held)
	}
}
