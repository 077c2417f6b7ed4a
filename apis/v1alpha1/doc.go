// Package v1alpha1 holds Gantry's API: GatewayClassBlueprint (what a Gateway of a class turns
// into) and the two GEP-713 policy kinds that feed the blueprint's values, GatewayClassConfig
// (platform-owned) and GatewayConfig (tenant-owned).
//
// +kubebuilder:object:generate=true
// +groupName=gateway.gantry.dev
package v1alpha1
