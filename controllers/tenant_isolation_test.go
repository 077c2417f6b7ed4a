package controllers_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestSharedGatewayFailureIsTheOwners: issue 19. While a shared Gateway failed to render,
// another tenant's route kept saying Rendered=True, and a tenant's ListenerSet carried the
// Gateway's whole error, the owner's values in it. Now the route says the Gateway is not
// rendered, and both say only the Gateway's reason: why is the owner's to read.
func TestSharedGatewayFailureIsTheOwners(t *testing.T) {
	const secret = "owner-s3cr3t-value"
	infra, tenant := namespace(t, nil), namespace(t, nil)
	failing := `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-values
data:
  {{- if .Values.token }}
  token: {{ required (printf "token %s is refused" .Values.token) nil }}
  {{- end }}
  values: {{ toJson .Values | quote }}
`
	bp := blueprint("owner-fails", `{"x": "1"}`, map[string]string{"values": failing})
	bp.Spec.HTTPRouteTemplate = &v1alpha1.RouteTemplate{ResourceTemplates: map[string]string{"route": routeValuesTemplate}}
	class := setup(t, infra, bp)
	gw := gateway(infra, "web", class, gwv1.Listener{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType,
		AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}})
	gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	ls := newListenerSet(tenant, "shop", infra, "web", httpEntry("shop", "shop.example.com", gwv1.NamespacesFromSame))
	rt := httpRoute(tenant, "rt", infra, "web")
	create(t, gw, ls, rt)
	waitRouteRendered(t, rt, infra, "web", metav1.ConditionTrue, "Rendered")
	waitGateway(t, infra, "web", "Programmed", metav1.ConditionTrue, "Programmed")

	// The owner's own value fails the Gateway's render; the error quotes it.
	create(t, gatewayConfig(infra, "token", "Gateway", "web", `{"token": "`+secret+`"}`, ""))
	g := waitGateway(t, infra, "web", "Programmed", metav1.ConditionFalse, "RenderFailed")
	if c := findCondition(g.Status.Conditions, "Programmed"); c == nil || !strings.Contains(c.Message, secret) {
		t.Fatalf("the Gateway's own status should say why (with its owner's value): %+v", c)
	}
	c := waitRouteRendered(t, rt, infra, "web", metav1.ConditionFalse, "GatewayNotRendered")
	if strings.Contains(c.Message, secret) {
		t.Errorf("route condition shows the owner's value: %s", c.Message)
	}
	eventually(t, "the ListenerSet says the Gateway is not programmed, without its message", func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(ls), ls); err != nil {
			return err
		}
		if err := listenerSetCondition(ls, "Programmed", metav1.ConditionFalse, string(gwv1.ListenerSetReasonParentNotAccepted), "its owner reads why in its status"); err != nil {
			return err
		}
		for _, cond := range ls.Status.Conditions {
			if strings.Contains(cond.Message, secret) {
				return fmt.Errorf("ListenerSet condition %s shows the owner's value: %s", cond.Type, cond.Message)
			}
		}
		for _, l := range ls.Status.Listeners {
			for _, cond := range l.Conditions {
				if strings.Contains(cond.Message, secret) {
					return fmt.Errorf("ListenerSet listener condition %s shows the owner's value: %s", cond.Type, cond.Message)
				}
			}
		}
		return nil
	})
}

func findCondition(conds []metav1.Condition, typ string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

// TestDeepPolicyIsRefusedOnItsStatus: issue 19. A 54 KB GatewayConfig nesting 9,000 maps deep
// added about 1 GiB to the controller, at every start. Values past the depth bound are refused:
// the policy applies nowhere, its status says so (Invalid, naming the path), and the Gateway
// renders with everything else.
func TestDeepPolicyIsRefusedOnItsStatus(t *testing.T) {
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("deep", `{"x": "1"}`, map[string]string{"values": valuesTemplate}))
	create(t, gateway(ns, "web", class))
	deep := strings.Repeat(`{"a":`, 9000) + `"x"` + strings.Repeat("}", 9000)
	p := gatewayConfig(ns, "deep", "Gateway", "web", deep, "")
	create(t, p, gatewayConfig(ns, "fine", "Gateway", "web", `{"x": "2"}`, ""))
	waitValues(t, ns, "web", `{"x": "2"}`)
	waitPolicyTarget(t, p, metav1.ConditionFalse, string(gwv1.PolicyReasonInvalid))
	st, _, err := policyStatus(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if msg := st.Ancestors[0].Conditions[0].Message; !strings.Contains(msg, "is refused: spec.default.a.a") || !strings.Contains(msg, "deeper than") {
		t.Errorf("Accepted message %q does not say why", msg)
	}
}

// TestRefusedContributionIsSetApart: issue 19's first shared-Gateway attack. A valid tenant
// ListenerSet (port 80, its own hostname, a listener name the Gateway also uses) gave the
// blueprint's Service a duplicate port: the API server refused the Service, the shared Gateway
// went Programmed=False/ApplyFailed and its owner's changes stopped. The tenant's namespace is
// set apart now: the Gateway applies without it, and the ListenerSet says why.
func TestRefusedContributionIsSetApart(t *testing.T) {
	infra, tenant := namespace(t, nil), namespace(t, nil)
	svc := `apiVersion: v1
kind: Service
metadata:
  name: {{ .Gateway.metadata.name }}-lb
  annotations:
    x: {{ .Values.x | quote }}
spec:
  ports:
  {{- range .Gateway.spec.listeners }}
  - name: {{ .name | quote }}
    port: {{ .port }}
  {{- end }}
  {{- range .ListenerSets }}
  {{- range .spec.listeners }}
  - name: {{ .name | quote }}
    port: {{ .port }}
  {{- end }}
  {{- end }}
`
	class := setup(t, infra, blueprint("lb", `{"x": "1"}`, map[string]string{"svc": svc, "values": valuesTemplate}))
	gw := gateway(infra, "web", class, gwv1.Listener{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType, Hostname: ptr(gwv1.Hostname("a.example.com"))})
	gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	create(t, gw)
	waitGateway(t, infra, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	ls := newListenerSet(tenant, "evil", infra, "web", httpEntry("http", "b.example.com", gwv1.NamespacesFromSame))
	create(t, ls)
	eventually(t, "the tenant's ListenerSet is set apart, the Gateway applies without it", func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(ls), ls); err != nil {
			return err
		}
		if err := listenerSetCondition(ls, "Accepted", metav1.ConditionFalse, "ApplyFailed", "accepts them without"); err != nil {
			return err
		}
		g := &gwv1.Gateway{}
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(gw), g); err != nil {
			return err
		}
		return conditionIs(g.Status.Conditions, "Programmed", metav1.ConditionTrue, "Programmed", g.Generation)
	})
	// The owner's changes keep applying.
	create(t, gatewayConfig(infra, "two", "Gateway", "web", `{"x": "2"}`, ""))
	waitValues(t, infra, "web", `{"x": "2"}`)
	eventually(t, "the Service has the owner's value and one port", func() error {
		s := &corev1.Service{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: infra, Name: "web-lb"}, s); err != nil {
			return err
		}
		if s.Annotations["x"] != "2" || len(s.Spec.Ports) != 1 {
			return fmt.Errorf("Service annotations %v, ports %v", s.Annotations, s.Spec.Ports)
		}
		return nil
	})
}

// TestRefusedContributionSparesBystanders: the second review's break of the first version. The
// namespaces were set apart newest first and kept, so an attacker older than its neighbours got
// their hostnames dropped on the way, and past four of them the Gateway failed again. The
// refused namespace is now searched for with dry-runs, and only it is set apart.
func TestRefusedContributionSparesBystanders(t *testing.T) {
	infra, attacker := namespace(t, nil), namespace(t, nil)
	names := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Gateway.metadata.name }}-names\ndata:\n  union: {{ join \",\" .Hostnames.Union | quote }}\n"
	class := setup(t, infra, blueprint("lb2", `{}`, map[string]string{"svc": listenerPortsService, "names": names}))
	gw := gateway(infra, "web", class, gwv1.Listener{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType, Hostname: ptr(gwv1.Hostname("*.example.com")),
		AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}})
	gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	ls := newListenerSet(attacker, "old", infra, "web", gwv1.ListenerEntry{Name: "p", Port: 8081, Protocol: gwv1.HTTPProtocolType, Hostname: ptr(gwv1.Hostname("b.example.com"))})
	create(t, gw, ls)
	var want []string
	for i := range 5 {
		ns := namespace(t, nil)
		r := httpRoute(ns, "shop", infra, "web")
		host := fmt.Sprintf("shop%d.example.com", i)
		r.Spec.Hostnames = []gwv1.Hostname{gwv1.Hostname(host)}
		create(t, r)
		want = append(want, host)
	}
	union := func() (string, error) {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: infra, Name: "web-names"}, cm); err != nil {
			return "", err
		}
		return cm.Data["union"], nil
	}
	eventually(t, "every bystander's hostname is rendered", func() error {
		u, err := union()
		if err != nil {
			return err
		}
		for _, h := range want {
			if !strings.Contains(u, h) {
				return fmt.Errorf("union %q lacks %s", u, h)
			}
		}
		return nil
	})
	// The old ListenerSet now names its listener like the Gateway's, on the same port.
	update(t, ls, func(l *gwv1.ListenerSet) {
		l.Spec.Listeners[0].Name, l.Spec.Listeners[0].Port = "http", 80
	})
	eventually(t, "the attacker alone is set apart", func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(ls), ls); err != nil {
			return err
		}
		if err := listenerSetCondition(ls, "Accepted", metav1.ConditionFalse, "ApplyFailed", ""); err != nil {
			return err
		}
		g := &gwv1.Gateway{}
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(gw), g); err != nil {
			return err
		}
		return conditionIs(g.Status.Conditions, "Programmed", metav1.ConditionTrue, "Programmed", g.Generation)
	})
	u, err := union()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range want {
		if !strings.Contains(u, h) {
			t.Errorf("union %q lacks the bystander's %s", u, h)
		}
	}
}

// TestRefusedPairSparesTheOneThatWasThere: the third review's break. Two namespaces that are
// refused only together (the same port in both ListenerSets) were searched in name order, so
// the bystander whose namespace sorts first was set apart, however long it had been there. What
// is new or changed since the Gateway's last accepted apply is searched first now.
func TestRefusedPairSparesTheOneThatWasThere(t *testing.T) {
	infra := namespace(t, nil)
	mk := func(prefix string) string {
		name := fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%100000)
		create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
		return name
	}
	bystander, attacker := mk("a-bystander"), mk("z-attacker")
	class := setup(t, infra, blueprint("pair", `{}`, map[string]string{"svc": listenerPortsService}))
	gw := gateway(infra, "web", class, gwv1.Listener{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType, Hostname: ptr(gwv1.Hostname("a.example.com"))})
	gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
	by := newListenerSet(bystander, "by", infra, "web", gwv1.ListenerEntry{Name: "by", Port: 8081, Protocol: gwv1.HTTPProtocolType, Hostname: ptr(gwv1.Hostname("by.example.com"))})
	create(t, gw, by)
	eventually(t, "the bystander's listener is served", func() error {
		s := &corev1.Service{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: infra, Name: "web-lb"}, s); err != nil {
			return err
		}
		if len(s.Spec.Ports) != 2 {
			return fmt.Errorf("ports %v", s.Spec.Ports)
		}
		return nil
	})
	att := newListenerSet(attacker, "att", infra, "web", gwv1.ListenerEntry{Name: "att", Port: 8081, Protocol: gwv1.HTTPProtocolType, Hostname: ptr(gwv1.Hostname("att.example.com"))})
	create(t, att)
	eventually(t, "the newcomer is set apart, the bystander kept", func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(att), att); err != nil {
			return err
		}
		if err := listenerSetCondition(att, "Accepted", metav1.ConditionFalse, "ApplyFailed", ""); err != nil {
			return err
		}
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(by), by); err != nil {
			return err
		}
		return listenerSetCondition(by, "Accepted", metav1.ConditionTrue, "Accepted", "")
	})
	s := &corev1.Service{}
	if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: infra, Name: "web-lb"}, s); err != nil {
		t.Fatal(err)
	}
	if len(s.Spec.Ports) != 2 || s.Spec.Ports[1].Name != "by" {
		t.Errorf("Service ports %v, want http and the bystander's", s.Spec.Ports)
	}
}

// listenerPortsService is a Service with a port for each listener of the Gateway and of its
// ListenerSets, named after the listener: two listeners on one port, named apart, give a
// Service the API server refuses.
const listenerPortsService = `apiVersion: v1
kind: Service
metadata:
  name: {{ .Gateway.metadata.name }}-lb
spec:
  ports:
  {{- range .Gateway.spec.listeners }}
  - name: {{ .name | quote }}
    port: {{ .port }}
  {{- end }}
  {{- range .ListenerSets }}
  {{- range .spec.listeners }}
  - name: {{ .name | quote }}
    port: {{ .port }}
  {{- end }}
  {{- end }}
`
