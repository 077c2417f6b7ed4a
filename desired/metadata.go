package desired

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// ReasonNamespaceNotAllowed: the class's blueprint serves Gateways of other namespaces only.
const ReasonNamespaceNotAllowed = "NamespaceNotAllowed"

// classServesNamespace refuses a Gateway whose namespace the blueprint's spec.namespaces does not
// select: a class meant for one team is not everyone's. Nothing is rendered for it, and what
// was rendered before is kept, as for any Gateway whose desired state cannot be computed.
func classServesNamespace(in *Input) error {
	sel := in.Blueprint.Spec.Namespaces
	if sel == nil {
		return nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return fail(ReasonInvalidParameters, fmt.Errorf("GatewayClassBlueprint %s: spec.namespaces: %w", in.Blueprint.Name, err))
	}
	ns := in.Gateway.Namespace
	nsLabels, known := in.NamespaceLabels[ns]
	if s.Matches(labels.Set(nsLabels)) {
		return nil
	}
	why := fmt.Sprintf("the labels of namespace %s do not match it", ns)
	if !known {
		why = fmt.Sprintf("namespace %s is not known (offline, add its Namespace object to the input)", ns)
	}
	return fail(ReasonNamespaceNotAllowed, fmt.Errorf("GatewayClass %s serves Gateways in the namespaces its GatewayClassBlueprint %s selects (spec.namespaces %s), and %s",
		in.Gateway.Spec.GatewayClassName, in.Blueprint.Name, s, why))
}

// metadataPolicy decides which of a Gateway's spec.infrastructure labels and annotations reach
// a rendered object. They are the tenant's: a key can be a privilege (an RBAC aggregation label
// on a ClusterRole, Gantry's keep annotation on an object Gantry would otherwise remove), so
// Gantry's and Gateway API's own keys are never taken, cluster-scoped objects get them only when
// the blueprint says so, objects in another namespace (a route's) never, and the blueprint can
// allow or deny keys.
type metadataPolicy struct {
	infra     *gwv1.GatewayInfrastructure
	namespace string
	spec      v1alpha1.InfrastructureMetadata
}

func newMetadataPolicy(gw *gwv1.Gateway, bp *v1alpha1.GatewayClassBlueprint) metadataPolicy {
	p := metadataPolicy{infra: gw.Spec.Infrastructure, namespace: gw.Namespace}
	if bp != nil && bp.Spec.InfrastructureMetadata != nil {
		p.spec = *bp.Spec.InfrastructureMetadata
	}
	return p
}

// reservedDomains are the key domains no tenant metadata may use: Gantry's own (ownership,
// keep, template), Gateway API's (gateway-name, gateway-class-name).
var reservedDomains = []string{"gantry.dev", "gateway.networking.k8s.io"}

// reserved reports whether a label or annotation key is in one of reservedDomains or a
// subdomain of one.
func reserved(key string) bool {
	domain, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	domain = strings.ToLower(domain)
	for _, d := range reservedDomains {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
}

// matchesKey reports whether key is one of patterns: a key, or a prefix ending in '/' or '*'.
func matchesKey(key string, patterns []string) bool {
	for _, p := range patterns {
		switch {
		case p == key:
			return true
		case strings.HasSuffix(p, "*") && strings.HasPrefix(key, strings.TrimSuffix(p, "*")):
			return true
		case strings.HasSuffix(p, "/") && strings.HasPrefix(key, p):
			return true
		}
	}
	return false
}

// takes reports whether the policy lets key through.
func (p metadataPolicy) takes(key string) bool {
	if reserved(key) || matchesKey(key, p.spec.DeniedKeys) {
		return false
	}
	return len(p.spec.AllowedKeys) == 0 || matchesKey(key, p.spec.AllowedKeys)
}

// apply adds the taken labels and annotations to a rendered object's metadata. They only fill
// in: a key the template set keeps the template's value, and Gantry's own labels are set after
// this.
func (p metadataPolicy) apply(meta, objLabels map[string]any) {
	if p.infra == nil {
		return
	}
	switch ns, _ := meta["namespace"].(string); {
	case ns == "" && !p.spec.ClusterScoped:
		return
	case ns != "" && ns != p.namespace:
		return
	}
	for k, v := range p.infra.Labels {
		if _, ok := objLabels[string(k)]; !ok && p.takes(string(k)) {
			objLabels[string(k)] = string(v)
		}
	}
	annotations, _ := meta["annotations"].(map[string]any)
	for k, v := range p.infra.Annotations {
		if !p.takes(string(k)) {
			continue
		}
		if annotations == nil {
			annotations = map[string]any{}
			meta["annotations"] = annotations
		}
		if _, ok := annotations[string(k)]; !ok {
			annotations[string(k)] = string(v)
		}
	}
}
