package v1alpha1

import "strings"

// Labels and annotations on the objects Gantry renders.
const (
	// LabelGatewayName is Gateway API's well-known label naming the Gateway an object belongs
	// to. Names longer than a label value allows are shortened with a hash.
	LabelGatewayName = "gateway.networking.k8s.io/gateway-name"
	// LabelGatewayClassName names the Gateway's class.
	LabelGatewayClassName = "gateway.networking.k8s.io/gateway-class-name"
	// LabelTemplate names the resourceTemplates key that produced an object; .Resources is
	// built from it.
	LabelTemplate = "gateway.gantry.dev/template"
	// AnnotationOwner names the Gateway (namespace/name) whose render produced an object. It
	// finds the objects; it proves nothing, since a tenant can write it: a namespaced object is a
	// Gateway's only with a controller owner reference to the Gateway (or to the HTTPRoute it was
	// rendered for), a cluster-scoped one only with AnnotationOwnerUID.
	AnnotationOwner = "gateway.gantry.dev/owner"
	// AnnotationOwnerUID is the UID of the Gateway a cluster-scoped object was rendered for.
	// Tenants cannot write cluster-scoped objects; whoever can is trusted with the cluster.
	AnnotationOwnerUID = "gateway.gantry.dev/owner-uid"
	// LabelHTTPRoute names the HTTPRoute a route template rendered an object for; RouteLabel
	// gives the label of every route kind (gateway.gantry.dev/grpcroute-name, …).
	LabelHTTPRoute = "gateway.gantry.dev/httproute-name"
	// LabelRouteNamespace names the namespace of the route a route template rendered a
	// cluster-scoped object for (a namespaced one is in the route's namespace): routes of one
	// name in two namespaces have distinct objects.
	LabelRouteNamespace = "gateway.gantry.dev/route-namespace"
	// AnnotationRenderHash is a hash of the object as last rendered. Apply is skipped when the
	// live object already holds the render; the hash makes a render that dropped a field differ
	// from the live object, so that server-side apply removes the field.
	AnnotationRenderHash = "gateway.gantry.dev/render-hash"
	// AnnotationKeep on a rendered object stops Gantry from pruning it when the blueprint no
	// longer renders it.
	AnnotationKeep = "gateway.gantry.dev/keep"
)

// RouteLabel is the label naming the route of kind (HTTPRoute, GRPCRoute, …) that a route
// template rendered an object for: gateway.gantry.dev/<kind in lower case>-name.
func RouteLabel(kind string) string { return "gateway.gantry.dev/" + strings.ToLower(kind) + "-name" }

// RouteOfLabels reads which route (kind and label value of its name) a rendered object was
// rendered for; ok is false for an object of the Gateway's own templates, and for one with
// more than one route label, which Gantry never renders (see HasRouteLabel).
func RouteOfLabels(labels map[string]string) (kind, name string, ok bool) {
	for _, f := range RouteTemplateFields {
		if v := labels[RouteLabel(f.Kind)]; v != "" {
			if ok {
				return "", "", false
			}
			kind, name, ok = f.Kind, v, true
		}
	}
	return kind, name, ok
}

// HasRouteLabel reports whether labels hold any route kind's route label.
func HasRouteLabel(labels map[string]string) bool {
	for _, f := range RouteTemplateFields {
		if labels[RouteLabel(f.Kind)] != "" {
			return true
		}
	}
	return false
}
