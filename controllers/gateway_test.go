package controllers_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
)

// TestGatewayLifecycle follows one Gateway from creation to deletion and checks the world at
// each step: rendered objects (a cluster-scoped one among them), their labels and owners, the
// finalizer, status and addresses from the status template, a policy change, deletion of
// everything.
func TestGatewayLifecycle(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	set := loadBlueprint(t, "proxy")
	bp := set.Blueprints["proxy"].DeepCopy()
	bp.Name = "proxy-" + ns
	// A cluster-scoped object too, which no owner reference can clean up.
	bp.Spec.ClusterScopedKinds = []v1alpha1.GroupKind{{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}}
	bp.Spec.GatewayTemplate.ResourceTemplates["clusterrole"] = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: gantry-{{ .Gateway.metadata.namespace }}-{{ .Gateway.metadata.name }}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get]
`
	create(t, bp, gantryClass("class-"+ns, bp.Name))
	gw := gateway(ns, "web", "class-"+ns)
	create(t, gw)

	key := client.ObjectKey{Namespace: ns, Name: "web"}
	dep := &appsv1.Deployment{}
	eventually(t, "Deployment rendered", func() error { return k8s.Get(ctx, key, dep) })
	if got := dep.Labels[v1alpha1.LabelGatewayName]; got != "web" {
		t.Errorf("Deployment label %s = %q, want web", v1alpha1.LabelGatewayName, got)
	}
	if got := dep.Labels[v1alpha1.LabelGatewayClassName]; got != "class-"+ns {
		t.Errorf("Deployment class label = %q", got)
	}
	if len(dep.OwnerReferences) != 1 || dep.OwnerReferences[0].Kind != "Gateway" || dep.OwnerReferences[0].Name != "web" {
		t.Errorf("Deployment owner references = %+v, want the Gateway", dep.OwnerReferences)
	}
	if *dep.Spec.Replicas != 2 {
		t.Errorf("replicas = %d, want the blueprint default 2", *dep.Spec.Replicas)
	}
	for _, o := range []client.Object{&corev1.Service{}, &corev1.ServiceAccount{}} {
		eventually(t, fmt.Sprintf("%T rendered", o), func() error { return k8s.Get(ctx, key, o) })
		if refs := o.GetOwnerReferences(); len(refs) != 1 || refs[0].Kind != "Gateway" || refs[0].UID != gw.UID || refs[0].Controller == nil || !*refs[0].Controller {
			t.Errorf("%T owner references = %+v, want the Gateway as controller", o, refs)
		}
	}
	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "gantry-" + ns + "-web"}}
	eventually(t, "ClusterRole rendered", func() error { return k8s.Get(ctx, client.ObjectKeyFromObject(cr), cr) })
	if cr.Labels[v1alpha1.LabelGatewayName] != "web" || cr.Labels[v1alpha1.LabelTemplate] != "clusterrole" || cr.Annotations[v1alpha1.AnnotationOwner] != ns+"/web" {
		t.Errorf("ClusterRole labels %v annotations %v: want the Gateway's", cr.Labels, cr.Annotations)
	}
	// The Gateway's UID is what tells this Gateway's object from a deleted namesake's
	// (docs/security.md): it was once dropped before it reached the API server (issue 22).
	if got := cr.Annotations[v1alpha1.AnnotationOwnerUID]; got != string(gw.UID) {
		t.Errorf("ClusterRole annotation %s = %q, want the Gateway's UID %q", v1alpha1.AnnotationOwnerUID, got, gw.UID)
	}
	if len(cr.OwnerReferences) != 0 {
		t.Errorf("ClusterRole owner references = %+v; a cluster-scoped object cannot be owned by a namespaced one", cr.OwnerReferences)
	}
	eventually(t, "finalizer for the cluster-scoped object", func() error {
		if err := k8s.Get(ctx, key, gw); err != nil {
			return err
		}
		if !slices.Contains(gw.Finalizers, controllers.Finalizer) {
			return fmt.Errorf("finalizers = %v", gw.Finalizers)
		}
		return nil
	})
	eventually(t, "blueprint remembers the kinds it rendered", func() error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(bp), bp); err != nil {
			return err
		}
		for _, want := range []string{"apps/v1/Deployment", "/v1/Service", "/v1/ServiceAccount", "rbac.authorization.k8s.io/v1/ClusterRole"} {
			if !slices.ContainsFunc(bp.Status.RenderedKinds, func(k v1alpha1.GroupVersionKind) bool { return k.Group+"/"+k.Version+"/"+k.Kind == want }) {
				return fmt.Errorf("renderedKinds %v lack %s", bp.Status.RenderedKinds, want)
			}
		}
		return nil
	})

	eventually(t, "Gateway Programmed", func() error {
		if err := k8s.Get(ctx, key, gw); err != nil {
			return err
		}
		return conditionIs(gw.Status.Conditions, "Programmed", metav1.ConditionTrue, "Programmed", gw.Generation)
	})
	if err := conditionIs(gw.Status.Conditions, "Accepted", metav1.ConditionTrue, "Accepted", gw.Generation); err != nil {
		t.Error(err)
	}
	// HTTP: HTTPRoute and GRPCRoute, Gateway API's kinds for it, which the blueprint does not narrow.
	if len(gw.Status.Listeners) != 1 || gw.Status.Listeners[0].Name != "http" || len(gw.Status.Listeners[0].SupportedKinds) != 2 {
		t.Errorf("listener status = %+v", gw.Status.Listeners)
	}

	if len(gw.Status.Addresses) != 0 {
		t.Errorf("addresses = %+v before the load balancer has one", gw.Status.Addresses)
	}

	// The load balancer gets an address: the status template puts it on the Gateway.
	svc := &corev1.Service{}
	if err := k8s.Get(ctx, key, svc); err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.10"}, {Hostname: "lb.example.com"}}
	if err := k8s.Status().Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	eventually(t, "addresses from the status template", func() error {
		if err := k8s.Get(ctx, key, gw); err != nil {
			return err
		}
		want := []gwv1.GatewayStatusAddress{
			{Type: ptr(gwv1.IPAddressType), Value: "203.0.113.10"},
			{Type: ptr(gwv1.HostnameAddressType), Value: "lb.example.com"},
		}
		if !reflect.DeepEqual(gw.Status.Addresses, want) {
			return fmt.Errorf("addresses = %+v", gw.Status.Addresses)
		}
		return nil
	})

	// A tenant GatewayConfig changes replicas: the Deployment follows.
	create(t, &v1alpha1.GatewayConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: v1alpha1.GatewayConfigSpec{
			TargetRef:    v1alpha1.PolicyTargetReference{Group: gwv1.GroupName, Kind: "Gateway", Name: "web"},
			PolicyValues: v1alpha1.PolicyValues{Default: &apiextensionsv1.JSON{Raw: []byte(`{"replicas": 5}`)}},
		},
	})
	eventually(t, "replicas from the GatewayConfig", func() error {
		if err := k8s.Get(ctx, key, dep); err != nil {
			return err
		}
		if *dep.Spec.Replicas != 5 {
			return fmt.Errorf("replicas = %d, want 5", *dep.Spec.Replicas)
		}
		return nil
	})
	eventually(t, "GatewayConfig status", func() error {
		p := &v1alpha1.GatewayConfig{}
		if err := k8s.Get(ctx, key, p); err != nil {
			return err
		}
		if len(p.Status.Ancestors) != 1 {
			return fmt.Errorf("ancestors = %+v", p.Status.Ancestors)
		}
		a := p.Status.Ancestors[0]
		if a.AncestorRef.Name != "web" {
			return fmt.Errorf("ancestor = %+v", a.AncestorRef)
		}
		if err := conditionIs(a.Conditions, "Accepted", metav1.ConditionTrue, "Accepted", p.Generation); err != nil {
			return err
		}
		return conditionIs(a.Conditions, "gateway.gantry.dev/Enforced", metav1.ConditionTrue, "Enforced", p.Generation)
	})

	eventually(t, "Gateway says a GatewayConfig applies", func() error {
		if err := k8s.Get(ctx, key, gw); err != nil {
			return err
		}
		return conditionIs(gw.Status.Conditions, controllers.ConditionGatewayConfigAffected, metav1.ConditionTrue, controllers.ReasonAffected, gw.Generation)
	})

	// Deleting the Gateway removes everything it rendered, the cluster-scoped ClusterRole
	// through the finalizer, and then the Gateway itself goes.
	if err := k8s.Delete(ctx, gw); err != nil {
		t.Fatal(err)
	}
	objs := []client.Object{&appsv1.Deployment{}, &corev1.Service{}, &corev1.ServiceAccount{}}
	for _, o := range objs {
		o.SetNamespace(ns)
		o.SetName("web")
	}
	waitGone(t, append(objs, cr, &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}})...)
}

func conditionIs(conds []metav1.Condition, typ string, status metav1.ConditionStatus, reason string, gen int64) error {
	c := meta.FindStatusCondition(conds, typ)
	switch {
	case c == nil:
		return fmt.Errorf("no %s condition in %+v", typ, conds)
	case c.Status != status || c.Reason != reason:
		return fmt.Errorf("%s = %s/%s (%s), want %s/%s", typ, c.Status, c.Reason, c.Message, status, reason)
	case c.ObservedGeneration != gen:
		return fmt.Errorf("%s observedGeneration = %d, want %d", typ, c.ObservedGeneration, gen)
	}
	return nil
}

// resourceVersions reads the resourceVersion of each object, by a readable key.
func resourceVersions(t *testing.T, objs ...client.Object) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, o := range objs {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(o), o); err != nil {
			t.Fatal(err)
		}
		out[fmt.Sprintf("%T %s", o, client.ObjectKeyFromObject(o))] = o.GetResourceVersion()
	}
	return out
}

// quiet waits until the Gateway controller reconciled at least once more than before, then
// for a short window, so that whatever those reconciles would write is written.
func quiet(t *testing.T, before float64) {
	t.Helper()
	eventually(t, "a Gateway reconcile", func() error {
		if n := gatewayReconciles(t); n <= before {
			return fmt.Errorf("%v reconciles, no new one", n)
		}
		return nil
	})
	time.Sleep(2 * time.Second)
}

// TestNothingWrittenWhenNothingChanged: once a Gateway converged, reconciling it again — on an
// unrelated edit of a rendered object, or from scratch after a controller restart — writes
// nothing: no rendered object, no Gateway status, no policy or route status, no class or
// blueprint.
func TestNothingWrittenWhenNothingChanged(t *testing.T) {
	ns := namespace(t, nil)
	bp := loadBlueprint(t, "proxy").Blueprints["proxy"].DeepCopy()
	bp.Name = "proxy"
	class := setup(t, ns, bp)
	gw := gateway(ns, "web", class)
	policy := gatewayConfig(ns, "web", "Gateway", "web", `{"replicas": 3, "service": {"annotations": {"example.com/a": "b"}}}`, "")
	route := httpRoute(ns, "app", ns, "web")
	create(t, gw, policy, route)
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	waitPolicy(t, policy, ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")
	waitClass(t, class, metav1.ConditionTrue, "Accepted")
	waitRouteParent(t, route, metav1.ConditionTrue, "Accepted")
	waitAttached(t, ns, "web", 1)

	key := metav1.ObjectMeta{Namespace: ns, Name: "web"}
	sa := &corev1.ServiceAccount{ObjectMeta: key}
	objs := []client.Object{&appsv1.Deployment{ObjectMeta: key}, &corev1.Service{ObjectMeta: key}, sa,
		gw, policy, route, &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: class}}, bp}
	// Let the last status writes land before taking the picture.
	quiet(t, 0)
	before := resourceVersions(t, objs...)

	// Someone labels a rendered object: the controller looks again, and leaves it be.
	n := gatewayReconciles(t)
	update(t, sa, func(sa *corev1.ServiceAccount) { sa.Labels["example.com/team"] = "a" })
	touched := sa.ResourceVersion
	quiet(t, n)
	after := resourceVersions(t, objs...)
	if got := after[fmt.Sprintf("%T %s/web", sa, ns)]; got != touched {
		t.Errorf("ServiceAccount written after an unrelated label: resourceVersion %s, was %s", got, touched)
	}
	if sa.Labels["example.com/team"] != "a" {
		t.Errorf("the label someone else set is gone: %v", sa.Labels)
	}
	before[fmt.Sprintf("%T %s/web", sa, ns)] = touched
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s written though nothing changed: resourceVersion %s, was %s", k, after[k], v)
		}
	}

	// A new controller process reconciles everything from scratch: still nothing to write.
	n = gatewayReconciles(t)
	restartController(t)
	quiet(t, n)
	after = resourceVersions(t, objs...)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s written after a restart though nothing changed: resourceVersion %s, was %s", k, after[k], v)
		}
	}
}

// TestPendingUntilResourceHasStatus: a template that reads another template's object through
// .Resources before that object has what it reads is pending, not failed — the Gateway says
// what it waits for, the rest is applied — and renders as soon as the object has it.
func TestPendingUntilResourceHasStatus(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("pending", "", map[string]string{
		"lb": `apiVersion: v1
kind: Service
metadata:
  name: {{ .Gateway.metadata.name }}-lb
spec:
  type: LoadBalancer
  ports:
  - port: 80
`,
		"dns": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-dns
data:
  target: {{ (index (index .Resources.lb 0).status.loadBalancer.ingress 0).ip | quote }}
`,
	}))
	create(t, gateway(ns, "web", class))
	gw := waitGateway(t, ns, "web", "Programmed", metav1.ConditionFalse, "Pending")
	if msg := meta.FindStatusCondition(gw.Status.Conditions, "Programmed").Message; !strings.Contains(msg, "dns") || !strings.Contains(msg, "lb") {
		t.Errorf("Programmed message %q does not say which template waits for which", msg)
	}
	if err := conditionIs(gw.Status.Conditions, "Accepted", metav1.ConditionTrue, "Accepted", gw.Generation); err != nil {
		t.Error(err)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-lb"}}
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(svc), svc); err != nil {
		t.Fatalf("the object waited for is not applied: %v", err)
	}

	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "198.51.100.7"}}
	if err := k8s.Status().Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	eventually(t, "dns rendered from the load balancer's address", func() error {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-dns"}, cm); err != nil {
			return err
		}
		if cm.Data["target"] != "198.51.100.7" {
			return fmt.Errorf("data = %v", cm.Data)
		}
		return nil
	})
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	// The listener follows the Gateway.
	eventually(t, "listener Programmed", func() error {
		gw := &gwv1.Gateway{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, gw); err != nil {
			return err
		}
		if len(gw.Status.Listeners) != 1 {
			return fmt.Errorf("listeners = %+v", gw.Status.Listeners)
		}
		return conditionIs(gw.Status.Listeners[0].Conditions, "Programmed", metav1.ConditionTrue, "Programmed", gw.Generation)
	})
}

// TestListenerStatusFollowsSpec: a listener's conditions follow its spec — a route kind the
// listener cannot accept makes ResolvedRefs False, and fixing the listener makes it True again.
func TestListenerStatusFollowsSpec(t *testing.T) {
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("listeners", "", map[string]string{"values": valuesTemplate}))
	gw := gateway(ns, "web", class, gwv1.Listener{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType, AllowedRoutes: &gwv1.AllowedRoutes{
		Kinds: []gwv1.RouteGroupKind{{Kind: "TCPRoute"}}, // not carried by an HTTP listener
	}})
	create(t, gw)
	listener := func(status metav1.ConditionStatus, reason string) {
		t.Helper()
		eventually(t, fmt.Sprintf("listener ResolvedRefs=%s/%s", status, reason), func() error {
			if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(gw), gw); err != nil {
				return err
			}
			if len(gw.Status.Listeners) != 1 {
				return fmt.Errorf("listeners = %+v", gw.Status.Listeners)
			}
			return conditionIs(gw.Status.Listeners[0].Conditions, "ResolvedRefs", status, reason, gw.Generation)
		})
	}
	listener(metav1.ConditionFalse, "InvalidRouteKinds")
	update(t, gw, func(gw *gwv1.Gateway) {
		gw.Spec.Listeners[0].AllowedRoutes.Kinds = []gwv1.RouteGroupKind{{Kind: "HTTPRoute"}}
	})
	listener(metav1.ConditionTrue, "ResolvedRefs")
}
