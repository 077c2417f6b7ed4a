package v1alpha1

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GatewayClassBlueprintRevision is one version of a blueprint's spec, kept as it was: the
// controller makes one for every spec a blueprint has had, named after the blueprint and a hash
// of the spec, and keeps the newest few. A Gateway's status names the revision it was rendered
// from; going back to one is applying its spec to the blueprint again, which renders exactly
// what it rendered before.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=gcbpr,categories=gantry
// +kubebuilder:printcolumn:name="Blueprint",type=string,JSONPath=`.spec.blueprint`
// +kubebuilder:printcolumn:name="Revision",type=integer,JSONPath=`.spec.revision`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type GatewayClassBlueprintRevision struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GatewayClassBlueprintRevisionSpec `json:"spec"`
}

// GatewayClassBlueprintRevisionSpec is a blueprint's spec as it was at one revision. The
// blueprint and the template never change; the revision number does when the blueprint goes
// back to a spec it had: that revision becomes the newest again.
//
// +kubebuilder:validation:XValidation:rule="self.template == oldSelf.template && self.blueprint == oldSelf.blueprint && has(self.classConfigs) == has(oldSelf.classConfigs) && (!has(self.classConfigs) || self.classConfigs == oldSelf.classConfigs)",message="a revision's template and class configs are immutable: change the blueprint or a class-wide GatewayClassConfig, and the controller makes a new revision"
type GatewayClassBlueprintRevisionSpec struct {
	// Blueprint is the name of the GatewayClassBlueprint this is a revision of.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Blueprint string `json:"blueprint"`
	// Revision numbers a blueprint's revisions in the order they became current, from 1.
	// +kubebuilder:validation:Minimum=1
	Revision int64 `json:"revision"`
	// Template is the blueprint's spec at this revision.
	Template GatewayClassBlueprintSpec `json:"template"`
	// ClassConfigs are the class-wide GatewayClassConfigs at this revision: those of the
	// controller's namespace that target a GatewayClass naming the blueprint. They change the
	// values of every Gateway of a class, so a change of one is a revision too.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	ClassConfigs []ClassConfig `json:"classConfigs,omitempty"`
}

// ClassConfig is a class-wide GatewayClassConfig as a revision keeps it.
type ClassConfig struct {
	// +kubebuilder:validation:MaxLength=253
	Namespace string `json:"namespace"`
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Created is its creationTimestamp, which orders policies of one level (GEP-713).
	Created metav1.Time            `json:"created"`
	Spec    GatewayClassConfigSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// GatewayClassBlueprintRevisionList is a list of GatewayClassBlueprintRevisions.
type GatewayClassBlueprintRevisionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GatewayClassBlueprintRevision `json:"items"`
}

// LabelBlueprint labels a revision with the name of its blueprint.
const LabelBlueprint = "gateway.gantry.dev/blueprint"

// RevisionName is the name of the revision holding spec for blueprint: the blueprint's name and
// the first 10 hex digits of a SHA-256 of the spec as JSON. The same spec is the same revision,
// so a Gateway rendered from a spec can name its revision without reading it. A name over 253
// characters keeps the hash and cuts the blueprint's name.
//
// The rollout strategy is left out: it says how a revision travels, not what it renders.
func RevisionName(blueprint string, spec *GatewayClassBlueprintSpec) string {
	b, err := json.Marshal(RevisionTemplate(spec))
	if err != nil {
		panic(err) // a struct of plain fields and raw JSON: cannot fail
	}
	return revisionName(blueprint, b)
}

func revisionName(blueprint string, b []byte) string {
	sum := sha256.Sum256(b)
	suffix := "-" + hex.EncodeToString(sum[:5])
	if len(blueprint)+len(suffix) > 253 {
		blueprint = blueprint[:253-len(suffix)]
	}
	return blueprint + suffix
}

// RevisionNameWith is RevisionName for a spec and the class-wide GatewayClassConfigs beside
// it: with none, exactly RevisionName; with some, the hash covers them too, in their order
// (which is their precedence) but not their creation times, so that the same policies make the
// same name on any cluster.
func RevisionNameWith(blueprint string, spec *GatewayClassBlueprintSpec, configs []ClassConfig) string {
	if len(configs) == 0 {
		return RevisionName(blueprint, spec)
	}
	timeless := make([]ClassConfig, len(configs))
	for i, c := range configs {
		timeless[i] = c
		timeless[i].Created = metav1.Time{}
	}
	b, err := json.Marshal(struct {
		Template *GatewayClassBlueprintSpec `json:"template"`
		Configs  []ClassConfig              `json:"classConfigs"`
	}{RevisionTemplate(spec), timeless})
	if err != nil {
		panic(err) // plain fields and raw JSON: cannot fail
	}
	return revisionName(blueprint, b)
}

// RevisionTemplate is what a revision keeps of a blueprint's spec: all of it but the rollout.
func RevisionTemplate(spec *GatewayClassBlueprintSpec) *GatewayClassBlueprintSpec {
	if spec.Rollout == nil {
		return spec
	}
	out := *spec
	out.Rollout = nil
	return &out
}
