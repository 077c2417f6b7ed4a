package controllers

import (
	"context"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ConditionRouteRendered is the condition, in an HTTPRoute's status.parents entry for a Gantry
// Gateway, that says whether the objects the route's templates render for that Gateway are
// applied. Gateway API has no standard condition for it; a failure here is the route's alone.
const ConditionRouteRendered = "gateway.gantry.dev/Rendered"

// ReasonRendered is ConditionRouteRendered's reason when the route's objects are applied.
const ReasonRendered = "Rendered"

// routeOutcome is what the Gateway reconciler decided for one route: a Rendered condition's
// status, reason and message, for the route generation it rendered.
type routeOutcome struct {
	status          metav1.ConditionStatus
	reason, message string
	generation      int64
}

func (o routeOutcome) condition() metav1.Condition {
	return metav1.Condition{Type: ConditionRouteRendered, Status: o.status, Reason: o.reason, Message: o.message, ObservedGeneration: o.generation}
}

// routeBoard holds, per HTTPRoute and Gantry Gateway, the outcome the Gateway reconciler
// decided; the HTTPRoute reconciler, the only writer of route status, puts it into
// status.parents. After a restart the board fills again as Gateways reconcile; until then a
// route's status keeps what it says.
type routeBoard struct {
	mu       sync.Mutex
	outcomes map[types.NamespacedName]map[types.NamespacedName]routeOutcome
	// routes receives the routes whose outcome changed.
	routes chan<- event.GenericEvent
}

// set records a route's outcome for a Gateway and reports whether it changed; a change wakes
// the route's reconciler.
func (b *routeBoard) set(ctx context.Context, route *gwv1.HTTPRoute, gw types.NamespacedName, o routeOutcome) bool {
	key := types.NamespacedName{Namespace: route.Namespace, Name: route.Name}
	b.mu.Lock()
	if b.outcomes == nil {
		b.outcomes = map[types.NamespacedName]map[types.NamespacedName]routeOutcome{}
	}
	if b.outcomes[key] == nil {
		b.outcomes[key] = map[types.NamespacedName]routeOutcome{}
	}
	prev, ok := b.outcomes[key][gw]
	b.outcomes[key][gw] = o
	b.mu.Unlock()
	if ok && prev == o {
		return false
	}
	if b.routes != nil {
		select {
		case b.routes <- event.GenericEvent{Object: route}:
		case <-ctx.Done():
		}
	}
	return true
}

// get returns a route's outcome for a Gateway, if decided since the process started.
func (b *routeBoard) get(route, gw types.NamespacedName) (routeOutcome, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.outcomes[route][gw]
	return o, ok
}

// forget drops what is known of a route that is gone.
func (b *routeBoard) forget(route types.NamespacedName) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.outcomes, route)
}
