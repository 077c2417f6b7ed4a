package blueprints_test

import (
	"fmt"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/manifests"
)

// benchCases is, per blueprint, the golden case a benchmark renders: one Gateway with
// everything its blueprint can render.
var benchCases = []struct{ blueprint, input string }{
	{"proxy", "hpa-and-pdb"},
	{"lb-in-front", "routes"},     // four routes: four route renders as well
	{"cloud-lb", "second-render"}, // live objects in .Resources, nothing pending
}

// BenchmarkRender renders one Gateway of each blueprint the way `gantry render` and the
// controller do: desired.Gateway on the gathered input, which compiles the blueprint, merges
// the policies, checks the values schema and renders every template. Reading the manifests
// stays outside the loop.
func BenchmarkRender(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.blueprint, func(b *testing.B) {
			in := benchInput(b, c.blueprint, c.input)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := desired.Gateway(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRenderCompiled is BenchmarkRender with the blueprint compiled once, as the
// controller caches it: what one more reconcile of a Gateway costs.
func BenchmarkRenderCompiled(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.blueprint, func(b *testing.B) {
			in := benchInput(b, c.blueprint, c.input)
			bp, err := desired.Compile(in)
			if err != nil {
				b.Fatal(err)
			}
			in.Compiled = bp
			b.ReportAllocs()
			for b.Loop() {
				if _, err := desired.Gateway(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRenderCheckMemoryOff is BenchmarkRenderCompiled with the structure check's memory
// off (`--render-check-memory=0`): every render renders B, as the first render of an input of
// a new shape does. BenchmarkRenderCompiled re-renders one input, so its B comes from memory.
func BenchmarkRenderCheckMemoryOff(b *testing.B) {
	boundary.SetMemory(0)
	defer boundary.SetMemory(boundary.DefaultMemory)
	BenchmarkRenderCompiled(b)
}

func benchInput(b *testing.B, blueprint, input string) *desired.Input {
	b.Helper()
	set, err := manifests.Load([]string{blueprint + "/blueprint.yaml", blueprint + "/testdata/" + input + ".in.yaml"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	if len(set.Gateways) != 1 {
		b.Fatalf("%s/testdata/%s.in.yaml has %d Gateways; a benchmark renders one", blueprint, input, len(set.Gateways))
	}
	in := set.Input(set.Gateways[0], desired.DefaultControllerNamespace)
	res, err := desired.Gateway(in)
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Pending) > 0 {
		b.Fatalf("%s/testdata/%s.in.yaml leaves templates pending: %v", blueprint, input, res.Pending)
	}
	return in
}

// BenchmarkRouteWith2048Headers is issue 7's slow-route attack: on the shared lb-in-front
// Gateway, one tenant's HTTPRoute carries 2,048 header values holding commas and colons (no
// string the structure check can wave through as inert), as many as the HTTPRoute schema
// allows in 16 rules. Its render must stay linear in those strings, since every route of the
// Gateway waits for it: with the structure check that parsed once per tenant string, another
// tenant's route change waited 82 s.
func BenchmarkRouteWith2048Headers(b *testing.B) {
	in := benchInput(b, "lb-in-front", "routes")
	in.Routes = append([]*gwv1.HTTPRoute(nil), in.Routes...)
	r := in.Routes[0].DeepCopy()
	r.Spec.Rules = nil
	n := 0
	for range 16 {
		rule := gwv1.HTTPRouteRule{BackendRefs: in.Routes[0].Spec.Rules[0].BackendRefs}
		for range 8 {
			var m gwv1.HTTPRouteMatch
			for range 16 {
				m.Headers = append(m.Headers, gwv1.HTTPHeaderMatch{Name: gwv1.HTTPHeaderName(fmt.Sprintf("x-h%d", n)), Value: fmt.Sprintf("v%d, w: x", n)})
				n++
			}
			rule.Matches = append(rule.Matches, m)
		}
		r.Spec.Rules = append(r.Spec.Rules, rule)
	}
	in.Routes[0] = r
	res, err := desired.Gateway(in)
	if err != nil {
		b.Fatal(err)
	}
	for _, rt := range res.Routes {
		if rt.Err != nil {
			b.Fatalf("route %s: %v", rt.NamespacedName, rt.Err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := desired.Gateway(in); err != nil {
			b.Fatal(err)
		}
	}
}
