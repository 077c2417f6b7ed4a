package render

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"gantry.dev/gantry/apis/v1alpha1"
)

// richBlueprint renders numbers of every kind, strings JSON escapes, nulls, lists, a status
// template and a pending template, so that a remembered output can be compared with a fresh
// one field by field.
func richBlueprint(t *testing.T) *Blueprint {
	t.Helper()
	b, err := Compile("bp", &v1alpha1.GatewayClassBlueprintSpec{
		GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{
			"cm": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}
  labels:
    tier: {{ .Values.tier | quote }}
data:
  int: "1"
  html: {{ "<a & b>" | quote }}
  unicode: "snow ☃, tab \t"
  tenant: {{ .Values.tier | quote }}
---
apiVersion: example.com/v1
kind: Numbers
metadata:
  name: {{ .Gateway.metadata.name }}
spec:
  int: 3
  negative: -7
  float: 1.5
  integralFloat: 2.0
  big: 9007199254740993
  huge: 1e20
  tiny: 1e-9
  yes: true
  nothing: null
  list: [1, "two", 3.25, {a: b}]
  empty: {}
`,
			"waits": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lb\ndata:\n  ip: {{ (index .Resources.cm 0).status.ip | quote }}\n",
		},
			Status: &v1alpha1.StatusTemplate{Template: `addresses:
- type: IPAddress
  value: 192.0.2.{{ len .Gateway.metadata.name }}
`}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOutputMemoryGivesTheRender: a remembered output equals a fresh render, value for value
// and type for type (int64 stays int64, 2.0 as the render makes it), objects, status and
// pending alike, and the caller may change what it got without changing what the next gets.
func TestOutputMemoryGivesTheRender(t *testing.T) {
	b := richBlueprint(t)
	in := tenantInput("web", map[string]any{"tier": "gold"})
	want, err := b.RenderGateway(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Objects) != 2 || want.Status == nil || len(want.Pending) != 1 {
		t.Fatalf("the fixture renders %d objects, status %v, pending %v: want 2, a status and one pending, or this test compares little", len(want.Objects), want.Status, want.Pending)
	}
	m := NewOutputMemory(1 << 20)
	for i := range 3 {
		got, err := m.RenderGateway(b, in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("call %d: got\n%#v\nwant\n%#v", i, got, want)
		}
		// The caller owns it: the controller adds labels and annotations to what it applies.
		got.Objects[0].Object["metadata"].(map[string]any)["name"] = "changed"
		got.Status["addresses"] = nil
	}
	if r, m := m.Renders(); r != 1 || m != 2 {
		t.Fatalf("rendered %d, remembered %d; want 1 and 2", r, m)
	}
}

// TestOutputMemoryKeyHasEveryInput: a change to anything a render reads renders again. Each
// case changes one input; with that input left out of the key, the memory would hand out the
// previous output and the case fails.
func TestOutputMemoryKeyHasEveryInput(t *testing.T) {
	b := richBlueprint(t)
	base := func() *Input {
		in := tenantInput("web", map[string]any{"tier": "gold"})
		in.Resources = map[string][]map[string]any{"cm": {{"status": map[string]any{"ready": true}}}}
		in.Hostnames = Hostnames{Union: []string{"a.example.com"}}
		return in
	}
	recompiled := richBlueprint(t)
	for _, tt := range []struct {
		name   string
		change func(in *Input) *Blueprint
		same   bool // not an input: the output comes from memory
	}{
		{"nothing", nil, true},
		{"the tenant strings' order and origins", func(in *Input) *Blueprint {
			slices.Reverse(in.Tainted)
			in.Tainted[0].Origin = "GatewayConfig team-a/q value tier"
			return b
		}, true},
		{"an entry no template reads", func(in *Input) *Blueprint {
			in.Resources["other"] = []map[string]any{{"spec": map[string]any{"replicas": int64(3)}}}
			return b
		}, true},
		{"a value", func(in *Input) *Blueprint { in.Values["tier"] = "silver"; return b }, false},
		{"a value no longer the tenant's", func(in *Input) *Blueprint { in.Tainted = in.Tainted[1:]; return b }, false},
		{"the Gateway", func(in *Input) *Blueprint { in.Gateway["spec"] = map[string]any{"x": int64(1)}; return b }, false},
		{"the route", func(in *Input) *Blueprint { in.Route = map[string]any{}; return b }, false},
		{"a live object", func(in *Input) *Blueprint { in.Resources["cm"][0]["status"] = map[string]any{"ready": false}; return b }, false},
		{"the hostnames", func(in *Input) *Blueprint { in.Hostnames.Attached = []string{"a.example.com"}; return b }, false},
		{"the namespace", func(in *Input) *Blueprint { in.Namespace = "team-b"; return b }, false},
		{"the limits", func(in *Input) *Blueprint { in.Limits.MaxObjects = 7; return b }, false},
		{"the kinds' scopes", func(in *Input) *Blueprint {
			in.CustomKinds = map[schema.GroupKind]bool{{Group: "example.com", Kind: "Numbers"}: true}
			return b
		}, false},
		{"the blueprint's compile", func(*Input) *Blueprint { return recompiled }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := NewOutputMemory(1 << 20)
			if _, err := m.RenderGateway(b, base()); err != nil {
				t.Fatal(err)
			}
			in, bp := base(), b
			if tt.change != nil {
				bp = tt.change(in)
			}
			if _, err := m.RenderGateway(bp, in); err != nil {
				t.Fatal(err)
			}
			rendered, _ := m.Renders()
			switch {
			case tt.same && rendered != 1:
				t.Fatalf("after a change of %s, rendered %d times; want 1 (it is not a render input)", tt.name, rendered)
			case !tt.same && rendered != 2:
				t.Fatalf("after a change of %s, rendered %d times; want 2 (the change must miss the memory)", tt.name, rendered)
			}
		})
	}
	t.Run("route and gateway sets", func(t *testing.T) {
		rb, err := Compile("bp", &v1alpha1.GatewayClassBlueprintSpec{
			GatewayTemplate:   v1alpha1.GatewayTemplate{ResourceTemplates: map[string]string{"a": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gw\n"}},
			HTTPRouteTemplate: &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"a": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: route\n"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		m := NewOutputMemory(1 << 20)
		in := tenantInput("web", map[string]any{})
		in.Route = map[string]any{}
		g, err := m.RenderGateway(rb, in)
		if err != nil {
			t.Fatal(err)
		}
		r, err := m.RenderRoute(rb, in)
		if err != nil {
			t.Fatal(err)
		}
		if g.Objects[0].Object["metadata"].(map[string]any)["name"] != "gw" || r.Objects[0].Object["metadata"].(map[string]any)["name"] != "route" {
			t.Fatalf("gateway render %v, route render %v: one input, two template sets, two outputs", g.Objects, r.Objects)
		}
		// The route's backends are its input too.
		in.Backends = []any{map[string]any{"name": "svc", "resolved": true}}
		if _, err := m.RenderRoute(rb, in); err != nil {
			t.Fatal(err)
		}
		if rendered, _ := m.Renders(); rendered != 3 {
			t.Fatalf("rendered %d times after the backends changed; want 3", rendered)
		}
	})
}

// TestOutputMemoryStillRefusesInjection: the attack after a harmless render of the same shape.
// The structure check's own memory shares B across such renders; the output memory must not
// share A: a tenant string's content is in its key.
func TestOutputMemoryStillRefusesInjection(t *testing.T) {
	b := configMapBlueprint(t, "  k: {{ .Values.v | nindent 4 }}\n")
	m := NewOutputMemory(1 << 20)
	if _, err := m.RenderGateway(b, tenantInput("web", map[string]any{"v": "x"})); err != nil {
		t.Fatal(err)
	}
	for range 2 { // a failure is not remembered either: each call is refused afresh
		_, err := m.RenderGateway(b, tenantInput("web", map[string]any{"v": "x\ninjected: yes"}))
		if err == nil || !strings.Contains(err.Error(), "GatewayConfig team-a/p value v") {
			t.Fatalf("injection after a harmless render: error %v, want one naming GatewayConfig team-a/p value v", err)
		}
	}
	if r, _ := m.Renders(); r != 3 {
		t.Fatalf("rendered %d times; want 3 (failures are rendered every time)", r)
	}
}

// TestOutputMemoryIsBounded: the memory holds at most its bound, and a nil memory renders.
func TestOutputMemoryIsBounded(t *testing.T) {
	b := configMapBlueprint(t, "  k: {{ .Values.v | quote }}\n  pad: "+strings.Repeat("x", 1000)+"\n")
	const max = 16 << 10
	m := NewOutputMemory(max)
	for i := range 100 {
		if _, err := m.RenderGateway(b, tenantInput("web", map[string]any{"v": strings.Repeat("y", i)})); err != nil {
			t.Fatal(err)
		}
	}
	held, entries, _ := m.m.Held()
	if held > max || entries == 0 || entries >= 100 {
		t.Fatalf("holds %d bytes in %d entries; want at most %d bytes, some entries, not all 100", held, entries, max)
	}
	var none *OutputMemory
	if NewOutputMemory(0) != nil {
		t.Fatal("NewOutputMemory(0) must remember nothing")
	}
	if _, err := none.RenderGateway(b, tenantInput("web", map[string]any{"v": "x"})); err != nil {
		t.Fatal(err)
	}
}
