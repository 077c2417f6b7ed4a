package controllers

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// ConditionHealthy is the Gateway condition that says whether what Gantry rendered for it is
// ready, as Kubernetes tooling computes readiness (kstatus: Deployments available, Jobs
// complete, custom resources by their Ready condition, a LoadBalancer Service with an address).
// It leaves Programmed as Gateway API defines it: Programmed says the objects are applied,
// Healthy whether they work.
const ConditionHealthy = "gateway.gantry.dev/Healthy"

// Healthy's reasons: kstatus's summary.
const (
	ReasonCurrent    = "Current"
	ReasonInProgress = "InProgress"
	ReasonFailed     = "Failed"
)

// ObjectHealth is one rendered object's readiness.
type ObjectHealth struct {
	Object  string // "Kind namespace/name"
	Status  status.Status
	Message string
}

// Health computes each object's readiness with kstatus, in a stable order.
func Health(objs []*unstructured.Unstructured) []ObjectHealth {
	out := make([]ObjectHealth, 0, len(objs))
	for _, o := range objs {
		h := ObjectHealth{Object: keyOf(o).String()}
		r, err := status.Compute(o)
		switch {
		case err != nil:
			h.Status, h.Message = status.UnknownStatus, err.Error()
		default:
			h.Status, h.Message = r.Status, r.Message
		}
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b ObjectHealth) int { return strings.Compare(a.Object, b.Object) })
	return out
}

// healthCondition summarises the objects' readiness: Failed if one failed, InProgress if one
// is not ready yet (terminating, or its readiness unknown), naming the first such object;
// Current otherwise.
func healthCondition(gen int64, objs []*unstructured.Unstructured) metav1.Condition {
	c := metav1.Condition{Type: ConditionHealthy, ObservedGeneration: gen}
	var failed, waiting []ObjectHealth
	hs := Health(objs)
	for _, h := range hs {
		switch h.Status {
		case status.CurrentStatus:
		case status.FailedStatus:
			failed = append(failed, h)
		default:
			waiting = append(waiting, h)
		}
	}
	// A failure says why (kstatus's message); an object on its way says only which it is: its
	// progress ("Replicas: 1/2") changes at every step of a rollout, and the Gateway's status
	// would be written at each (explain gateway shows it per object).
	say := func(first ObjectHealth, n int, what string, why bool) string {
		msg := first.Object + " is " + what
		if why && first.Message != "" {
			msg = first.Object + ": " + first.Message
		}
		if n > 1 {
			msg += fmt.Sprintf(" (and %d more %s)", n-1, what)
		}
		return truncate(msg)
	}
	switch {
	case len(failed) > 0:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonFailed, say(failed[0], len(failed), "failed", true)
	case len(waiting) > 0:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonInProgress, say(waiting[0], len(waiting), "not ready", false)
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, ReasonCurrent, fmt.Sprintf("all %d rendered objects are ready", len(hs))
	}
	return c
}
