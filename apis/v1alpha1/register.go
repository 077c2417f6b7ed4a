package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	// GroupName is the API group of Gantry's kinds.
	GroupName = "gateway.gantry.dev"
	// ControllerName is the GatewayClass spec.controllerName that Gantry serves.
	ControllerName = "gantry.dev/gateway-controller"
)

var (
	// GroupVersion is the group and version of this package's kinds.
	GroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

	schemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds this package's kinds to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&GatewayClassBlueprint{}, &GatewayClassBlueprintList{},
		&GatewayClassBlueprintRevision{}, &GatewayClassBlueprintRevisionList{},
		&GatewayClassConfig{}, &GatewayClassConfigList{},
		&GatewayConfig{}, &GatewayConfigList{},
	)
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
