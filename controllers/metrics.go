package controllers

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
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

func init() {
	metrics.Registry.MustRegister(rendersTotal, appliedTotal, prunedTotal, errorsTotal, reconcileSeconds)
}
