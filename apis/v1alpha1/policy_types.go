package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// GatewayClassConfig is a platform-owned GEP-713 inherited policy that supplies template values
// to every Gateway of a GatewayClass. In the controller's namespace and targeting a
// GatewayClass it is global; in a tenant namespace it targets that Namespace or a GatewayClass
// and applies to the Gateways of that namespace.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=gcc,categories=gantry
// +kubebuilder:metadata:labels="gateway.networking.k8s.io/policy=inherited"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Target Kind",type=string,JSONPath=`.spec.targetRef.kind`
// +kubebuilder:printcolumn:name="Target Name",type=string,JSONPath=`.spec.targetRef.name`
// +kubebuilder:printcolumn:name="Accepted",type=string,JSONPath=`.status.ancestors[0].conditions[?(@.type=="Accepted")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type GatewayClassConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GatewayClassConfigSpec `json:"spec"`
	Status PolicyStatus           `json:"status,omitempty"`
}

// GatewayClassConfigSpec targets a GatewayClass or a Namespace and carries values.
//
// +kubebuilder:validation:XValidation:rule="(self.targetRef.group == 'gateway.networking.k8s.io' && self.targetRef.kind == 'GatewayClass') || (size(self.targetRef.group) == 0 && self.targetRef.kind == 'Namespace')",message="a GatewayClassConfig may target only a GatewayClass (group gateway.networking.k8s.io) or a Namespace (group \"\")"
type GatewayClassConfigSpec struct {
	// TargetRef is the GatewayClass or Namespace whose Gateways get these values.
	TargetRef    PolicyTargetReference `json:"targetRef"`
	PolicyValues `json:",inline"`
}

// GatewayConfig is a tenant-owned GEP-713 inherited policy that supplies template values to
// the Gateways (or HTTPRoutes) of its namespace. Its values are data: they can fill in what a
// blueprint's templates write, never add objects or fields.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=gwc,categories=gantry
// +kubebuilder:metadata:labels="gateway.networking.k8s.io/policy=inherited"
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Target Kind",type=string,JSONPath=`.spec.targetRef.kind`
// +kubebuilder:printcolumn:name="Target Name",type=string,JSONPath=`.spec.targetRef.name`
// +kubebuilder:printcolumn:name="Accepted",type=string,JSONPath=`.status.ancestors[0].conditions[?(@.type=="Accepted")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type GatewayConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GatewayConfigSpec `json:"spec"`
	Status PolicyStatus      `json:"status,omitempty"`
}

// GatewayConfigSpec targets a Gateway, an HTTPRoute or a Namespace and carries values.
//
// +kubebuilder:validation:XValidation:rule="(self.targetRef.group == 'gateway.networking.k8s.io' && self.targetRef.kind in ['Gateway', 'HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute']) || (size(self.targetRef.group) == 0 && self.targetRef.kind == 'Namespace')",message="a GatewayConfig may target only a Gateway or a route (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute; group gateway.networking.k8s.io) or a Namespace (group \"\")"
type GatewayConfigSpec struct {
	// TargetRef is the Gateway, route (of any Gateway API route kind) or Namespace these values
	// are for.
	TargetRef    PolicyTargetReference `json:"targetRef"`
	PolicyValues `json:",inline"`
}

// PolicyTargetReference names the object a policy attaches to, in the policy's own namespace
// (or, for a Namespace, the policy's namespace itself).
type PolicyTargetReference struct {
	// Group of the target; "" for Namespace.
	Group gwv1.Group `json:"group"`
	// Kind of the target.
	Kind gwv1.Kind `json:"kind"`
	// Name of the target.
	Name gwv1.ObjectName `json:"name"`
	// Namespace of the target. Accepted for bifrost-gateway-controller's policies, which carry
	// it; a policy can only target objects in its own namespace, so it must be that namespace
	// (another makes the policy Accepted=False, reason Invalid).
	// +optional
	Namespace *gwv1.Namespace `json:"namespace,omitempty"`
}

// PolicyValues are the two GEP-713 stanzas of a policy.
type PolicyValues struct {
	// Default values: beaten by values of more specific policies.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Default *apiextensionsv1.JSON `json:"default,omitempty"`
	// Override values: beat values of more specific policies, and every default.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Override *apiextensionsv1.JSON `json:"override,omitempty"`
}

// PolicyStatus is the GEP-713 status of a policy: one entry per ancestor (the Gateways the
// policy reaches), each with an Accepted condition and Gantry's enforcement condition.
type PolicyStatus struct {
	// Ancestors lists, per affected Gateway, whether the policy is accepted and enforced.
	// Past 16 Gateways the list is aggregated.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Ancestors []gwv1.PolicyAncestorStatus `json:"ancestors,omitempty"`
}

// +kubebuilder:object:root=true

// GatewayClassConfigList is a list of GatewayClassConfigs.
type GatewayClassConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GatewayClassConfig `json:"items"`
}

// +kubebuilder:object:root=true

// GatewayConfigList is a list of GatewayConfigs.
type GatewayConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GatewayConfig `json:"items"`
}
