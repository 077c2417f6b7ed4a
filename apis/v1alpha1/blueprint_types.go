package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// GatewayClassBlueprint turns each Gateway of a class that refers to it into the infrastructure
// behind that Gateway. It is written by the platform team and trusted: its templates decide which
// objects exist, and tenant values only fill them in.
//
// The field names (values.default/override, gatewayTemplate.resourceTemplates,
// gatewayTemplate.status.template, httpRouteTemplate) are kept from bifrost-gateway-controller
// so that its blueprints render here after only their apiVersion changes.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=gcbp,categories=gantry
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Accepted",type=string,JSONPath=`.status.conditions[?(@.type=="Accepted")].status`
// +kubebuilder:printcolumn:name="Revision",type=integer,JSONPath=`.status.revision`
// +kubebuilder:printcolumn:name="Rollout",type=string,JSONPath=`.status.rollout.phase`
// +kubebuilder:printcolumn:name="Updated",type=integer,JSONPath=`.status.rollout.updated`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type GatewayClassBlueprint struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GatewayClassBlueprintSpec   `json:"spec"`
	Status GatewayClassBlueprintStatus `json:"status,omitempty"`
}

// GatewayClassBlueprintSpec holds the templates and the blueprint's own values.
type GatewayClassBlueprintSpec struct {
	// Values are the blueprint's own values: the lowest-precedence defaults and the
	// highest-precedence overrides of the whole chain.
	// +optional
	Values ValuesStanzas `json:"values,omitempty"`

	// ValuesSchema is an optional JSON Schema that the merged .Values of every Gateway must
	// satisfy. A violation names the value's path and the object that supplied it.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	ValuesSchema *apiextensionsv1.JSON `json:"valuesSchema,omitempty"`

	// GatewayTemplate is rendered once per Gateway.
	// +optional
	GatewayTemplate GatewayTemplate `json:"gatewayTemplate,omitempty"`

	// HTTPRouteTemplate is rendered once per HTTPRoute and parent Gateway of a class using this
	// blueprint.
	// +optional
	HTTPRouteTemplate *RouteTemplate `json:"httpRouteTemplate,omitempty"`

	// GRPCRouteTemplate is rendered once per GRPCRoute and parent Gateway, as
	// httpRouteTemplate is per HTTPRoute; its templates read the route as .GRPCRoute (and .Route).
	// +optional
	GRPCRouteTemplate *RouteTemplate `json:"grpcRouteTemplate,omitempty"`

	// TLSRouteTemplate is rendered once per TLSRoute and parent Gateway (.TLSRoute, .Route).
	// +optional
	TLSRouteTemplate *RouteTemplate `json:"tlsRouteTemplate,omitempty"`

	// TCPRouteTemplate is rendered once per TCPRoute and parent Gateway (.TCPRoute, .Route).
	// +optional
	TCPRouteTemplate *RouteTemplate `json:"tcpRouteTemplate,omitempty"`

	// UDPRouteTemplate is rendered once per UDPRoute and parent Gateway (.UDPRoute, .Route).
	// +optional
	UDPRouteTemplate *RouteTemplate `json:"udpRouteTemplate,omitempty"`

	// ClusterScopedKinds lists the cluster-scoped kinds this blueprint may produce. Any other
	// cluster-scoped kind in the output is an error; namespaced objects always land in the
	// Gateway's (or route's) namespace.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	ClusterScopedKinds []GroupKind `json:"clusterScopedKinds,omitempty"`

	// ListenerProtocols are the listener protocols the blueprint's Gateways can serve (Gateway
	// API protocol names). A listener of another protocol is not accepted (UnsupportedProtocol).
	// Empty means HTTP and HTTPS.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	ListenerProtocols []gwv1.ProtocolType `json:"listenerProtocols,omitempty"`

	// RouteKinds says which route kinds a listener of each protocol accepts, for the kinds the
	// blueprint serves. A protocol not listed accepts Gateway API's kinds for it: HTTP and HTTPS
	// HTTPRoute and GRPCRoute, TLS TLSRoute, TCP TCPRoute, UDP UDPRoute. A listener's
	// allowedRoutes.kinds narrows them further.
	// +optional
	// +listType=map
	// +listMapKey=protocol
	// +kubebuilder:validation:MaxItems=16
	RouteKinds []ProtocolRouteKinds `json:"routeKinds,omitempty"`

	// InfrastructureMetadata says where the labels and annotations of a Gateway's
	// spec.infrastructure go, and which of them are taken. By default they go on the
	// namespaced objects rendered in the Gateway's namespace, never on cluster-scoped ones
	// nor on objects in a route's namespace, and never with a key of Gantry's or Gateway
	// API's own (gantry.dev, gateway.networking.k8s.io and their subdomains).
	// +optional
	InfrastructureMetadata *InfrastructureMetadata `json:"infrastructureMetadata,omitempty"`

	// Namespaces, when set, limits the Gateways this blueprint serves to namespaces whose
	// labels match it: a Gateway of its class elsewhere is not accepted (NotAllowedByClass),
	// and nothing is rendered for it. Unset, Gateways of any namespace are served.
	// +optional
	Namespaces *metav1.LabelSelector `json:"namespaces,omitempty"`

	// Rollout, when set, moves the blueprint's Gateways to a new revision in steps, each
	// taken only when every Gateway of the steps before it is rendered from the new revision
	// and healthy. Unset, a new revision reaches every Gateway at once. Changing it makes no
	// new revision: it is how the revision travels, not what is rendered.
	// +optional
	Rollout *Rollout `json:"rollout,omitempty"`
}

// Rollout is a staged rollout: the steps a new revision takes through the blueprint's Gateways.
type Rollout struct {
	// Steps, in order. Each adds Gateways to those of the steps before it; after the last,
	// every Gateway takes the revision (a last step of less than 100% is followed by one of
	// 100%).
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Steps []RolloutStep `json:"steps"`
	// Paused holds the rollout at its step: Gateways of the steps taken keep the new revision,
	// the others stay where they are, and no step is taken until it is false again.
	// +optional
	Paused bool `json:"paused,omitempty"`
	// ProgressDeadlineSeconds is how long a step may take for its Gateways to be healthy
	// before the rollout stops there. Default 600.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`
}

// RolloutStep adds Gateways to a rollout: those a selector picks (a canary set), or the
// Gateways of the first namespaces, up to a percentage of the namespaces that hold the
// blueprint's Gateways, in an order fixed by a hash of each namespace's name. Percentages count
// namespaces, not Gateways: a tenant can make Gateways but, as a rule, not namespaces, so no
// tenant can widen or fill a step by adding Gateways.
//
// +kubebuilder:validation:XValidation:rule="has(self.percent) != (has(self.gatewaySelector) || has(self.namespaceSelector))",message="a step has either a percent or selectors"
type RolloutStep struct {
	// Percent of the namespaces holding the blueprint's Gateways whose Gateways have the
	// revision once this step is taken, those of earlier steps included (rounded up).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	Percent *int32 `json:"percent,omitempty"`
	// GatewaySelector picks Gateways by their labels. A Gateway's labels are its owner's to
	// set, so a tenant can put their Gateway into such a step; namespaceSelector is the
	// platform's choice alone where namespace labels are.
	// +optional
	GatewaySelector *metav1.LabelSelector `json:"gatewaySelector,omitempty"`
	// NamespaceSelector picks the Gateways of namespaces whose labels match. With
	// gatewaySelector, a Gateway must match both.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
}

// InfrastructureMetadata decides which of a Gateway's infrastructure labels and annotations
// (tenant input) reach the objects the blueprint renders.
type InfrastructureMetadata struct {
	// ClusterScoped also puts them on the cluster-scoped objects the blueprint renders. A
	// label there can be a privilege (rbac.authorization.k8s.io/aggregate-to-view joins a
	// ClusterRole to view), so it is off by default.
	// +optional
	ClusterScoped bool `json:"clusterScoped,omitempty"`
	// AllowedKeys, when set, are the only label and annotation keys taken: a key, or a prefix
	// ending in '/' (every key of that domain, e.g. example.com/) or '*'.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	AllowedKeys []string `json:"allowedKeys,omitempty"`
	// DeniedKeys are never taken, written as AllowedKeys are. Gantry's and Gateway API's own
	// keys are denied whatever these lists say.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	DeniedKeys []string `json:"deniedKeys,omitempty"`
}

// ValuesStanzas is a pair of value trees: defaults, beaten by anything more specific, and
// overrides, beating anything more specific.
type ValuesStanzas struct {
	// Default values.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Default *apiextensionsv1.JSON `json:"default,omitempty"`
	// Override values.
	// +optional
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	Override *apiextensionsv1.JSON `json:"override,omitempty"`
}

// GatewayTemplate holds the templates rendered for each Gateway.
type GatewayTemplate struct {
	// ResourceTemplates maps a template name to a Go template producing zero or more YAML
	// documents, each a whole Kubernetes object.
	// +optional
	ResourceTemplates map[string]string `json:"resourceTemplates,omitempty"`
	// Status renders fields of the Gateway's status, such as addresses.
	// +optional
	Status *StatusTemplate `json:"status,omitempty"`
}

// StatusTemplate renders a YAML object merged into the Gateway's status (today: addresses).
type StatusTemplate struct {
	// Template is a Go template producing one YAML object, e.g. `addresses: [...]`.
	// +optional
	Template string `json:"template,omitempty"`
}

// RouteTemplate holds the templates rendered for each HTTPRoute attached to a Gateway.
type RouteTemplate struct {
	// ResourceTemplates maps a template name to a Go template producing zero or more YAML
	// documents.
	// +optional
	ResourceTemplates map[string]string `json:"resourceTemplates,omitempty"`
}

// GroupKind names a kind; an empty group is the core group.
type GroupKind struct {
	// +optional
	Group string `json:"group"`
	// +kubebuilder:validation:MinLength=1
	Kind string `json:"kind"`
}

// GatewayClassBlueprintStatus is the observed state of a blueprint.
type GatewayClassBlueprintStatus struct {
	// Conditions: Accepted says whether every template parses and the values schema compiles.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// RenderedKinds lists every kind this blueprint has rendered for any Gateway. The controller
	// watches these kinds and prunes objects of them, also after a restart and after a template
	// that produced a kind is removed.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=256
	RenderedKinds []GroupVersionKind `json:"renderedKinds,omitempty"`
	// LatestRevision names the GatewayClassBlueprintRevision that holds the current spec, and
	// Revision is its number: the Gateways of the blueprint's classes render from it.
	// +optional
	LatestRevision string `json:"latestRevision,omitempty"`
	// +optional
	Revision int64 `json:"revision,omitempty"`
	// Rollout is where the staged rollout of the latest revision stands, when the blueprint
	// asks for one.
	// +optional
	Rollout *RolloutStatus `json:"rollout,omitempty"`
}

// Rollout phases.
const (
	RolloutProgressing = "Progressing"
	RolloutPaused      = "Paused"
	RolloutStopped     = "Stopped"
	RolloutComplete    = "Complete"
)

// RolloutStatus is where a staged rollout stands. The controller keeps it; Gateways read it to
// know which revision to render from, so a restarted controller goes on where it was.
type RolloutStatus struct {
	// Revision is the revision being rolled out: the blueprint's latest.
	Revision string `json:"revision"`
	// From is the revision the fleet was on when the rollout began (the last one rolled out
	// to every Gateway): Gateways not yet reached render from it. "" renders them from the
	// latest.
	// +optional
	From string `json:"from,omitempty"`
	// Step is how many steps are taken (0 before the first), and Steps how many the rollout
	// has in all.
	Step  int32 `json:"step"`
	Steps int32 `json:"steps"`
	// Taken are the steps taken so far, as they were when taken: a Gateway a selector of one of
	// them picks renders from Revision. Editing spec.rollout.steps changes what comes next, never
	// what was taken.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=17
	Taken []RolloutStep `json:"taken,omitempty"`
	// Cutoff: the Gateways of a namespace whose hash (the order of percentage steps) is at most
	// this (hex) render from Revision; "" reaches none.
	// +optional
	Cutoff string `json:"cutoff,omitempty"`
	// Phase: Progressing, Paused, Stopped or Complete.
	// +kubebuilder:validation:Enum=Progressing;Paused;Stopped;Complete
	Phase string `json:"phase"`
	// StepStartTime is when the current step was taken.
	// +optional
	StepStartTime *metav1.Time `json:"stepStartTime,omitempty"`
	// HealthBaseline: a Gateway whose Programmed or Healthy condition has been False since
	// before this time does not hold the rollout. It is when the rollout began, or when it was
	// last resumed after it stopped (resuming accepts the Gateways failing then).
	// +optional
	HealthBaseline *metav1.Time `json:"healthBaseline,omitempty"`
	// WaitingSince is when the wait for the current step's Gateways began: when it was taken,
	// or the rollout last resumed. The progress deadline counts from it.
	// +optional
	WaitingSince *metav1.Time `json:"waitingSince,omitempty"`
	// Message says why the rollout is where it is: what it waits for, or why it stopped.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Message string `json:"message,omitempty"`
	// Gateways counts the blueprint's Gateways, and Updated those rendered from Revision.
	Gateways int32 `json:"gateways"`
	Updated  int32 `json:"updated"`
	// Healthy counts the Gateways rendered from Revision and healthy.
	Healthy int32 `json:"healthy"`
	// Revisions counts the Gateways rendered from each revision, newest first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Revisions []RevisionCount `json:"revisions,omitempty"`
}

// RevisionCount is how many Gateways are rendered from one revision.
type RevisionCount struct {
	Revision string `json:"revision"`
	Gateways int32  `json:"gateways"`
}

// GroupVersionKind names a kind at a version; an empty group is the core group.
type GroupVersionKind struct {
	// +optional
	Group string `json:"group"`
	// +kubebuilder:validation:MinLength=1
	Version string `json:"version"`
	// +kubebuilder:validation:MinLength=1
	Kind string `json:"kind"`
}

// +kubebuilder:object:root=true

// GatewayClassBlueprintList is a list of GatewayClassBlueprints.
type GatewayClassBlueprintList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GatewayClassBlueprint `json:"items"`
}

// ProtocolRouteKinds are the route kinds listeners of one protocol accept.
type ProtocolRouteKinds struct {
	// Protocol is a Gateway API listener protocol.
	Protocol gwv1.ProtocolType `json:"protocol"`
	// Kinds are route kinds of Gateway API's group; empty: none.
	// +listType=set
	// +kubebuilder:validation:MaxItems=5
	// +kubebuilder:validation:items:Enum=HTTPRoute;GRPCRoute;TLSRoute;TCPRoute;UDPRoute
	Kinds []string `json:"kinds"`
}

// RouteTemplateField is a per-route template of a blueprint: the route kind it renders for and
// its field's name in the spec.
type RouteTemplateField struct {
	Kind  string
	Field string
}

// RouteTemplateFields lists the per-route template fields, in the order of Gateway API's route
// kinds.
var RouteTemplateFields = []RouteTemplateField{
	{"HTTPRoute", "httpRouteTemplate"},
	{"GRPCRoute", "grpcRouteTemplate"},
	{"TLSRoute", "tlsRouteTemplate"},
	{"TCPRoute", "tcpRouteTemplate"},
	{"UDPRoute", "udpRouteTemplate"},
}

// RouteTemplateFieldOf is the spec field of the template rendered per route of kind
// ("tcpRouteTemplate" for TCPRoute); "" for a kind that is no route kind.
func RouteTemplateFieldOf(kind string) string {
	for _, f := range RouteTemplateFields {
		if f.Kind == kind {
			return f.Field
		}
	}
	return ""
}

// RouteTemplateFor is the template rendered per route of kind; nil when the blueprint has none
// (or kind is not a route kind).
func (s *GatewayClassBlueprintSpec) RouteTemplateFor(kind string) *RouteTemplate {
	switch kind {
	case "HTTPRoute":
		return s.HTTPRouteTemplate
	case "GRPCRoute":
		return s.GRPCRouteTemplate
	case "TLSRoute":
		return s.TLSRouteTemplate
	case "TCPRoute":
		return s.TCPRouteTemplate
	case "UDPRoute":
		return s.UDPRouteTemplate
	}
	return nil
}

// HasRouteTemplates reports whether any per-route template renders something.
func (s *GatewayClassBlueprintSpec) HasRouteTemplates() bool {
	for _, f := range RouteTemplateFields {
		if t := s.RouteTemplateFor(f.Kind); t != nil && len(t.ResourceTemplates) > 0 {
			return true
		}
	}
	return false
}
