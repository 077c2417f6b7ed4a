package controllers_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/desired"
)

// TestEveryRouteKindOnEnvtest: issue 20. A GRPCRoute, a TLSRoute and a TCPRoute attach to a
// Gantry Gateway's HTTP, TLS (passthrough) and TCP listeners: each gets Accepted and
// ResolvedRefs from Gantry, the listeners count them, a TCPRoute on the HTTP listener is
// NotAllowedByListeners, and the Gateway's template sees all three in .Routes.
func TestEveryRouteKindOnEnvtest(t *testing.T) {
	ns := namespace(t, nil)
	bp := blueprint("kinds", "", map[string]string{"routes": `apiVersion: v1
kind: ConfigMap
metadata:
  name: routes
data:
  kinds: {{ $names := list }}{{ range .Routes }}{{ $names = append $names (printf "%s/%s" .kind .name) }}{{ end }}{{ join "," $names | quote }}
`})
	bp.Spec.ListenerProtocols = []gwv1.ProtocolType{gwv1.HTTPProtocolType, gwv1.TLSProtocolType, gwv1.TCPProtocolType}
	class := setup(t, ns, bp)
	passthrough := gwv1.TLSModePassthrough
	create(t, gateway(ns, "web", class,
		gwv1.Listener{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType},
		gwv1.Listener{Name: "tls", Port: 443, Protocol: gwv1.TLSProtocolType, Hostname: ptr(gwv1.Hostname("*.example.com")), TLS: &gwv1.ListenerTLSConfig{Mode: &passthrough}},
		gwv1.Listener{Name: "tcp", Port: 5432, Protocol: gwv1.TCPProtocolType}))
	create(t, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 5432}}}})
	parent := func(section string) []gwv1.ParentReference {
		return []gwv1.ParentReference{{Name: "web", SectionName: ptr(gwv1.SectionName(section))}}
	}
	db := []gwv1.BackendRef{{BackendObjectReference: gwv1.BackendObjectReference{Name: "db", Port: ptr(gwv1.PortNumber(5432))}}}
	grpc := &gwv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "grpc"}, Spec: gwv1.GRPCRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: parent("http")}}}
	tls := &gwv1.TLSRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tls"}, Spec: gwv1.TLSRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: parent("tls")},
		Hostnames: []gwv1.Hostname{"db.example.com"}, Rules: []gwv1.TLSRouteRule{{BackendRefs: db}}}}
	tcp := &gwv1.TCPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tcp"}, Spec: gwv1.TCPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: parent("tcp")},
		Rules: []gwv1.TCPRouteRule{{BackendRefs: db}}}}
	wrong := &gwv1.TCPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tcp-on-http"}, Spec: gwv1.TCPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: parent("http")},
		Rules: []gwv1.TCPRouteRule{{BackendRefs: db}}}}
	create(t, grpc, tls, tcp, wrong)

	for _, c := range []struct {
		obj    client.Object
		status metav1.ConditionStatus
		reason gwv1.RouteConditionReason
	}{
		{grpc, metav1.ConditionTrue, gwv1.RouteReasonAccepted},
		{tls, metav1.ConditionTrue, gwv1.RouteReasonAccepted},
		{tcp, metav1.ConditionTrue, gwv1.RouteReasonAccepted},
		{wrong, metav1.ConditionFalse, gwv1.RouteReasonNotAllowedByListeners},
	} {
		eventually(t, fmt.Sprintf("%T %s Accepted=%s/%s", c.obj, c.obj.GetName(), c.status, c.reason), func() error {
			if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(c.obj), c.obj); err != nil {
				return err
			}
			st := desired.RouteStatus(c.obj)
			if len(st.Parents) != 1 {
				return fmt.Errorf("parents %+v", st.Parents)
			}
			if err := conditionIs(st.Parents[0].Conditions, "ResolvedRefs", metav1.ConditionTrue, "ResolvedRefs", c.obj.GetGeneration()); err != nil {
				return err
			}
			return conditionIs(st.Parents[0].Conditions, "Accepted", c.status, string(c.reason), c.obj.GetGeneration())
		})
	}
	eventually(t, "listeners count one route each", func() error {
		gw := &gwv1.Gateway{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "web"}, gw); err != nil {
			return err
		}
		for _, l := range gw.Status.Listeners {
			if l.AttachedRoutes != 1 {
				return fmt.Errorf("listener %s: attachedRoutes %d", l.Name, l.AttachedRoutes)
			}
		}
		return nil
	})
	eventually(t, "the template sees the three routes", func() error {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "routes"}, cm); err != nil {
			return err
		}
		// Oldest first: the three were made within a second or two of each other, so the set
		// is what is certain here (desired's tests check the order).
		got := strings.Split(cm.Data["kinds"], ",")
		slices.Sort(got)
		if strings.Join(got, ",") != "GRPCRoute/grpc,TCPRoute/tcp,TLSRoute/tls" {
			return fmt.Errorf("kinds = %q, want the three accepted routes", cm.Data["kinds"])
		}
		return nil
	})
}

// TestOtherKindFollowsItsBackend: a TCPRoute whose Service does not exist is ResolvedRefs
// False BackendNotFound, and True once the Service is made (the Service watch finds the route
// by its backend).
func TestOtherKindFollowsItsBackend(t *testing.T) {
	ns := namespace(t, nil)
	bp := blueprint("backend", "", map[string]string{"values": valuesTemplate})
	bp.Spec.ListenerProtocols = []gwv1.ProtocolType{gwv1.TCPProtocolType}
	class := setup(t, ns, bp)
	create(t, gateway(ns, "web", class, gwv1.Listener{Name: "tcp", Port: 5432, Protocol: gwv1.TCPProtocolType}))
	route := &gwv1.TCPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}, Spec: gwv1.TCPRouteSpec{
		CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Name: "web"}}},
		Rules:           []gwv1.TCPRouteRule{{BackendRefs: []gwv1.BackendRef{{BackendObjectReference: gwv1.BackendObjectReference{Name: "pg", Port: ptr(gwv1.PortNumber(5432))}}}}}}}
	create(t, route)
	resolved := func(status metav1.ConditionStatus, reason string) {
		t.Helper()
		eventually(t, fmt.Sprintf("TCPRoute ResolvedRefs=%s/%s", status, reason), func() error {
			if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(route), route); err != nil {
				return err
			}
			if len(route.Status.Parents) != 1 {
				return fmt.Errorf("parents %+v", route.Status.Parents)
			}
			return conditionIs(route.Status.Parents[0].Conditions, "ResolvedRefs", status, reason, route.Generation)
		})
	}
	resolved(metav1.ConditionFalse, "BackendNotFound")
	create(t, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "pg"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 5432}}}})
	resolved(metav1.ConditionTrue, "ResolvedRefs")
}

// kindValuesTemplate renders, per route of any kind, a ConfigMap with the route's effective
// values, named after the route's kind (read both as .Route and, in name, as the kind's own key).
const kindValuesTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ lower .Route.kind }}-{{ .Route.metadata.name }}-values
data:
  values: {{ toJson .Values | quote }}
  backends: {{ len .Backends | quote }}
`

// TestRouteTemplatesOfEveryKind: issue 20, item 2, on a real API server. A TCPRoute and a
// TLSRoute of one name render their own kinds' templates: each object is owned by its route
// (kind and UID) and labelled with its kind, the route's parent status says Rendered, a
// GatewayConfig targeting the TCPRoute reaches the TCPRoute's object only, and deleting the
// TCPRoute prunes its object alone.
func TestRouteTemplatesOfEveryKind(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	bp := blueprint("kind-templates", `{"x": "blueprint"}`, map[string]string{"values": valuesTemplate})
	bp.Spec.ListenerProtocols = []gwv1.ProtocolType{gwv1.TLSProtocolType, gwv1.TCPProtocolType}
	bp.Spec.TCPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"route": kindValuesTemplate}}
	bp.Spec.TLSRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"route": kindValuesTemplate}}
	class := setup(t, ns, bp)
	passthrough := gwv1.TLSModePassthrough
	create(t, gateway(ns, "web", class,
		gwv1.Listener{Name: "tls", Port: 443, Protocol: gwv1.TLSProtocolType, Hostname: ptr(gwv1.Hostname("*.example.com")), TLS: &gwv1.ListenerTLSConfig{Mode: &passthrough}},
		gwv1.Listener{Name: "tcp", Port: 5432, Protocol: gwv1.TCPProtocolType}))
	parent := func(section string) []gwv1.ParentReference {
		return []gwv1.ParentReference{{Name: "web", SectionName: ptr(gwv1.SectionName(section))}}
	}
	db := []gwv1.BackendRef{{BackendObjectReference: gwv1.BackendObjectReference{Name: "db", Port: ptr(gwv1.PortNumber(5432))}}}
	tcp := &gwv1.TCPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}, Spec: gwv1.TCPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: parent("tcp")},
		Rules: []gwv1.TCPRouteRule{{BackendRefs: db}}}}
	tls := &gwv1.TLSRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}, Spec: gwv1.TLSRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: parent("tls")},
		Hostnames: []gwv1.Hostname{"db.example.com"}, Rules: []gwv1.TLSRouteRule{{BackendRefs: db}}}}
	create(t, tcp, tls)

	waitValues(t, ns, "tcproute-db", `{"x": "blueprint"}`)
	waitValues(t, ns, "tlsroute-db", `{"x": "blueprint"}`)
	for _, c := range []struct {
		route client.Object
		kind  string
	}{{tcp, "TCPRoute"}, {tls, "TLSRoute"}} {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(c.route), c.route); err != nil {
			t.Fatal(err)
		}
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: strings.ToLower(c.kind) + "-db-values"}, cm); err != nil {
			t.Fatal(err)
		}
		if refs := cm.OwnerReferences; len(refs) != 1 || refs[0].Kind != c.kind || refs[0].Name != "db" || refs[0].UID != c.route.GetUID() || refs[0].Controller == nil || !*refs[0].Controller {
			t.Errorf("%s's object: owner references %+v, want its route", c.kind, refs)
		}
		if cm.Labels[v1alpha1.RouteLabel(c.kind)] != "db" || cm.Labels[v1alpha1.LabelHTTPRoute] != "" || cm.Data["backends"] != "1" {
			t.Errorf("%s's object: labels %v, data %v", c.kind, cm.Labels, cm.Data)
		}
		eventually(t, c.kind+" db Rendered=True", func() error {
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(c.route), c.route); err != nil {
				return err
			}
			st := desired.RouteStatus(c.route)
			if len(st.Parents) != 1 {
				return fmt.Errorf("parents %+v", st.Parents)
			}
			return conditionIs(st.Parents[0].Conditions, controllers.ConditionRouteRendered, metav1.ConditionTrue, controllers.ReasonRendered, c.route.GetGeneration())
		})
	}

	// Levels 6–7 per kind: a GatewayConfig for the TCPRoute db reaches the TCPRoute's object,
	// not the TLSRoute's of the same name, nor the Gateway's.
	policy := gatewayConfig(ns, "tcp-db", "TCPRoute", "db", `{"x": "tcp"}`, "")
	create(t, policy)
	waitValues(t, ns, "tcproute-db", `{"x": "tcp"}`)
	waitPolicy(t, policy, ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
	waitValues(t, ns, "tlsroute-db", `{"x": "blueprint"}`)
	waitValues(t, ns, "web", `{"x": "blueprint"}`)

	// The TCPRoute goes: its object is pruned (the controller does; envtest runs no garbage
	// collector), the TLSRoute's stays.
	if err := k8s.Delete(ctx, tcp); err != nil {
		t.Fatal(err)
	}
	waitGone(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tcproute-db-values"}})
	waitValues(t, ns, "tlsroute-db", `{"x": "blueprint"}`)
}

// TestHostileRouteOfEachKindIsSetApart: issue 20's attack on envtest. A shared Gateway's
// template prints every route's backend names bare from .Routes; mallory, in a namespace of her
// own, attaches a GRPCRoute, a TLSRoute, a TCPRoute and a UDPRoute whose backend name carries a
// newline and a field. Each is set apart, and says so on its own status (a route without
// templates of its own kind said nothing before); the Gateway stays Programmed and renders the
// owner's route alone.
func TestHostileRouteOfEachKindIsSetApart(t *testing.T) {
	ctx := t.Context()
	infra, mallory := namespace(t, nil), namespace(t, nil)
	bp := blueprint("hostile", "", map[string]string{"routes": `apiVersion: v1
kind: ConfigMap
metadata:
  name: routes
data:
  {{- range .Routes }}{{ $r := . }}{{ range .rules }}{{ range .backendRefs }}
  {{ printf "%s.%s" $r.kind $r.name | quote }}: {{ .name }}
  {{- end }}{{ end }}{{ end }}
`})
	bp.Spec.ListenerProtocols = []gwv1.ProtocolType{gwv1.HTTPProtocolType, gwv1.TLSProtocolType, gwv1.TCPProtocolType, gwv1.UDPProtocolType}
	class := setup(t, infra, bp)
	all := &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	passthrough := gwv1.TLSModePassthrough
	create(t, gateway(infra, "web", class,
		gwv1.Listener{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType, AllowedRoutes: all},
		gwv1.Listener{Name: "tls", Port: 443, Protocol: gwv1.TLSProtocolType, Hostname: ptr(gwv1.Hostname("*.example.com")), TLS: &gwv1.ListenerTLSConfig{Mode: &passthrough}, AllowedRoutes: all},
		gwv1.Listener{Name: "tcp", Port: 5432, Protocol: gwv1.TCPProtocolType, AllowedRoutes: all},
		gwv1.Listener{Name: "udp", Port: 53, Protocol: gwv1.UDPProtocolType, AllowedRoutes: all}))
	parent := func(section string) gwv1.CommonRouteSpec {
		return gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Namespace: ptr(gwv1.Namespace(infra)), Name: "web", SectionName: ptr(gwv1.SectionName(section))}}}
	}
	backend := func(name string) []gwv1.BackendRef {
		return []gwv1.BackendRef{{BackendObjectReference: gwv1.BackendObjectReference{Name: gwv1.ObjectName(name), Port: ptr(gwv1.PortNumber(5432))}}}
	}
	own := &gwv1.TCPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: infra, Name: "db"}, Spec: gwv1.TCPRouteSpec{CommonRouteSpec: parent("tcp"), Rules: []gwv1.TCPRouteRule{{BackendRefs: backend("db")}}}}
	create(t, own)
	eventually(t, "the owner's route rendered", func() error {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: infra, Name: "routes"}, cm); err != nil {
			return err
		}
		if cm.Data["TCPRoute.db"] != "db" {
			return fmt.Errorf("data = %v", cm.Data)
		}
		return nil
	})

	evil := backend("db\n  extra: field")
	hostile := []client.Object{
		&gwv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Namespace: mallory, Name: "evil-grpc"}, Spec: gwv1.GRPCRouteSpec{CommonRouteSpec: parent("http"),
			Rules: []gwv1.GRPCRouteRule{{BackendRefs: []gwv1.GRPCBackendRef{{BackendRef: evil[0]}}}}}},
		&gwv1.TLSRoute{ObjectMeta: metav1.ObjectMeta{Namespace: mallory, Name: "evil-tls"}, Spec: gwv1.TLSRouteSpec{CommonRouteSpec: parent("tls"),
			Hostnames: []gwv1.Hostname{"evil.example.com"}, Rules: []gwv1.TLSRouteRule{{BackendRefs: evil}}}},
		&gwv1.TCPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: mallory, Name: "evil-tcp"}, Spec: gwv1.TCPRouteSpec{CommonRouteSpec: parent("tcp"), Rules: []gwv1.TCPRouteRule{{BackendRefs: evil}}}},
		&gwv1.UDPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: mallory, Name: "evil-udp"}, Spec: gwv1.UDPRouteSpec{CommonRouteSpec: parent("udp"), Rules: []gwv1.UDPRouteRule{{BackendRefs: evil}}}},
	}
	create(t, hostile...)
	for _, r := range hostile {
		kind := desired.RouteKindOf(r)
		eventually(t, fmt.Sprintf("%s %s/%s set apart on its own status", kind, mallory, r.GetName()), func() error {
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(r), r); err != nil {
				return err
			}
			c := routeConditionOf(r, infra, "web", "gateway.gantry.dev/Rendered")
			if c == nil || c.Status != metav1.ConditionFalse {
				return fmt.Errorf("Rendered = %+v", c)
			}
			if !strings.Contains(c.Message, "backendRefs") {
				return fmt.Errorf("Rendered message %q does not name the route's value", c.Message)
			}
			return nil
		})
	}
	waitGateway(t, infra, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: infra, Name: "routes"}, cm); err != nil {
		t.Fatal(err)
	}
	if len(cm.Data) != 1 || cm.Data["TCPRoute.db"] != "db" {
		t.Errorf("routes ConfigMap %v, want the owner's route alone", cm.Data)
	}

	// What a namespace contributes is set apart whole (docs/security.md 8.4): with the other
	// three gone and the TCPRoute fixed, it is back in the render and says so.
	for _, r := range []client.Object{hostile[0], hostile[1], hostile[3]} {
		if err := k8s.Delete(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	tcp := hostile[2].(*gwv1.TCPRoute)
	update(t, tcp, func(r *gwv1.TCPRoute) { r.Spec.Rules[0].BackendRefs[0].Name = "cache" })
	eventually(t, "the fixed TCPRoute rendered", func() error {
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: infra, Name: "routes"}, cm); err != nil {
			return err
		}
		if cm.Data["TCPRoute.evil-tcp"] != "cache" {
			return fmt.Errorf("data = %v", cm.Data)
		}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(tcp), tcp); err != nil {
			return err
		}
		c := routeConditionOf(tcp, infra, "web", "gateway.gantry.dev/Rendered")
		if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != tcp.Generation {
			return fmt.Errorf("Rendered = %+v", c)
		}
		return nil
	})
}

// routeConditionOf is a route's (of any kind) condition in its parent entry for a Gantry Gateway.
func routeConditionOf(r client.Object, gwNS, gw, typ string) *metav1.Condition {
	for _, p := range desired.RouteStatus(r).Parents {
		ns := r.GetNamespace()
		if p.ParentRef.Namespace != nil {
			ns = string(*p.ParentRef.Namespace)
		}
		if p.ControllerName == v1alpha1.ControllerName && ns == gwNS && string(p.ParentRef.Name) == gw {
			return meta.FindStatusCondition(p.Conditions, typ)
		}
	}
	return nil
}
