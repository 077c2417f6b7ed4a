package controllers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/precedence"
)

// Condition reasons Gantry adds to Gateway API's. Programmed is False with one of these when
// the render or the apply failed; Accepted is False with InvalidParameters when the Gateway's
// class, blueprint or values are wrong.
const (
	// ReasonObjectExists: a rendered object already exists and is not this Gateway's.
	ReasonObjectExists = "ObjectExists"
	// ReasonApplyFailed: the API server refused a rendered object.
	ReasonApplyFailed = "ApplyFailed"
	// ReasonAffected: a policy of the condition's kind applies.
	ReasonAffected = "Affected"
)

// Condition types on policy targets (GEP-713 "<Kind>Affected").
const (
	ConditionGatewayConfigAffected      = "gateway.gantry.dev/GatewayConfigAffected"
	ConditionGatewayClassConfigAffected = "gateway.gantry.dev/GatewayClassConfigAffected"
)

// maxMessage keeps condition messages within the API's limit.
const maxMessage = 32 * 1024

type statusError struct {
	reason string
	err    error
	// also are conditions to set beside Accepted and Programmed (Healthy, BlueprintRevision);
	// one not among them stays as it is.
	also []metav1.Condition
}

// nextStatus is the Gateway with the status a reconcile with this outcome writes, and its
// Programmed condition.
func nextStatus(gw *gwv1.Gateway, res *desired.Result, sets []desired.ListenerSet, se statusError) (*gwv1.Gateway, metav1.Condition) {
	next := gw.DeepCopy()
	st := &next.Status
	gen := gw.Generation
	accepted := metav1.Condition{Type: string(gwv1.GatewayConditionAccepted), Status: metav1.ConditionTrue, Reason: string(gwv1.GatewayReasonAccepted), Message: "the Gateway's class, blueprint and values are valid", ObservedGeneration: gen}
	programmed := metav1.Condition{Type: string(gwv1.GatewayConditionProgrammed), Status: metav1.ConditionTrue, Reason: string(gwv1.GatewayReasonProgrammed), ObservedGeneration: gen}
	switch {
	case se.err != nil && isDesiredError(se.err):
		accepted.Status, accepted.Reason, accepted.Message = metav1.ConditionFalse, string(gwv1.GatewayReasonInvalidParameters), truncate(se.err.Error())
		programmed.Status, programmed.Reason, programmed.Message = metav1.ConditionFalse, se.reason, notRendered(se.err.Error())
	case se.err != nil:
		programmed.Status, programmed.Reason, programmed.Message = metav1.ConditionFalse, se.reason, truncate(se.err.Error())
	case len(res.Pending) > 0 || pendingRoutes(res):
		programmed.Status, programmed.Reason = metav1.ConditionFalse, string(gwv1.GatewayReasonPending)
		programmed.Message = truncate("waiting for objects to report status: " + pendingSummary(res))
	default:
		programmed.Message = fmt.Sprintf("%d rendered objects applied", len(res.Objects))
	}
	if res != nil && accepted.Status == metav1.ConditionTrue {
		listenersNotValid(&accepted, res.Listeners)
	}
	meta.SetStatusCondition(&st.Conditions, accepted)
	meta.SetStatusCondition(&st.Conditions, programmed)
	for _, c := range se.also {
		meta.SetStatusCondition(&st.Conditions, c)
	}
	st.AttachedListenerSets = nil
	if gw.Spec.AllowedListeners != nil || len(sets) > 0 {
		var n int32
		for _, ls := range sets {
			if ls.Accepted() && accepted.Status == metav1.ConditionTrue {
				n++
			}
		}
		st.AttachedListenerSets = &n
	}
	if res != nil {
		st.Addresses = res.Addresses
		st.Listeners = listenerStatus(gw, res, programmed)
		setAffected(&st.Conditions, gen, res.Values)
	}
	return next, programmed
}

// writeStatus sets the Gateway's status from a desired result (nil when it could not be
// computed) and writes it only when it changed.
func (r *GatewayReconciler) writeStatus(ctx context.Context, gw *gwv1.Gateway, in *desired.Input, res *desired.Result, se statusError) error {
	var sets []desired.ListenerSet
	switch {
	case res != nil:
		sets = res.ListenerSets
	case in != nil:
		sets = desired.ListenerSets(in)
	}
	next, programmed := nextStatus(gw, res, sets, se)
	if prev := meta.FindStatusCondition(gw.Status.Conditions, programmed.Type); programmed.Status == metav1.ConditionFalse && programmed.Reason != string(gwv1.GatewayReasonPending) &&
		(prev == nil || prev.Reason != programmed.Reason || prev.Message != programmed.Message) {
		errorsTotal.WithLabelValues(programmed.Reason).Inc()
		r.event(gw, corev1.EventTypeWarning, programmed.Reason, "Reconcile", "%s", programmed.Message)
	}
	if equality.Semantic.DeepEqual(gw.Status, next.Status) {
		return r.writeListenerSets(ctx, next, in, sets)
	}
	if err := r.statusWrites.patch(ctx, r.Client, gw, next); err != nil {
		if apierrors.IsInvalid(err) && res != nil && !equality.Semantic.DeepEqual(gw.Status.Addresses, res.Addresses) {
			// The addresses are the one part of the status a blueprint renders. Refused, they
			// must not keep the rest from being written: say why, keep the addresses there were.
			kept := *res
			kept.Addresses = gw.Status.Addresses
			return r.writeStatus(ctx, gw, in, &kept, statusError{reason: desired.ReasonRenderFailed,
				err: fmt.Errorf("gatewayTemplate.status.template: the API server refused the addresses it rendered: %w", err)})
		}
		return fmt.Errorf("write status of Gateway %s/%s: %w", gw.Namespace, gw.Name, err)
	}
	// The ListenerSets' status follows the Gateway's.
	return r.writeListenerSets(ctx, next, in, sets)
}

func isDesiredError(err error) bool {
	var de *desired.Error
	return errors.As(err, &de)
}

func pendingRoutes(res *desired.Result) bool {
	for _, r := range res.Routes {
		if len(r.Pending) > 0 {
			return true
		}
	}
	return false
}

func pendingSummary(res *desired.Result) string {
	var parts []string
	for _, p := range res.Pending {
		parts = append(parts, p.String())
	}
	for _, r := range res.Routes {
		for _, p := range r.Pending {
			parts = append(parts, fmt.Sprintf("%s %s: %s", r.Kind, r.NamespacedName, p))
		}
	}
	return strings.Join(parts, "; ")
}

func listenerStatus(gw *gwv1.Gateway, res *desired.Result, programmed metav1.Condition) []gwv1.ListenerStatus {
	out := make([]gwv1.ListenerStatus, 0, len(res.Listeners))
	for _, l := range res.Listeners {
		ls := gwv1.ListenerStatus{Name: l.Name, SupportedKinds: l.SupportedKinds, AttachedRoutes: l.AttachedRoutes}
		var prev []metav1.Condition
		if p := findListener(gw.Status.Listeners, l.Name); p != nil {
			prev = p.Conditions
		}
		ls.Conditions = listenerConditions(prev, l, gw.Generation, programmed)
		out = append(out, ls)
	}
	return out
}

// listenerConditions are the conditions of a listener of a Gateway or a ListenerSet (of
// generation gen) whose parent has the Programmed condition programmed; prev are its current ones.
func listenerConditions(prev []metav1.Condition, l desired.Listener, gen int64, programmed metav1.Condition) []metav1.Condition {
	// A copy: SetStatusCondition changes conditions in place, and the object's status must stay
	// what is live to tell whether anything changed.
	conds := slices.Clone(prev)
	la := metav1.Condition{Type: string(gwv1.ListenerConditionAccepted), Status: metav1.ConditionTrue, Reason: string(gwv1.ListenerReasonAccepted), ObservedGeneration: gen}
	switch {
	case l.Conflict != "":
		la.Status, la.Reason, la.Message = metav1.ConditionFalse, string(l.Conflict), l.ConflictMessage
	case l.Unsupported != "":
		la.Status, la.Reason, la.Message = metav1.ConditionFalse, string(cmp.Or(l.UnsupportedReason, gwv1.ListenerReasonUnsupportedProtocol)), l.Unsupported
	}
	meta.SetStatusCondition(&conds, la)
	resolved := metav1.Condition{Type: string(gwv1.ListenerConditionResolvedRefs), Status: metav1.ConditionTrue, Reason: string(gwv1.ListenerReasonResolvedRefs), ObservedGeneration: gen}
	switch {
	case l.RefReason != "":
		resolved.Status, resolved.Reason, resolved.Message = metav1.ConditionFalse, string(l.RefReason), l.RefMessage
	case l.Invalid != "":
		resolved.Status, resolved.Reason, resolved.Message = metav1.ConditionFalse, string(gwv1.ListenerReasonInvalidRouteKinds), l.Invalid
	}
	meta.SetStatusCondition(&conds, resolved)
	conflicted := metav1.Condition{Type: string(gwv1.ListenerConditionConflicted), Status: metav1.ConditionFalse, Reason: string(gwv1.ListenerReasonNoConflicts), ObservedGeneration: gen}
	if l.Conflict != "" {
		conflicted.Status, conflicted.Reason, conflicted.Message = metav1.ConditionTrue, string(l.Conflict), l.ConflictMessage
	}
	meta.SetStatusCondition(&conds, conflicted)
	lp := programmed
	lp.Type, lp.ObservedGeneration = string(gwv1.ListenerConditionProgrammed), gen
	switch {
	case l.Conflict != "":
		lp.Status, lp.Reason, lp.Message = metav1.ConditionFalse, string(l.Conflict), "the listener is not accepted (see Conflicted)"
	case l.Unsupported != "":
		lp.Status, lp.Reason, lp.Message = metav1.ConditionFalse, string(gwv1.ListenerReasonInvalid), "the listener is not accepted (see Accepted)"
	case l.RefReason != "":
		// Without its certificate a listener cannot serve, whatever was applied.
		lp.Status, lp.Reason, lp.Message = metav1.ConditionFalse, string(gwv1.ListenerReasonInvalid), "the listener's certificateRefs do not resolve (see ResolvedRefs)"
	case lp.Status == metav1.ConditionTrue:
		lp.Reason, lp.Message = string(gwv1.ListenerReasonProgrammed), ""
	}
	meta.SetStatusCondition(&conds, lp)
	return conds
}

// listenersNotValid turns the Gateway's Accepted condition into ListenersNotValid when a
// listener is not accepted: still True while another listener is, False when none is.
func listenersNotValid(accepted *metav1.Condition, listeners []desired.Listener) {
	var bad []string
	for _, l := range listeners {
		switch {
		case l.Unsupported != "":
			bad = append(bad, fmt.Sprintf("listener %s: %s", l.Name, l.Unsupported))
		case l.Conflict != "":
			bad = append(bad, fmt.Sprintf("listener %s: %s", l.Name, l.ConflictMessage))
		}
	}
	if len(bad) == 0 {
		return
	}
	accepted.Reason = string(gwv1.GatewayReasonListenersNotValid)
	accepted.Message = truncate(strings.Join(bad, "; "))
	if len(bad) == len(listeners) {
		accepted.Status = metav1.ConditionFalse
		accepted.Message = truncate("no listener is valid: " + accepted.Message)
	}
}

func findListener(ls []gwv1.ListenerStatus, name gwv1.SectionName) *gwv1.ListenerStatus {
	for i := range ls {
		if ls[i].Name == name {
			return &ls[i]
		}
	}
	return nil
}

// setAffected sets GEP-713's <Kind>Affected conditions for the policies that apply, and
// removes them when none does.
func setAffected(conds *[]metav1.Condition, gen int64, v *precedence.Result) {
	byKind := map[string][]string{}
	for _, o := range v.Outcomes {
		if o.State != precedence.StateNotApplicable {
			byKind[o.Kind] = append(byKind[o.Kind], fmt.Sprintf("%s (%s)", o.Ref, o.State))
		}
	}
	for kind, typ := range map[string]string{
		precedence.KindGatewayConfig:      ConditionGatewayConfigAffected,
		precedence.KindGatewayClassConfig: ConditionGatewayClassConfigAffected,
	} {
		if len(byKind[kind]) == 0 {
			meta.RemoveStatusCondition(conds, typ)
			continue
		}
		meta.SetStatusCondition(conds, metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: ReasonAffected, ObservedGeneration: gen,
			Message: truncate("values from " + strings.Join(byKind[kind], ", "))})
	}
}

// truncate cuts s to the API's limit, between runes: half a rune would be encoded as U+FFFD,
// three bytes, and could push the message past the limit again.
func truncate(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage - len("...")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// notRendered is the Programmed message of a Gateway whose render failed.
func notRendered(reason string) string {
	return truncate("not rendered: " + reason)
}
