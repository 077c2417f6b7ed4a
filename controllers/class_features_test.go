package controllers_test

import (
	"fmt"
	"slices"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestGatewayClassSupportedFeatures: an accepted Gantry class publishes the Gateway API
// features Gantry implements (status.supportedFeatures, sorted), which the conformance suite
// and users read.
func TestGatewayClassSupportedFeatures(t *testing.T) {
	ns := namespace(t, nil)
	create(t, blueprint("features-"+ns, `{}`, map[string]string{"values": valuesTemplate}), gantryClass("features-"+ns, "features-"+ns))
	// The route kinds too: envtest serves every standard one.
	want := []gwv1.FeatureName{"GRPCRoute", "Gateway", "GatewayInfrastructure", "HTTPRoute", "ListenerSet", "ReferenceGrant", "TCPRoute", "TLSRoute", "UDPRoute"}
	eventually(t, "supportedFeatures published", func() error {
		class := &gwv1.GatewayClass{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Name: "features-" + ns}, class); err != nil {
			return err
		}
		var got []gwv1.FeatureName
		for _, f := range class.Status.SupportedFeatures {
			got = append(got, f.Name)
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("supportedFeatures = %v, want %v", got, want)
		}
		return nil
	})
}
