package controllers_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/precedence"
)

// TestPolicyLooksArePaced: every Gateway's reconcile asks the policy controller to look at its
// policies again, and each look lists every Gateway the policy may reach. Those looks are
// spaced out by the status interval — while a Gateway has not reported, and when a look finds
// nothing to change — and a look that waits is not lost. Unspaced, a first convergence or a
// global edit of N Gateways cost O(N²) (a quarter of the controller's CPU at N=4,000).
func TestPolicyLooksArePaced(t *testing.T) {
	ns := namespace(t, nil)
	p := gatewayClassConfig(ns, "paced", "Namespace", ns, `{"replicas": 2}`, "")
	// It exists: a Gateway that does not exist never reports, and is not waited for.
	g := gateway(ns, "not-reported", "no-such-class")
	create(t, p, g)
	gw := client.ObjectKeyFromObject(g)
	var looks atomic.Int32
	reaches := func(context.Context, client.Object) []reconcile.Request {
		looks.Add(1)
		return []reconcile.Request{{NamespacedName: gw}}
	}
	const interval = 2 * time.Second
	r, report := controllers.NewPolicyReconcilerForTest(k8s, precedence.KindGatewayClassConfig, interval, reaches)
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)}

	// burst reconciles five times at once, as five Gateways' notices would, and returns the
	// looks they made and whether each asked to be requeued.
	burst := func(phase string) int32 {
		t.Helper()
		before, began := looks.Load(), time.Now()
		for i := range 5 {
			res, err := r.Reconcile(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 && res.RequeueAfter <= 0 {
				t.Fatalf("%s: notice %d inside the interval was dropped, not requeued", phase, i)
			}
		}
		if time.Since(began) >= interval {
			t.Skipf("%s: five reconciles took longer than the interval; the machine is too busy to tell", phase)
		}
		return looks.Load() - before
	}

	// A Gateway the board has never heard of: the policy must wait for it.
	if n := burst("not reported"); n != 1 {
		t.Errorf("not reported: five notices within %s made %d looks, want 1", interval, n)
	}
	report(gw)
	time.Sleep(interval)
	res, err := r.Reconcile(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if looks.Load() != 2 || res.RequeueAfter != 0 {
		t.Fatalf("after the Gateway reported and the interval passed: %d looks and requeue %v, want 2 looks and the status decided", looks.Load(), res.RequeueAfter)
	}
	// The status is now what a look computes: further looks find nothing to change, and are
	// spaced out too.
	time.Sleep(interval)
	if n := burst("nothing to change"); n != 1 {
		t.Errorf("nothing to change: five notices within %s made %d looks, want 1", interval, n)
	}
}

// TestPolicyWaitsOnOneGateway: a look that finds a Gateway the policy may reach unreported
// waits on that Gateway: the looks after it do not list every Gateway the policy may reach
// again until that one has reported, is gone or the policy changed; one that does not exist
// is not waited for. Listing them on every look made a first
// convergence's CPU grow as N² (11% of the controller's CPU at N=10,000).
func TestPolicyWaitsOnOneGateway(t *testing.T) {
	ns := namespace(t, nil)
	p := gatewayClassConfig(ns, "waits", "Namespace", ns, `{"replicas": 2}`, "")
	a, b := gateway(ns, "a", "no-such-class"), gateway(ns, "b", "no-such-class")
	create(t, p, a, b)
	reach := newListedReach(a, b)
	reaches, lists := reach.list, &reach.lists
	const interval = 50 * time.Millisecond
	r, report := controllers.NewPolicyReconcilerForTest(k8s, precedence.KindGatewayClassConfig, interval, reaches)
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)}
	// look reconciles once the interval has passed, and returns the lists made so far and
	// whether the status was decided (no requeue).
	look := func() (int32, bool) {
		t.Helper()
		time.Sleep(interval)
		res, err := r.Reconcile(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		return lists.Load(), res.RequeueAfter == 0
	}
	want := func(phase string, wantLists int32, wantDecided bool) {
		t.Helper()
		if n, decided := look(); n != wantLists || decided != wantDecided {
			t.Errorf("%s: %d lists, decided %v; want %d, %v", phase, n, decided, wantLists, wantDecided)
		}
	}
	want("first look", 1, false) // a is not reported
	want("a still not reported", 1, false)
	want("a still not reported, again", 1, false)
	report(client.ObjectKeyFromObject(a))
	want("a reported", 2, false) // b is not
	want("b still not reported", 2, false)
	// The policy changes: its reach may have, so the next look lists again.
	latest := &v1alpha1.GatewayClassConfig{}
	if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(p), latest); err != nil {
		t.Fatal(err)
	}
	latest.Spec.Default = raw(`{"replicas": 3}`)
	if err := k8s.Update(t.Context(), latest); err != nil {
		t.Fatal(err)
	}
	want("the policy changed", 3, false)
	want("b still not reported after the change", 3, false)
	// b goes before it ever reports: the wait on it ends.
	if err := k8s.Delete(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	reach.set(client.ObjectKeyFromObject(a))
	if err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(b), &gwv1.Gateway{})), nil
	}); err != nil {
		t.Fatalf("Gateway b not gone: %v", err)
	}
	want("b deleted", 4, true)
	// A Gateway that never existed (a route's parentRef can name one) never reports: the
	// policy does not wait for it.
	reach.set(client.ObjectKeyFromObject(a), types.NamespacedName{Namespace: ns, Name: "never-created"})
	want("a Gateway that does not exist", 5, true)
}

// TestPolicyWaitOnADirectlyReachedGatewayLasts: a wait on a Gateway the policy reaches by the
// Gateway's own fields (its class, namespace or name) lasts while it still does, however long
// the Gateway takes to report; each look checks that. A wait bounded in time made every
// namespace's policy list the namespace's Gateways again each 30 s of a first convergence,
// whose length grows with N: CPU per Gateway that grew with N. A wait on a Gateway reached
// another way (a route between them) stays bounded, for only a list sees it leave.
func TestPolicyWaitOnADirectlyReachedGatewayLasts(t *testing.T) {
	ns := namespace(t, nil)
	// Another controller's classes: the suite's controller leaves these Gateways alone.
	one, two := ns+"-one", ns+"-two"
	for _, name := range []string{one, two} {
		class := &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: gwv1.GatewayClassSpec{ControllerName: "example.com/other"}}
		create(t, class)
		t.Cleanup(func() { _ = k8s.Delete(context.Background(), class) })
	}
	p := gatewayClassConfig(ns, "waits-long", "GatewayClass", one, `{"replicas": 2}`, "")
	a, b := gateway(ns, "a", one), gateway(ns, "b", one)
	other := namespace(t, nil)
	viaRoute := gateway(other, "via-route", one) // not of the policy's namespace
	create(t, p, a, b, viaRoute)
	reach := newListedReach(a, b)
	reaches, lists := reach.list, &reach.lists
	const interval = 50 * time.Millisecond
	r, report := controllers.NewPolicyReconcilerForTest(k8s, precedence.KindGatewayClassConfig, interval, reaches)
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)}
	want := func(phase string, wantLists int32) {
		t.Helper()
		time.Sleep(interval)
		res, err := r.Reconcile(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if n := lists.Load(); n != wantLists || res.RequeueAfter == 0 {
			t.Errorf("%s: %d lists, decided %v; want %d lists, not decided", phase, n, res.RequeueAfter == 0, wantLists)
		}
	}
	want("first look", 1) // waits on a
	controllers.AgeWaitsForTest(r)
	want("a reached by its class, past the bound", 1)
	// a moves to another class: the policy no longer reaches it, and the next look lists.
	latest := &gwv1.Gateway{}
	if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(a), latest); err != nil {
		t.Fatal(err)
	}
	latest.Spec.GatewayClassName = gwv1.ObjectName(two)
	if err := k8s.Update(t.Context(), latest); err != nil {
		t.Fatal(err)
	}
	reach.set(client.ObjectKeyFromObject(b))
	if err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		gw := &gwv1.Gateway{}
		return k8s.Get(ctx, client.ObjectKeyFromObject(a), gw) == nil && string(gw.Spec.GatewayClassName) == two, nil
	}); err != nil {
		t.Fatalf("Gateway a's class not seen changed: %v", err)
	}
	want("a left the class", 2) // waits on b
	report(client.ObjectKeyFromObject(b))
	// Only through a route does the policy reach via-route (the injected reach says so; its
	// namespace is not the policy's): that wait is bounded.
	reach.set(client.ObjectKeyFromObject(b), client.ObjectKeyFromObject(viaRoute))
	want("b reported, via-route not", 3)
	want("via-route within the bound", 3)
	controllers.AgeWaitsForTest(r)
	want("via-route past the bound", 4)
}

// listedReach stands for mapper.policyGateways in the pacing tests: the Gateways a policy may
// reach, set by the test, and how many times they were listed.
type listedReach struct {
	lists   atomic.Int32
	mu      sync.Mutex
	reached []types.NamespacedName
}

func newListedReach(gws ...client.Object) *listedReach {
	r := &listedReach{}
	for _, gw := range gws {
		r.reached = append(r.reached, client.ObjectKeyFromObject(gw))
	}
	return r
}

func (r *listedReach) set(keys ...types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reached = keys
}

func (r *listedReach) list(context.Context, client.Object) []reconcile.Request {
	r.lists.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	return requestsOf(r.reached)
}

func requestsOf(keys []types.NamespacedName) []reconcile.Request {
	out := make([]reconcile.Request, len(keys))
	for i, k := range keys {
		out[i] = reconcile.Request{NamespacedName: k}
	}
	return out
}
