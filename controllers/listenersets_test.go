package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	corev1 "k8s.io/api/core/v1"
)

// listenerSetsTemplate renders what a template sees of ListenerSets: their names and the
// Gateway's hostnames.
const listenerSetsTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-listenersets
data:
  names: {{ $names := list }}{{ range .ListenerSets }}{{ $names = append $names (printf "%s/%s" .metadata.namespace .metadata.name) }}{{ end }}{{ join "," $names | quote }}
  hostnames: {{ join "," .Hostnames.Union | quote }}
`

func newListenerSet(ns, name, gwNS, gw string, listeners ...gwv1.ListenerEntry) *gwv1.ListenerSet {
	return &gwv1.ListenerSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: gwv1.ListenerSetSpec{
			ParentRef: gwv1.ParentGatewayReference{Name: gwv1.ObjectName(gw), Namespace: ptr(gwv1.Namespace(gwNS))},
			Listeners: listeners,
		},
	}
}

func httpEntry(name, hostname string, from gwv1.FromNamespaces) gwv1.ListenerEntry {
	return gwv1.ListenerEntry{Name: gwv1.SectionName(name), Port: 80, Protocol: gwv1.HTTPProtocolType, Hostname: ptr(gwv1.Hostname(hostname)),
		AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(from)}}}
}

// listenerSetCondition checks a ListenerSet's condition, at its current generation.
func listenerSetCondition(ls *gwv1.ListenerSet, typ string, status metav1.ConditionStatus, reason, message string) error {
	c := meta.FindStatusCondition(ls.Status.Conditions, typ)
	if c == nil || c.Status != status || c.Reason != reason || c.ObservedGeneration != ls.Generation || !strings.Contains(c.Message, message) {
		return fmt.Errorf("ListenerSet %s %s = %+v, want %s %s (generation %d) containing %q", ls.Name, typ, c, status, reason, ls.Generation, message)
	}
	return nil
}

// TestListenerSets: a Gateway that selects ListenerSets by namespace label attaches those of a
// namespace once it is labelled; their listeners reach templates, take routes that name the
// ListenerSet, and conflict with the Gateway's; each ListenerSet, the routes and the Gateway
// say so in their status.
func TestListenerSets(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	tenant := namespace(t, nil)
	class := setup(t, ns, blueprint("ls", `{}`, map[string]string{"listenersets": listenerSetsTemplate}))
	gw := gateway(ns, "web", class, gwv1.Listener{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType, Hostname: ptr(gwv1.Hostname("web.example.com"))})
	gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{
		From: ptr(gwv1.NamespacesFromSelector), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"listeners-of": ns}},
	}}
	ls := newListenerSet(tenant, "shop", ns, "web", httpEntry("shop", "shop.example.com", gwv1.NamespacesFromSame))
	route := &gwv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "shop"},
		Spec: gwv1.HTTPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{
			Group: ptr(gwv1.Group(gwv1.GroupName)), Kind: ptr(gwv1.Kind("ListenerSet")), Name: "shop", SectionName: ptr(gwv1.SectionName("shop")),
		}}}},
	}
	create(t, gw, ls, route)

	lsKey := client.ObjectKeyFromObject(ls)
	eventually(t, "a ListenerSet of an unselected namespace is not allowed", func() error {
		if err := k8s.Get(ctx, lsKey, ls); err != nil {
			return err
		}
		for _, typ := range []string{"Accepted", "Programmed"} {
			if err := listenerSetCondition(ls, typ, metav1.ConditionFalse, "NotAllowed", "spec.allowedListeners.namespaces.selector"); err != nil {
				return err
			}
		}
		g := &gwv1.Gateway{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(gw), g); err != nil {
			return err
		}
		if g.Status.AttachedListenerSets == nil || *g.Status.AttachedListenerSets != 0 {
			return fmt.Errorf("Gateway attachedListenerSets = %v, want 0", g.Status.AttachedListenerSets)
		}
		return nil
	})

	// Labelling the namespace attaches it.
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenant}}
	update(t, nsObj, func(n *corev1.Namespace) { n.Labels = map[string]string{"listeners-of": ns} })
	eventually(t, "the ListenerSet attaches once its namespace is selected", func() error {
		if err := k8s.Get(ctx, lsKey, ls); err != nil {
			return err
		}
		if err := listenerSetCondition(ls, "Accepted", metav1.ConditionTrue, "Accepted", ""); err != nil {
			return err
		}
		if err := listenerSetCondition(ls, "Programmed", metav1.ConditionTrue, "Programmed", ""); err != nil {
			return err
		}
		if len(ls.Status.Listeners) != 1 || ls.Status.Listeners[0].AttachedRoutes != 1 {
			return fmt.Errorf("listener status %+v, want one listener with 1 route", ls.Status.Listeners)
		}
		g := &gwv1.Gateway{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(gw), g); err != nil {
			return err
		}
		if g.Status.AttachedListenerSets == nil || *g.Status.AttachedListenerSets != 1 {
			return fmt.Errorf("Gateway attachedListenerSets = %v, want 1", g.Status.AttachedListenerSets)
		}
		cms, err := renderedConfigMaps(ctx, ns, "web")
		if err != nil {
			return err
		}
		got := cms["web-listenersets"].Data
		if got["names"] != tenant+"/shop" || got["hostnames"] != "shop.example.com,web.example.com" {
			return fmt.Errorf("template saw %v, want ListenerSet %s/shop and both hostnames", got, tenant)
		}
		r := &gwv1.HTTPRoute{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(route), r); err != nil {
			return err
		}
		if len(r.Status.Parents) != 1 || r.Status.Parents[0].ParentRef.Kind == nil || *r.Status.Parents[0].ParentRef.Kind != "ListenerSet" {
			return fmt.Errorf("route parents %+v, want one for the ListenerSet", r.Status.Parents)
		}
		return conditionIs(r.Status.Parents[0].Conditions, "Accepted", metav1.ConditionTrue, "Accepted", r.Generation)
	})

	// A later ListenerSet that only repeats the Gateway's listener is not accepted, and its
	// listener says which one it gives way to; the route's namespace keeps nothing of it.
	dup := newListenerSet(tenant, "dup", ns, "web", httpEntry("again", "web.example.com", gwv1.NamespacesFromSame))
	create(t, dup)
	eventually(t, "a ListenerSet whose only listener conflicts is not accepted", func() error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(dup), dup); err != nil {
			return err
		}
		for _, typ := range []string{"Accepted", "Programmed"} {
			if err := listenerSetCondition(dup, typ, metav1.ConditionFalse, "ListenersNotValid", "listener http of Gateway "+ns+"/web"); err != nil {
				return err
			}
		}
		if len(dup.Status.Listeners) != 1 {
			return fmt.Errorf("listener status %+v", dup.Status.Listeners)
		}
		if err := conditionIs(dup.Status.Listeners[0].Conditions, "Conflicted", metav1.ConditionTrue, "HostnameConflict", dup.Generation); err != nil {
			return err
		}
		return conditionIs(dup.Status.Listeners[0].Conditions, "Accepted", metav1.ConditionFalse, "HostnameConflict", dup.Generation)
	})

	// Unchanged, nothing is written again.
	if err := k8s.Get(ctx, lsKey, ls); err != nil {
		t.Fatal(err)
	}
	before := ls.ResourceVersion
	update(t, &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}, func(g *gwv1.Gateway) {
		g.Annotations = map[string]string{"touched": "yes"} // a reconcile, with nothing new for the ListenerSet
	})
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	if err := k8s.Get(ctx, lsKey, ls); err != nil {
		t.Fatal(err)
	}
	if ls.ResourceVersion != before {
		t.Errorf("ListenerSet status rewritten with nothing changed: %+v", ls.Status)
	}
}

// TestListenerSetParentNotAccepted: a ListenerSet of a Gateway that is not accepted (its
// class names a blueprint that does not exist) says so, and counts as not attached.
func TestListenerSetParentNotAccepted(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := "class-" + ns
	create(t, gantryClass(class, "missing-"+ns))
	gw := gateway(ns, "web", class)
	gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr(gwv1.NamespacesFromSame)}}
	ls := newListenerSet(ns, "shop", ns, "web", httpEntry("shop", "shop.example.com", gwv1.NamespacesFromSame))
	create(t, gw, ls)
	eventually(t, "the ListenerSet of a Gateway that is not accepted", func() error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(ls), ls); err != nil {
			return err
		}
		for _, typ := range []string{"Accepted", "Programmed"} {
			if err := listenerSetCondition(ls, typ, metav1.ConditionFalse, "ParentNotAccepted", "Gateway "+ns+"/web is not accepted: InvalidParameters"); err != nil {
				return err
			}
		}
		g := &gwv1.Gateway{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(gw), g); err != nil {
			return err
		}
		if g.Status.AttachedListenerSets == nil || *g.Status.AttachedListenerSets != 0 {
			return fmt.Errorf("Gateway attachedListenerSets = %v, want 0", g.Status.AttachedListenerSets)
		}
		return nil
	})
}
