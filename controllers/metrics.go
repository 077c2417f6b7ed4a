package controllers

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"gantry.dev/gantry/boundary"
	"gantry.dev/gantry/render"
)

// Prometheus metrics, served on the manager's metrics endpoint next to controller-runtime's.
var (
	rendersTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gantry_gateway_renders_total",
		Help: "Gateway renders by result: ok, pending or error.",
	}, []string{"result"})
	appliedTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gantry_objects_applied_total",
		Help: "Rendered objects written with server-side apply, by kind. Unchanged objects are not written.",
	}, []string{"kind"})
	fieldsTakenTotal = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "gantry_fields_taken_total",
		Help: "Fields of rendered objects that another field manager owned and Gantry took back to hold what the blueprint renders (each also in a FieldsTaken Event on the Gateway).",
	})
	prunedTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gantry_objects_pruned_total",
		Help: "Objects deleted because their Gateway no longer renders them, by kind.",
	}, []string{"kind"})
	errorsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gantry_gateway_errors_total",
		Help: "Gateway reconcile errors by reason (InvalidParameters, InvalidValues, RenderFailed, ObjectExists, ApplyFailed).",
	}, []string{"reason"})
	reconcileSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "gantry_reconcile_duration_seconds",
		Help:    "Time to reconcile one object, by controller.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
	}, []string{"controller"})
)

// checkRenders counts the structure check's placeholder renders: rendered, or taken from its
// memory (--render-check-memory) because an earlier render had the same input.
func checkRenders(source string, read func() int64) prometheus.CounterFunc {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name:        "gantry_structure_check_renders_total",
		Help:        "The structure check's second renders (tenant strings as placeholders), by source: rendered, or remembered (taken from its memory).",
		ConstLabels: prometheus.Labels{"source": source},
	}, func() float64 { return float64(read()) })
}

// templateRenders counts renders of a Gateway's or one route's templates: rendered, or
// remembered because the same input rendered before (--render-memory).
func templateRenders(source string, read func() int64) prometheus.CounterFunc {
	return prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name:        "gantry_template_renders_total",
		Help:        "Renders of a Gateway's or one route's templates, by source: rendered, or remembered (the same input rendered before, its output taken from memory).",
		ConstLabels: prometheus.Labels{"source": source},
	}, func() float64 { return float64(read()) })
}

// checkMemoryBytes is what the structure check's memory of second renders holds, as it counts
// it against --render-check-memory.
var checkMemoryBytes = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
	Name: "gantry_structure_check_memory_bytes",
	Help: "Bytes the structure check's memory of second renders holds, as counted against --render-check-memory.",
}, func() float64 { n, _ := boundary.MemoryHeld(); return float64(n) })

func init() {
	metrics.Registry.MustRegister(rendersTotal, appliedTotal, fieldsTakenTotal, prunedTotal, errorsTotal, reconcileSeconds, checkMemoryBytes,
		checkRenders("rendered", func() int64 { n, _ := boundary.Renders(); return n }),
		checkRenders("remembered", func() int64 { _, n := boundary.Renders(); return n }),
		templateRenders("rendered", func() int64 { n, _ := render.OutputRenders(); return n }),
		templateRenders("remembered", func() int64 { _, n := render.OutputRenders(); return n }))
}
