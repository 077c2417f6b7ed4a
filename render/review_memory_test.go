package render

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestCheckMemoryHeapWithinBound: the memory counts an output as its text and 64 bytes, but an
// entry costs some 270 bytes of heap besides its text (the map's slot, the list element, the
// entry, the output). A tenant who changes a number in its GatewayConfig at every edit makes a
// new key for every template; a blueprint whose templates render nothing for it (a feature the
// tenant leaves off) makes those outputs empty. The memory then holds about four times its bound.
// Here with a 1 MiB bound; at the default 16 MiB it is some 70 MiB.
func TestCheckMemoryHeapWithinBound(t *testing.T) {
	const bound = 1 << 20
	SetCheckMemory(bound)
	defer SetCheckMemory(DefaultCheckMemory)
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
	counted, entries, _ := bMemory.Held()
	t.Logf("%d outputs, counted %d bytes, heap grew by %d", entries, counted, held)
	if held > 2*bound {
		t.Errorf("the memory's bound is %d bytes and it holds %d", bound, held)
	}
}

// TestCheckMemoryParseWithinBound: put keeps no output larger than a quarter of the memory,
// but remembering its parse counts it five times over, with no such rule: one output of a
// quarter of the bound (a tenant list of some 300,000 entries, inserted with toYaml, next to
// one tenant string that is not a plain word) evicts every other blueprint's outputs, and
// then itself.
func TestCheckMemoryParseWithinBound(t *testing.T) {
	m := newCheckMemory(4096)
	for i := range 10 {
		m.Put(checkKey{byte(i)}, &bOutput{text: strings.Repeat("x", 100)})
	}
	big := &bOutput{text: strings.Repeat("- {}\n", 120)} // 600 bytes and an entry's cost: within a quarter
	m.Put(checkKey{100}, big)
	if m.get(checkKey{100}) == nil {
		t.Fatal("the output was not kept at all")
	}
	m.parsed(checkKey{100}, big, []any{}, true)
	kept := 0
	for i := range 10 {
		if m.get(checkKey{byte(i)}) != nil {
			kept++
		}
	}
	if held, _, max := m.Held(); kept < 5 {
		t.Errorf("remembering one parse evicted %d of 10 other outputs (and itself: %v); the memory holds %d bytes of %d",
			10-kept, m.get(checkKey{100}) == nil, held, max)
	}
}
