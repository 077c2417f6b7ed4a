package desired_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/desired"
)

func listenerSet(namespace, name, gateway string, age time.Duration, listeners ...gwv1.Listener) *gwv1.ListenerSet {
	ls := &gwv1.ListenerSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, CreationTimestamp: metav1.NewTime(created.Add(age))},
		Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{
			Group: ptr(gwv1.Group(gwv1.GroupName)), Kind: ptr(gwv1.Kind("Gateway")), Name: gwv1.ObjectName(gateway), Namespace: ptr(gwv1.Namespace(ns)),
		}},
	}
	for _, l := range listeners {
		ls.Spec.Listeners = append(ls.Spec.Listeners, gwv1.ListenerEntry{Name: l.Name, Hostname: l.Hostname, Port: l.Port, Protocol: l.Protocol, TLS: l.TLS, AllowedRoutes: l.AllowedRoutes})
	}
	return ls
}

func allowListeners(gw *gwv1.Gateway, from gwv1.FromNamespaces, sel *metav1.LabelSelector) *gwv1.Gateway {
	gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: &from, Selector: sel}}
	return gw
}

// TestListenerSetInjection: a ListenerSet is a tenant's object. Its fields reach templates
// through .ListenerSets (and its hostnames through .Hostnames) and must not change the YAML
// structure of the output, whatever function the template passes them through. Since issue
// 19 such a ListenerSet is set apart rather than failing the Gateway: the Gateway renders
// without it, and the ListenerSet says why.
func TestListenerSetInjection(t *testing.T) {
	gw := allowListeners(gateway("web"), gwv1.NamespacesFromSame, nil)
	ls := listenerSet(ns, "tenant", "web", 0, listener("extra", gwv1.HTTPProtocolType, 8080, "tenant.example.com"))
	ls.Annotations = map[string]string{"owner": "x\n    hostNetwork: true"}
	for _, spec := range []string{
		"{{- range .ListenerSets }}\n      serviceAccountName: {{ .metadata.annotations.owner }}\n      {{- end }}",
		"{{- range .ListenerSets }}\n      serviceAccountName: {{ .metadata.annotations.owner | upper | lower }}\n      {{- end }}",
	} {
		bp := blueprint(map[string]string{"deployment": deployment(spec)}, "")
		res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: bp, ListenerSets: []*gwv1.ListenerSet{ls}})
		if err != nil {
			t.Fatalf("Gateway: %v, want the ListenerSet set apart and the Gateway rendered", err)
		}
		if len(res.ListenerSets) != 1 || res.ListenerSets[0].Reason != desired.ReasonContributionFailed {
			t.Fatalf("ListenerSets = %+v, want tenant set apart (%s)", res.ListenerSets, desired.ReasonContributionFailed)
		}
		if want := "ListenerSet team-a/tenant field metadata.annotations.owner: this value changed the YAML structure"; !strings.Contains(res.ListenerSets[0].Message, want) {
			t.Errorf("ListenerSet message %q does not say %q", res.ListenerSets[0].Message, want)
		}
		if spec := res.Objects[0].Object["spec"].(map[string]any)["template"].(map[string]any)["spec"]; spec != nil {
			t.Errorf("pod spec = %v, want the render without the ListenerSet (nothing)", spec)
		}
	}

	// Quoted, the same value is data, and .ListenerSets holds the attached ListenerSet.
	bp := blueprint(map[string]string{"deployment": deployment("serviceAccountName: {{ (index .ListenerSets 0).metadata.annotations.owner | quote }}")}, "")
	res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: bp, ListenerSets: []*gwv1.ListenerSet{ls}})
	if err != nil {
		t.Fatalf("Gateway: %v", err)
	}
	spec := res.Objects[0].Object["spec"].(map[string]any)["template"].(map[string]any)["spec"]
	if want := map[string]any{"serviceAccountName": "x\n    hostNetwork: true"}; !reflect.DeepEqual(spec, want) {
		t.Errorf("pod spec = %v, want %v", spec, want)
	}
	if want := []string{"tenant.example.com"}; !reflect.DeepEqual(res.Hostnames.Union, want) {
		t.Errorf(".Hostnames.Union = %v, want %v", res.Hostnames.Union, want)
	}
}

// TestListenerSetsAllowed: spec.allowedListeners decides which ListenerSets attach (None by
// default); the attached ones reach .ListenerSets in precedence order, the others do not.
func TestListenerSetsAllowed(t *testing.T) {
	http := func(name, host string) gwv1.Listener { return listener(name, gwv1.HTTPProtocolType, 80, host) }
	same := listenerSet(ns, "same", "web", time.Minute, http("a", "same.example.com"))
	older := listenerSet(ns, "older", "web", 0, http("a", "older.example.com"))
	other := listenerSet("team-b", "other", "web", 0, http("a", "other.example.com"))
	selected := listenerSet("team-c", "selected", "web", 0, http("a", "selected.example.com"))
	elsewhere := listenerSet(ns, "elsewhere", "another-gateway", 0, http("a", "elsewhere.example.com"))
	all := []*gwv1.ListenerSet{same, other, selected, older, elsewhere}
	labels := map[string]map[string]string{"team-c": {"listeners": "yes"}}
	tests := []struct {
		name    string
		gw      *gwv1.Gateway
		want    []string // attached, in order
		refused map[string]string
	}{{
		name:    "default",
		gw:      gateway("web", http("http", "web.example.com")),
		refused: map[string]string{"team-a/older": "NotAllowed", "team-a/same": "NotAllowed", "team-b/other": "NotAllowed", "team-c/selected": "NotAllowed"},
	}, {
		name:    "Same",
		gw:      allowListeners(gateway("web", http("http", "web.example.com")), gwv1.NamespacesFromSame, nil),
		want:    []string{"team-a/older", "team-a/same"},
		refused: map[string]string{"team-b/other": "NotAllowed", "team-c/selected": "NotAllowed"},
	}, {
		name:    "Selector",
		gw:      allowListeners(gateway("web", http("http", "web.example.com")), gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"listeners": "yes"}}),
		want:    []string{"team-c/selected"},
		refused: map[string]string{"team-a/older": "NotAllowed", "team-a/same": "NotAllowed", "team-b/other": "NotAllowed"},
	}, {
		name: "All",
		gw:   allowListeners(gateway("web", http("http", "web.example.com")), gwv1.NamespacesFromAll, nil),
		// Oldest first, then namespace/name.
		want: []string{"team-a/older", "team-b/other", "team-c/selected", "team-a/same"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bp := blueprint(map[string]string{"names": configMapTemplate("names", `names: {{ range .ListenerSets }}{{ .metadata.namespace }}/{{ .metadata.name }},{{ end }}`, `hosts: {{ join "," .Hostnames.Union | quote }}`)}, "")
			res, err := desired.Gateway(&desired.Input{Gateway: tt.gw, Class: class(), Blueprint: bp, ListenerSets: all, NamespaceLabels: labels})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			refused := map[string]string{}
			for _, o := range res.ListenerSets {
				if o.Accepted() {
					got = append(got, o.String())
				} else {
					refused[o.String()] = string(o.Reason)
					if !strings.Contains(o.Message, "Gateway team-a/web spec.allowedListeners") && !strings.Contains(o.Message, "does not allow ListenerSets") {
						t.Errorf("%s: message %q does not name the Gateway's field", o, o.Message)
					}
				}
			}
			if !reflect.DeepEqual(got, tt.want) || len(refused) != len(tt.refused) || !reflect.DeepEqual(refused, tt.refused) && len(tt.refused) > 0 {
				t.Errorf("attached %v, refused %v; want %v, %v", got, refused, tt.want, tt.refused)
			}
			data := res.Objects[0].Object["data"].(map[string]any)
			wantNames := ""
			hosts := []string{"web.example.com"}
			for _, k := range tt.want {
				wantNames += k + ","
				hosts = append(hosts, strings.Split(k, "/")[1]+".example.com")
			}
			if data["names"] != nilIfEmpty(wantNames) {
				t.Errorf(".ListenerSets names = %v, want %q", data["names"], wantNames)
			}
			if got := strings.Split(data["hosts"].(string), ","); len(got) != len(hosts) {
				t.Errorf(".Hostnames.Union = %v, want the Gateway's and the attached ListenerSets' (%v)", got, hosts)
			}
		})
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// TestListenerSetConflicts: the Gateway's listeners come first, then ListenerSets oldest
// first; a listener that shares a port with an earlier one of another protocol, or port,
// protocol and hostname, conflicts. A ListenerSet without a valid listener is not accepted.
func TestListenerSetConflicts(t *testing.T) {
	gw := allowListeners(gateway("web",
		listener("gw", gwv1.HTTPProtocolType, 80, "gw.example.com"),
		listener("taken", gwv1.HTTPProtocolType, 80, "taken.example.com"),
		listener("dns", gwv1.TCPProtocolType, 53, "")), gwv1.NamespacesFromSame, nil)
	first := listenerSet(ns, "first", "web", 0,
		listener("own", gwv1.HTTPProtocolType, 80, "first.example.com"),
		listener("taken", gwv1.HTTPProtocolType, 80, "taken.example.com"),
		listener("tcp", gwv1.TCPProtocolType, 80, ""),
		listener("shared", gwv1.HTTPProtocolType, 80, "shared.example.com"),
		listener("dns-udp", gwv1.UDPProtocolType, 53, "")) // UDP beside the Gateway's TCP: no conflict
	second := listenerSet(ns, "second", "web", time.Second,
		listener("shared", gwv1.HTTPProtocolType, 80, "shared.example.com"))
	res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: blueprint(nil, ""), ListenerSets: []*gwv1.ListenerSet{second, first}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ListenerSets) != 2 {
		t.Fatalf("ListenerSets = %+v", res.ListenerSets)
	}
	f, s := res.ListenerSets[0], res.ListenerSets[1]
	if f.Name != "first" || !f.Accepted() || s.Name != "second" || s.Reason != gwv1.ListenerSetReasonListenersNotValid {
		t.Fatalf("first: %s %q, second: %s %q", f.Name, f.Reason, s.Name, s.Reason)
	}
	want := []gwv1.ListenerConditionReason{"", gwv1.ListenerReasonHostnameConflict, gwv1.ListenerReasonProtocolConflict, "", ""}
	for i, l := range f.Listeners {
		if l.Conflict != want[i] {
			t.Errorf("first listener %s: conflict %q, want %q", l.Name, l.Conflict, want[i])
		}
	}
	if c := s.Listeners[0]; c.Conflict != gwv1.ListenerReasonHostnameConflict || !strings.Contains(c.ConflictMessage, "listener shared of ListenerSet team-a/first") {
		t.Errorf("second listener: %q %q", c.Conflict, c.ConflictMessage)
	}
	if !strings.Contains(s.Message, "no listener is valid") || !strings.Contains(s.Message, "spec.listeners[0]") {
		t.Errorf("second message %q does not say which field", s.Message)
	}
	if !strings.Contains(f.Message, "listener taken: spec.listeners[1]") {
		t.Errorf("first message %q does not list its invalid listeners", f.Message)
	}
	for _, h := range res.Hostnames.Union {
		if h == "shared.example.com" && f.Listeners[3].Conflict != "" {
			t.Errorf("a conflicted listener's hostname reached .Hostnames")
		}
	}
}

// TestListenerSetRoutes: a route attaches to a ListenerSet's listeners through a parentRef of
// kind ListenerSet (sectionName and port select among them), with the ListenerSet's namespace
// as "Same"; a parentRef to the Gateway reaches the Gateway's own listeners only.
func TestListenerSetRoutes(t *testing.T) {
	gw := allowListeners(gateway("web", listener("gw", gwv1.HTTPProtocolType, 80, "gw.example.com")), gwv1.NamespacesFromAll, nil)
	ls := listenerSet("team-b", "tenant", "web", 0,
		listener("one", gwv1.HTTPProtocolType, 80, "one.example.com"),
		listener("two", gwv1.HTTPProtocolType, 80, "two.example.com"))
	refused := listenerSet("team-b", "refused", "web", 0, listener("gw", gwv1.HTTPProtocolType, 80, "gw.example.com"))
	lsRef := func(name, section string) gwv1.ParentReference {
		pr := gwv1.ParentReference{Group: ptr(gwv1.Group(gwv1.GroupName)), Kind: ptr(gwv1.Kind("ListenerSet")), Name: gwv1.ObjectName(name), Namespace: ptr(gwv1.Namespace("team-b"))}
		if section != "" {
			pr.SectionName = ptr(gwv1.SectionName(section))
		}
		return pr
	}
	gwRef := func(section string) gwv1.ParentReference {
		pr := gwv1.ParentReference{Name: "web", Namespace: ptr(gwv1.Namespace(ns))}
		if section != "" {
			pr.SectionName = ptr(gwv1.SectionName(section))
		}
		return pr
	}
	r := func(namespace, name string, refs ...gwv1.ParentReference) *gwv1.HTTPRoute {
		return &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Spec: gwv1.HTTPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: refs}}}
	}
	routes := []*gwv1.HTTPRoute{
		r("team-b", "all", lsRef("tenant", "")),
		r("team-b", "one", lsRef("tenant", "one")),
		r("team-a", "other-namespace", lsRef("tenant", "")), // Same is the ListenerSet's namespace
		r("team-b", "gateway-section", gwRef("one")),        // not the Gateway's listener
		r("team-b", "refused", lsRef("refused", "")),
	}
	in := &desired.Input{Gateway: gw, ListenerSets: []*gwv1.ListenerSet{ls, refused}}
	listeners, results, sets := desired.Attach(in, routes)
	got := map[string]string{}
	for _, rt := range results {
		got[rt.Name] = string(rt.Reason)
	}
	want := map[string]string{"all": "Accepted", "one": "Accepted", "other-namespace": "NotAllowedByListeners", "gateway-section": "NoMatchingParent", "refused": "NotAllowedByListeners"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("route reasons %v, want %v", got, want)
	}
	if listeners[0].AttachedRoutes != 0 {
		t.Errorf("Gateway listener has %d routes, want 0", listeners[0].AttachedRoutes)
	}
	var tenant desired.ListenerSet
	for _, s := range sets {
		if s.Name == "tenant" {
			tenant = s
		}
	}
	if n1, n2 := tenant.Listeners[0].AttachedRoutes, tenant.Listeners[1].AttachedRoutes; n1 != 2 || n2 != 1 {
		t.Errorf("ListenerSet listeners have %d and %d routes, want 2 and 1", n1, n2)
	}
}

// TestListenerKindsOnOtherProtocols: a listener of a protocol HTTPRoutes do not use, whose
// allowedRoutes.kinds names route kinds, has kinds that cannot attach (InvalidRouteKinds),
// on a Gateway and on a ListenerSet alike.
func TestListenerKindsOnOtherProtocols(t *testing.T) {
	tls := listener("tls", gwv1.TLSProtocolType, 443, "tls.example.com")
	tls.AllowedRoutes = &gwv1.AllowedRoutes{Kinds: []gwv1.RouteGroupKind{{Kind: "HTTPRoute"}}}
	plain := listener("tcp", gwv1.TCPProtocolType, 9000, "")
	gw := allowListeners(gateway("web", tls, plain), gwv1.NamespacesFromSame, nil)
	lsTLS := tls
	lsTLS.Port = 8443
	ls := listenerSet(ns, "tenant", "web", 0, listener("other", gwv1.HTTPProtocolType, 80, ""), lsTLS)
	listeners, _, sets := desired.Attach(&desired.Input{Gateway: gw, ListenerSets: []*gwv1.ListenerSet{ls}}, nil)
	for _, l := range []desired.Listener{listeners[0], sets[0].Listeners[1]} {
		if !strings.Contains(l.Invalid, "HTTPRoute are not supported on a TLS listener") || len(l.SupportedKinds) != 0 {
			t.Errorf("listener %s: Invalid %q, kinds %v", l.Name, l.Invalid, l.SupportedKinds)
		}
	}
	if listeners[1].Invalid != "" {
		t.Errorf("a TCP listener that names no kinds: Invalid %q", listeners[1].Invalid)
	}
}
