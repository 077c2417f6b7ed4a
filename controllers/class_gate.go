package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Reasons for a Gateway's Accepted=False when its class cannot say whose the Gateway is.
// Gateway API defines none for this: its Accepted=False reasons (Invalid, InvalidParameters,
// UnsupportedAddress, ListenersNotValid) describe the Gateway's own spec, Pending is for
// Unknown before any controller looked, and NoResources belongs to Programmed. The API allows
// implementation-specific reasons, so Gantry names the situation exactly.
const (
	// ReasonGatewayClassNotFound: the Gateway's GatewayClass does not exist. What Gantry
	// rendered for the Gateway stays as it is until the class is back or the Gateway is
	// deleted or moved to another controller's class.
	ReasonGatewayClassNotFound = "GatewayClassNotFound"
	// ReasonGatewayClassDeleting: the Gateway's GatewayClass is being deleted (held by
	// Gateway API's gateway-exists finalizer while Gateways use it). Rendered objects stay.
	ReasonGatewayClassDeleting = "GatewayClassDeleting"
)

// classState is what a Gateway's class says about whether the Gateway is Gantry's.
type classState int

const (
	// classOurs: the class exists, names Gantry's controller and is not being deleted.
	classOurs classState = iota
	// classOther: the class exists and names another controller: the Gateway has left Gantry,
	// and what Gantry rendered for it goes.
	classOther
	// classMissing: the class does not exist. Nobody can say whose the Gateway is, so nothing
	// is removed: a class deleted by mistake and recreated must not be an outage.
	classMissing
	// classDeleting: Gantry's class is being deleted, held by the gateway-exists finalizer
	// while Gateways use it. The Gateway is still Gantry's; nothing is removed.
	classDeleting
)

// classUnavailable handles a Gateway whose class is missing or being deleted: nothing is
// rendered, applied or removed, and the Gateway's Accepted condition says why. Programmed is
// left as it was: the objects it describes are still in place and serving.
func (r *GatewayReconciler) classUnavailable(ctx context.Context, gw *gwv1.Gateway, g *gathered) error {
	key := client.ObjectKeyFromObject(gw)
	if g.class == classMissing && len(g.owned) == 0 && !controllerutil.ContainsFinalizer(gw, Finalizer) {
		// Nothing shows that Gantry ever served this Gateway: it may be another controller's
		// whose class does not exist yet. Its status is not Gantry's to write.
		r.notifyRefs(ctx, r.board.forget(key, false))
		return nil
	}
	// The policies' outcomes on this Gateway stay what they were, as its objects do.
	r.board.attempted(key)
	accepted := metav1.Condition{
		Type: string(gwv1.GatewayConditionAccepted), Status: metav1.ConditionFalse, ObservedGeneration: gw.Generation,
		Reason:  ReasonGatewayClassNotFound,
		Message: fmt.Sprintf("GatewayClass %s does not exist; the objects rendered for this Gateway are kept as they are until the class exists again, or the Gateway is deleted or moved to another controller's class", g.className),
	}
	if g.class == classDeleting {
		accepted.Reason = ReasonGatewayClassDeleting
		accepted.Message = fmt.Sprintf("GatewayClass %s is being deleted; it stays until no Gateway names it. The objects rendered for this Gateway are kept as they are until the Gateway is deleted or moved to another class", g.className)
	}
	next := gw.DeepCopy()
	if prev := meta.FindStatusCondition(gw.Status.Conditions, accepted.Type); prev == nil || prev.Reason != accepted.Reason {
		r.event(gw, corev1.EventTypeWarning, accepted.Reason, "Reconcile", "%s", accepted.Message)
	}
	meta.SetStatusCondition(&next.Status.Conditions, accepted)
	if equality.Semantic.DeepEqual(gw.Status, next.Status) {
		return nil
	}
	if err := r.statusWrites.patch(ctx, r.Client, gw, next); err != nil {
		return fmt.Errorf("write status of Gateway %s: %w", key, err)
	}
	return nil
}
