package desired

import (
	"fmt"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// ParametersRef is the GatewayConfig a Gateway's spec.infrastructure.parametersRef names, when
// it names one (GEP-1867); nil otherwise.
func ParametersRef(gw *gwv1.Gateway) *gwv1.LocalParametersReference {
	if gw.Spec.Infrastructure == nil {
		return nil
	}
	return gw.Spec.Infrastructure.ParametersRef
}

// withParameters adds the GatewayConfig of spec.infrastructure.parametersRef to the Gateway's
// policies as its level-5 policy: a copy that targets the Gateway, whatever the original
// targets. A parametersRef that is not a GatewayConfig, or names one that does not exist in the
// Gateway's namespace, is InvalidParameters: the Gateway is not accepted.
func withParameters(gw *gwv1.Gateway, params *v1alpha1.GatewayConfig, gcs []*v1alpha1.GatewayConfig) ([]*v1alpha1.GatewayConfig, error) {
	ref := ParametersRef(gw)
	if ref == nil {
		return gcs, nil
	}
	if string(ref.Group) != v1alpha1.GroupName || ref.Kind != "GatewayConfig" {
		return nil, fail(ReasonInvalidParameters, fmt.Errorf("spec.infrastructure.parametersRef is %s.%s %s; Gantry takes a GatewayConfig.%s in the Gateway's namespace",
			ref.Kind, ref.Group, ref.Name, v1alpha1.GroupName))
	}
	if params == nil || params.Name != ref.Name || params.Namespace != gw.Namespace {
		return nil, fail(ReasonInvalidParameters, fmt.Errorf("spec.infrastructure.parametersRef names GatewayConfig %s, which does not exist in namespace %s", ref.Name, gw.Namespace))
	}
	p := params.DeepCopy()
	p.Spec.TargetRef = v1alpha1.PolicyTargetReference{Group: gwv1.GroupName, Kind: "Gateway", Name: gwv1.ObjectName(gw.Name)}
	out := make([]*v1alpha1.GatewayConfig, 0, len(gcs)+1)
	for _, gc := range gcs {
		if gc.Namespace != p.Namespace || gc.Name != p.Name {
			out = append(out, gc)
		}
	}
	return append(out, p), nil
}
