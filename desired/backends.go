package desired

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// BackendServiceKeys are the namespace/name of the Services an HTTPRoute's rules name as
// backends, for the controller to gather and to index.
func BackendServiceKeys(r *gwv1.HTTPRoute) []types.NamespacedName {
	var out []types.NamespacedName
	for _, rule := range r.Spec.Rules {
		for _, b := range rule.BackendRefs {
			if isService(b.BackendObjectReference) {
				out = append(out, backendKey(r, b.BackendObjectReference))
			}
		}
	}
	return out
}

func isService(ref gwv1.BackendObjectReference) bool {
	return (ref.Group == nil || *ref.Group == "") && (ref.Kind == nil || *ref.Kind == "Service")
}

func backendKey(r *gwv1.HTTPRoute, ref gwv1.BackendObjectReference) types.NamespacedName {
	return refKey(r.Namespace, ref)
}

// refKey is the namespace/name a backendRef of a route in namespace ns names.
func refKey(ns string, ref gwv1.BackendObjectReference) types.NamespacedName {
	key := types.NamespacedName{Namespace: ns, Name: string(ref.Name)}
	if ref.Namespace != nil {
		key.Namespace = string(*ref.Namespace)
	}
	return key
}

// Backend is one backendRef of an HTTPRoute and whether it resolves, as route templates see it
// in .Backends.
type Backend struct {
	// Rule and Index place it: spec.rules[Rule].backendRefs[Index].
	Rule, Index int
	Group       string // "" for the core group
	Kind        string
	Namespace   string // the route's when the reference names none
	Name        string
	Port        *int32
	Weight      int32
	// Reason is ResolvedRefs when it resolves, else why not: InvalidKind, RefNotPermitted,
	// BackendNotFound (Gateway API's ResolvedRefs reasons). Message says why, naming the Service.
	Reason  gwv1.RouteConditionReason
	Message string
}

// Resolved reports whether the reference resolves.
func (b Backend) Resolved() bool { return b.Reason == gwv1.RouteReasonResolvedRefs }

// Backends resolves every backendRef of an HTTPRoute, in the order of spec.rules and their
// backendRefs. serviceExists reports whether a Service exists; grants are the ReferenceGrants
// of the namespaces the route refers into (BackendNamespaces).
func Backends(r *gwv1.HTTPRoute, serviceExists func(types.NamespacedName) bool, grants []*gwv1beta1.ReferenceGrant) []Backend {
	o, _ := wrapRoute(r)
	return backendsOf(o, serviceExists, grants)
}

// RouteBackends is Backends for a route of any of RouteKinds.
func RouteBackends(route client.Object, serviceExists func(types.NamespacedName) bool, grants []*gwv1beta1.ReferenceGrant) []Backend {
	o, ok := wrapRoute(route)
	if !ok {
		return nil
	}
	return backendsOf(o, serviceExists, grants)
}

func backendsOf(r routeObj, serviceExists func(types.NamespacedName) bool, grants []*gwv1beta1.ReferenceGrant) []Backend {
	var out []Backend
	for i, rule := range r.backends {
		for j, b := range rule {
			ref := b.BackendObjectReference
			key := refKey(r.Namespace, ref)
			be := Backend{Rule: i, Index: j, Kind: "Service", Namespace: key.Namespace, Name: key.Name, Weight: 1, Reason: gwv1.RouteReasonResolvedRefs}
			if ref.Group != nil {
				be.Group = string(*ref.Group)
			}
			if ref.Kind != nil {
				be.Kind = string(*ref.Kind)
			}
			if ref.Port != nil {
				be.Port = ptr(int32(*ref.Port))
			}
			if b.Weight != nil {
				be.Weight = *b.Weight
			}
			switch {
			case !isService(ref):
				be.Reason, be.Message = gwv1.RouteReasonInvalidKind, fmt.Sprintf("Gantry's backends are core Services, not %s", strings.TrimSuffix(be.Kind+"."+be.Group, "."))
			case !ReferenceAllowed(grants, gwv1.GroupName, r.kind, r.Namespace, "", "Service", key.Namespace, key.Name):
				be.Reason, be.Message = gwv1.RouteReasonRefNotPermitted, fmt.Sprintf("Service %s is in another namespace, and no ReferenceGrant in namespace %s allows %ss of namespace %s to refer to it", key, key.Namespace, r.kind, r.Namespace)
			case !serviceExists(key):
				be.Reason, be.Message = gwv1.RouteReasonBackendNotFound, fmt.Sprintf("Service %s does not exist", key)
			}
			out = append(out, be)
		}
	}
	return out
}

// BackendRefs says why an HTTPRoute's backendRefs do not all resolve, as Gateway API's
// ResolvedRefs reasons (InvalidKind, RefNotPermitted, BackendNotFound) with the first such
// reference in the message; an empty reason when they all resolve. serviceExists reports
// whether a Service exists.
func BackendRefs(r *gwv1.HTTPRoute, serviceExists func(types.NamespacedName) bool, grants []*gwv1beta1.ReferenceGrant) (gwv1.RouteConditionReason, string) {
	for _, b := range Backends(r, serviceExists, grants) {
		if !b.Resolved() {
			return b.Reason, fmt.Sprintf("spec.rules[%d].backendRefs[%d]: %s", b.Rule, b.Index, b.Message)
		}
	}
	return "", ""
}

// backendsData is .Backends as route templates see it: one map per backendRef, in order.
func backendsData(bs []Backend) []any {
	out := make([]any, len(bs))
	for i, b := range bs {
		m := map[string]any{
			"rule": int64(b.Rule), "index": int64(b.Index),
			"group": b.Group, "kind": b.Kind, "namespace": b.Namespace, "name": b.Name,
			"weight":   int64(b.Weight),
			"resolved": b.Resolved(), "reason": string(b.Reason), "message": b.Message,
		}
		if b.Port != nil {
			m["port"] = int64(*b.Port)
		}
		out[i] = m
	}
	return out
}

// BackendNamespaces are the namespaces other than the route's that its backendRefs name, where
// ReferenceGrants decide.
func BackendNamespaces(r *gwv1.HTTPRoute) map[string]bool {
	out := map[string]bool{}
	for _, rule := range r.Spec.Rules {
		for _, b := range rule.BackendRefs {
			if b.Namespace != nil && string(*b.Namespace) != r.Namespace {
				out[string(*b.Namespace)] = true
			}
		}
	}
	return out
}
