package controllers

import (
	"testing"

	"gantry.dev/gantry/boundary"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// TestCheckRendersMetric: the structure check's renders are on the metrics endpoint, by source,
// and agree with what the render package counted.
func TestCheckRendersMetric(t *testing.T) {
	rendered, remembered := boundary.Renders()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "gantry_structure_check_renders_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "source" {
					got[l.GetValue()] = m.GetCounter().GetValue()
				}
			}
		}
	}
	// Other tests render concurrently: the metric is read after the counters, so it is at least
	// as large.
	if v, ok := got["rendered"]; !ok || v < float64(rendered) {
		t.Errorf("rendered = %v (present %v), want at least %d", v, ok, rendered)
	}
	if v, ok := got["remembered"]; !ok || v < float64(remembered) {
		t.Errorf("remembered = %v (present %v), want at least %d", v, ok, remembered)
	}
}

// TestCheckMemoryMetric: what the structure check's memory holds is on the metrics endpoint.
func TestCheckMemoryMetric(t *testing.T) {
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "gantry_structure_check_memory_bytes" && len(f.GetMetric()) == 1 && f.GetMetric()[0].GetGauge() != nil {
			return
		}
	}
	t.Error("no gantry_structure_check_memory_bytes gauge")
}
