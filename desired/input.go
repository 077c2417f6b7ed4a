package desired

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/precedence"
	"gantry.dev/gantry/render"
)

// DefaultControllerNamespace holds the global GatewayClassConfigs unless told otherwise.
const DefaultControllerNamespace = "gantry-system"

// Input is everything the desired state of one Gateway depends on. A missing object is a nil
// field, not an error; Gateway decides what that means.
type Input struct {
	ControllerNamespace string
	Gateway             *gwv1.Gateway
	Class               *gwv1.GatewayClass
	// Blueprint is the class's parametersRef target; nil when it does not exist.
	Blueprint *v1alpha1.GatewayClassBlueprint
	// Compiled, when set, is Blueprint already compiled (the controller caches it).
	Compiled *render.Blueprint
	// Routes are HTTPRoutes that may name the Gateway as a parent, in any order.
	Routes []*gwv1.HTTPRoute
	// OtherRoutes are the routes of the other kinds (GRPCRoute, TLSRoute, TCPRoute, UDPRoute,
	// typed) that may name the Gateway as a parent, in any order; others are ignored.
	OtherRoutes []client.Object
	// ListenerSets are ListenerSets that may name the Gateway as their parent, in any order.
	ListenerSets []*gwv1.ListenerSet
	// NamespaceLabels are the labels of namespaces, for listeners that select route namespaces
	// and Gateways that select ListenerSet namespaces.
	NamespaceLabels map[string]map[string]string
	// Parameters is the GatewayConfig the Gateway's spec.infrastructure.parametersRef names,
	// nil when that does not exist (or the Gateway names none).
	Parameters *v1alpha1.GatewayConfig
	// Secrets are the Secrets of type kubernetes.io/tls that listeners' certificateRefs name
	// (CertificateRefKeys); a Secret that is missing or of another type has no entry.
	Secrets map[types.NamespacedName]*corev1.Secret
	// ReferenceGrants are the grants in the namespaces that listeners and routes (their
	// backendRefs, BackendNamespaces) refer into.
	ReferenceGrants []*gwv1beta1.ReferenceGrant
	// BackendServices holds the Services, of those routes' backendRefs name
	// (BackendServiceKeys), that exist: route templates see in .Backends whether each resolves.
	BackendServices map[types.NamespacedName]bool
	// Policies are candidate GatewayClassConfigs and GatewayConfigs, in any order.
	GatewayClassConfigs []*v1alpha1.GatewayClassConfig
	GatewayConfigs      []*v1alpha1.GatewayConfig
	// Live maps a gateway template's label value (its key, shortened by LabelValue when longer
	// than a label allows) to the live objects it produced (.Resources).
	Live map[string][]map[string]any
	// LiveRoutes is the same per route, keyed by the route's kind, namespace and label value
	// (LabelValue of its name), for route templates. AddLive fills both.
	LiveRoutes map[RouteKey]map[string][]map[string]any
	// SetApart names namespaces whose contributions to the Gateway's render (their
	// ListenerSets, their routes' hostnames) are left out from the start, with why: the
	// controller sets apart a namespace whose contributions the API server refuses in the
	// Gateway's objects (see quarantine.go).
	SetApart map[string]string
	// CommandLine is a layer above everything else (`gantry render --set/--values`).
	CommandLine map[string]any
	// IsNamespaced reports a kind's scope (the controller asks the API server); nil uses
	// render's table of built-in cluster-scoped kinds.
	IsNamespaced func(schema.GroupVersionKind) (bool, error)
	// CustomKinds maps kinds of groups the API server does not serve by itself to whether
	// they are namespaced, from the CRDs in `gantry render` input; unused with IsNamespaced.
	CustomKinds map[schema.GroupKind]bool
	// Outputs, when set, remembers render outputs by their whole input (the controller's);
	// nil renders every time.
	Outputs *render.OutputMemory
	// Limits bound each render (the Gateway's, and each route's); zero fields take
	// render.DefaultLimits.
	Limits render.Limits
	// KeepText keeps each object's text as its template wrote it, in Object.Text.
	KeepText bool
}

// Result is the desired state of one Gateway.
type Result struct {
	// Values are the Gateway's effective values and their provenance.
	Values *precedence.Result
	// Objects are every rendered object: the Gateway's, then each route's.
	Objects []Object
	// Addresses come from the status template.
	Addresses []gwv1.GatewayStatusAddress
	// Pending lists templates waiting for a .Resources entry; their earlier objects stay.
	Pending   []render.Pending
	Hostnames render.Hostnames
	Listeners []Listener
	Routes    []Route
	// ListenerSets are the outcomes for the ListenerSets that name the Gateway as their parent,
	// in listener precedence.
	ListenerSets []ListenerSet
	// routesRead is set when the Gateway's templates read .Routes: every attached route then
	// contributes to its render.
	routesRead bool
}

// Object is a rendered object with the template and owner (Gateway or route) it belongs to.
type Object struct {
	// Owner is the Gateway or route the object belongs to.
	Owner Owner
	// Template is the resourceTemplates key that produced it.
	Template string
	Object   map[string]any
	// Text is the object's document as the template wrote it (Input.KeepText): without the
	// labels, annotations and namespace Gantry adds to Object.
	Text string
}

// Owner names the Gateway or route a rendered object belongs to.
type Owner struct {
	Kind string // "Gateway", or the route's kind (one of RouteKinds)
	types.NamespacedName
}

// Listener is the attachment state of one Gateway listener.
type Listener struct {
	Name           gwv1.SectionName
	SupportedKinds []gwv1.RouteGroupKind
	AttachedRoutes int32
	// Invalid says why the listener cannot serve (e.g. a protocol Gantry's routes do not use).
	Invalid string
	// Unsupported says why the listener is not accepted: its protocol is not one the
	// blueprint declares (UnsupportedProtocol), or a TLS listener terminates TLS
	// (UnsupportedValue); empty when it is accepted. UnsupportedReason is the reason.
	Unsupported       string
	UnsupportedReason gwv1.ListenerConditionReason
	// RefReason and RefMessage say why the listener's certificateRefs do not resolve
	// (InvalidCertificateRef, RefNotPermitted); empty when they do.
	RefReason  gwv1.ListenerConditionReason
	RefMessage string
	// Conflict and ConflictMessage say why a ListenerSet's listener gives way to one that comes
	// before it (ProtocolConflict, HostnameConflict); empty when it does not.
	Conflict        gwv1.ListenerConditionReason
	ConflictMessage string
}

// Route is one route that names the Gateway as a parent.
type Route struct {
	// Kind is the route's kind: one of RouteKinds.
	Kind string
	types.NamespacedName
	// ParentRef is the route's reference to this Gateway.
	ParentRef gwv1.ParentReference
	Accepted  bool
	// Reason and Message explain a route that is not accepted (Gateway API reasons).
	Reason  gwv1.RouteConditionReason
	Message string
	// Values are the route's effective values (the Gateway chain continued by the route's),
	// nil when the blueprint has no route templates or the route is not accepted.
	Values *precedence.Result
	// Pending route templates.
	Pending []render.Pending
	// Err is why the route's templates could not be rendered (a *Error); the Gateway and its
	// other routes are not affected, and the route's earlier objects are kept.
	Err error
}

// RouteKey names a route of any kind: its kind and namespace/name.
type RouteKey struct {
	Kind string
	types.NamespacedName
}

func (k RouteKey) String() string { return k.Kind + " " + k.NamespacedName.String() }

// AddLive files a live object the Gateway's renders produced under Live or LiveRoutes, by the
// labels it was rendered with.
func (in *Input) AddLive(labels map[string]string, namespace string, obj map[string]any) {
	tmpl := labels[v1alpha1.LabelTemplate]
	if kind, route, ok := v1alpha1.RouteOfLabels(labels); ok {
		key := RouteKey{Kind: kind, NamespacedName: types.NamespacedName{Namespace: namespace, Name: route}}
		if in.LiveRoutes == nil {
			in.LiveRoutes = map[RouteKey]map[string][]map[string]any{}
		}
		if in.LiveRoutes[key] == nil {
			in.LiveRoutes[key] = map[string][]map[string]any{}
		}
		in.LiveRoutes[key][tmpl] = append(in.LiveRoutes[key][tmpl], obj)
		return
	}
	if in.Live == nil {
		in.Live = map[string][]map[string]any{}
	}
	in.Live[tmpl] = append(in.Live[tmpl], obj)
}
