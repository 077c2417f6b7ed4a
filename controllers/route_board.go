package controllers

import (
	"context"
	"sync"

	"gantry.dev/gantry/desired"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

// ConditionRouteRendered is the condition, in a route's status.parents entry for a Gantry
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

// routeBoard holds, per route (of any kind) and Gantry Gateway, the outcome the Gateway
// reconciler decided; the route's reconciler, the only writer of route status, puts it into
// status.parents. After a restart the board fills again as Gateways reconcile; until then a
// route's status keeps what it says.
type routeBoard struct {
	mu       sync.Mutex
	outcomes map[desired.RouteKey]map[types.NamespacedName]routeOutcome
	// routes receives, per route kind, the routes whose outcome changed.
	routes map[string]chan<- event.GenericEvent
}

// set records a route's outcome for a Gateway and reports whether it changed; a change wakes
// the route's reconciler.
func (b *routeBoard) set(ctx context.Context, route client.Object, gw types.NamespacedName, o routeOutcome) bool {
	key := desired.RouteKey{Kind: desired.RouteKindOf(route), NamespacedName: client.ObjectKeyFromObject(route)}
	b.mu.Lock()
	if b.outcomes == nil {
		b.outcomes = map[desired.RouteKey]map[types.NamespacedName]routeOutcome{}
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
	if ch := b.routes[key.Kind]; ch != nil {
		select {
		case ch <- event.GenericEvent{Object: route}:
		case <-ctx.Done():
		}
	}
	return true
}

// get returns a route's outcome for a Gateway, if decided since the process started.
func (b *routeBoard) get(route desired.RouteKey, gw types.NamespacedName) (routeOutcome, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.outcomes[route][gw]
	return o, ok
}

// forget drops what is known of a route that is gone.
func (b *routeBoard) forget(route desired.RouteKey) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.outcomes, route)
}
