package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/desired"
)

// writeListenerSets writes the status of each ListenerSet that names gw (with the status just
// computed for it) as its parent, when it changed. The Gateway reconciler owns it: whether a
// ListenerSet is accepted depends on the Gateway and on every other ListenerSet of it.
func (r *GatewayReconciler) writeListenerSets(ctx context.Context, gw *gwv1.Gateway, in *desired.Input, sets []desired.ListenerSet) error {
	if in == nil {
		return nil
	}
	var errs []error
	for _, o := range sets {
		i := slices.IndexFunc(in.ListenerSets, func(ls *gwv1.ListenerSet) bool { return ls.Namespace == o.Namespace && ls.Name == o.Name })
		if i < 0 {
			continue
		}
		ls := in.ListenerSets[i]
		next := nextListenerSetStatus(ls, o, gw)
		if equality.Semantic.DeepEqual(ls.Status, next.Status) {
			continue
		}
		if err := r.statusWrites.patch(ctx, r.Client, ls, next); err != nil {
			errs = append(errs, fmt.Errorf("write status of ListenerSet %s: %w", client.ObjectKeyFromObject(ls), err))
		}
	}
	return errors.Join(errs...)
}

// nextListenerSetStatus is ls with the status its outcome o gives it under gw, whose status is
// the one just computed.
func nextListenerSetStatus(ls *gwv1.ListenerSet, o desired.ListenerSet, gw *gwv1.Gateway) *gwv1.ListenerSet {
	next := ls.DeepCopy()
	gen := ls.Generation
	gwKey := client.ObjectKeyFromObject(gw)
	gwAccepted := meta.FindStatusCondition(gw.Status.Conditions, string(gwv1.GatewayConditionAccepted))
	gwProgrammed := meta.FindStatusCondition(gw.Status.Conditions, string(gwv1.GatewayConditionProgrammed))
	accepted := metav1.Condition{Type: string(gwv1.ListenerSetConditionAccepted), Status: metav1.ConditionTrue, Reason: string(gwv1.ListenerSetReasonAccepted),
		Message: fmt.Sprintf("attached to Gateway %s", gwKey), ObservedGeneration: gen}
	switch {
	case o.Reason == gwv1.ListenerSetReasonNotAllowed:
		accepted.Status, accepted.Reason, accepted.Message = metav1.ConditionFalse, string(o.Reason), truncate(o.Message)
	case gwAccepted == nil || gwAccepted.Status != metav1.ConditionTrue:
		// The Gateway's reason, not its message: the message is about its owner's values and
		// blueprint, which are not the ListenerSet's owner's to read (issue 19).
		why := "it has no Accepted condition yet"
		if gwAccepted != nil {
			why = gwAccepted.Reason + "; its owner reads why in its status"
		}
		accepted.Status, accepted.Reason, accepted.Message = metav1.ConditionFalse, string(gwv1.ListenerSetReasonParentNotAccepted), truncate(fmt.Sprintf("Gateway %s is not accepted: %s", gwKey, why))
	case o.Reason != "":
		accepted.Status, accepted.Reason, accepted.Message = metav1.ConditionFalse, string(o.Reason), truncate(o.Message)
	case o.Message != "":
		// Accepted, with some listeners that are not valid.
		accepted.Reason, accepted.Message = string(gwv1.ListenerSetReasonListenersNotValid), truncate(o.Message)
	}
	programmed := metav1.Condition{Type: string(gwv1.ListenerSetConditionProgrammed), Status: metav1.ConditionTrue, Reason: string(gwv1.ListenerSetReasonProgrammed),
		Message: fmt.Sprintf("Gateway %s is programmed", gwKey), ObservedGeneration: gen}
	switch {
	case accepted.Status == metav1.ConditionFalse:
		programmed.Status, programmed.Reason, programmed.Message = metav1.ConditionFalse, accepted.Reason, accepted.Message
	case gwProgrammed == nil:
		programmed.Status, programmed.Reason, programmed.Message = metav1.ConditionFalse, string(gwv1.ListenerSetReasonPending), fmt.Sprintf("Gateway %s is not programmed yet", gwKey)
	case gwProgrammed.Status == metav1.ConditionTrue:
	case gwProgrammed.Reason == string(gwv1.GatewayReasonPending):
		programmed.Status, programmed.Reason, programmed.Message = metav1.ConditionFalse, string(gwv1.ListenerSetReasonPending), truncate(fmt.Sprintf("Gateway %s: %s", gwKey, gwProgrammed.Message))
	default:
		programmed.Status, programmed.Reason, programmed.Message = metav1.ConditionFalse, string(gwv1.ListenerSetReasonInvalid), truncate(fmt.Sprintf("Gateway %s is not programmed (%s); its owner reads why in its status", gwKey, gwProgrammed.Reason))
	}
	conds := slices.Clone(ls.Status.Conditions)
	meta.SetStatusCondition(&conds, accepted)
	meta.SetStatusCondition(&conds, programmed)
	next.Status.Conditions = conds

	// A listener's Programmed follows the Gateway's, as a Gateway listener's does.
	parent := metav1.Condition{Type: string(gwv1.ListenerConditionProgrammed), Status: metav1.ConditionFalse, Reason: string(gwv1.ListenerReasonPending), Message: programmed.Message}
	if gwProgrammed != nil {
		parent = *gwProgrammed
		if parent.Status != metav1.ConditionTrue {
			parent.Message = programmed.Message // not the Gateway's own message, as above
		}
	}
	next.Status.Listeners = nil
	for _, l := range o.Listeners {
		var prev []metav1.Condition
		for _, p := range ls.Status.Listeners {
			if p.Name == l.Name {
				prev = p.Conditions
			}
		}
		next.Status.Listeners = append(next.Status.Listeners, gwv1.ListenerEntryStatus{
			Name: l.Name, SupportedKinds: l.SupportedKinds, AttachedRoutes: l.AttachedRoutes,
			Conditions: listenerConditions(prev, l, gen, parent),
		})
	}
	return next
}
