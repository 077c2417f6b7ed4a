package v1alpha1

// Policy is what GatewayClassConfig and GatewayConfig have in common.
//
// +kubebuilder:object:generate=false
type Policy interface {
	GetTargetRef() PolicyTargetReference
	GetPolicyStatus() *PolicyStatus
}

// GetTargetRef returns spec.targetRef.
func (p *GatewayClassConfig) GetTargetRef() PolicyTargetReference { return p.Spec.TargetRef }

// GetPolicyStatus returns the status to fill in.
func (p *GatewayClassConfig) GetPolicyStatus() *PolicyStatus { return &p.Status }

// GetTargetRef returns spec.targetRef.
func (p *GatewayConfig) GetTargetRef() PolicyTargetReference { return p.Spec.TargetRef }

// GetPolicyStatus returns the status to fill in.
func (p *GatewayConfig) GetPolicyStatus() *PolicyStatus { return &p.Status }
