package desired

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"
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
	key := types.NamespacedName{Namespace: r.Namespace, Name: string(ref.Name)}
	if ref.Namespace != nil {
		key.Namespace = string(*ref.Namespace)
	}
	return key
}

// BackendRefs says why an HTTPRoute's backendRefs do not all resolve, as Gateway API's
// ResolvedRefs reasons (InvalidKind, RefNotPermitted, BackendNotFound) with the first such
// reference in the message; an empty reason when they all resolve. serviceExists reports
// whether a Service exists.
func BackendRefs(r *gwv1.HTTPRoute, serviceExists func(types.NamespacedName) bool, grants []*gwv1beta1.ReferenceGrant) (gwv1.RouteConditionReason, string) {
	for i, rule := range r.Spec.Rules {
		for j, b := range rule.BackendRefs {
			field := fmt.Sprintf("spec.rules[%d].backendRefs[%d]: ", i, j)
			ref := b.BackendObjectReference
			if !isService(ref) {
				group, kind := "", "Service"
				if ref.Group != nil {
					group = string(*ref.Group)
				}
				if ref.Kind != nil {
					kind = string(*ref.Kind)
				}
				return gwv1.RouteReasonInvalidKind, field + fmt.Sprintf("Gantry's backends are core Services, not %s", strings.TrimSuffix(kind+"."+group, "."))
			}
			key := backendKey(r, ref)
			if !ReferenceAllowed(grants, gwv1.GroupName, "HTTPRoute", r.Namespace, "", "Service", key.Namespace, key.Name) {
				return gwv1.RouteReasonRefNotPermitted, field + fmt.Sprintf("Service %s is in another namespace, and no ReferenceGrant in namespace %s allows HTTPRoutes of namespace %s to refer to it", key, key.Namespace, r.Namespace)
			}
			if !serviceExists(key) {
				return gwv1.RouteReasonBackendNotFound, field + fmt.Sprintf("Service %s does not exist", key)
			}
		}
	}
	return "", ""
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
