package blueprints_test

import (
	"testing"

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
