package controllers_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
)

// watchDeletes records every ConfigMap deleted in a namespace from now on; the returned
// function lists their names.
func watchDeletes(t *testing.T, ns string) func() []string {
	t.Helper()
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(t.Context(), &corev1.ConfigMapList{}, client.InNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	var mu sync.Mutex
	var deleted []string
	go func() {
		for e := range w.ResultChan() {
			if e.Type != watch.Deleted {
				continue
			}
			if o, ok := e.Object.(client.Object); ok {
				mu.Lock()
				deleted = append(deleted, o.GetName())
				mu.Unlock()
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(deleted)
	}
}

// configMapUID reads a ConfigMap's UID.
func configMapUID(t *testing.T, ns, name string) types.UID {
	t.Helper()
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
		t.Fatalf("ConfigMap %s/%s: %v", ns, name, err)
	}
	return cm.UID
}

// waitClassFinalizer waits until the class carries Gateway API's gateway-exists finalizer
// (want) or not.
func waitClassFinalizer(t *testing.T, name string, want bool) {
	t.Helper()
	eventually(t, fmt.Sprintf("GatewayClass %s finalizer %s present=%v", name, gwv1.GatewayClassFinalizerGatewaysExist, want), func() error {
		class := &gwv1.GatewayClass{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Name: name}, class); err != nil {
			return err
		}
		if got := slices.Contains(class.Finalizers, gwv1.GatewayClassFinalizerGatewaysExist); got != want {
			return fmt.Errorf("finalizers = %v", class.Finalizers)
		}
		return nil
	})
}

// waitAcceptedMessage waits for the Gateway's Accepted condition (status, reason) and checks
// that its message names what.
func waitAcceptedMessage(t *testing.T, ns, name string, status metav1.ConditionStatus, reason, what string) {
	t.Helper()
	gw := waitGateway(t, ns, name, "Accepted", status, reason)
	if c := meta.FindStatusCondition(gw.Status.Conditions, "Accepted"); !strings.Contains(c.Message, what) {
		t.Errorf("Gateway %s/%s Accepted message %q does not name %q", ns, name, c.Message, what)
	}
}

// assertKept checks that the ConfigMap still has its UID and no ConfigMap was deleted.
func assertKept(t *testing.T, ns, name string, uid types.UID, deletes func() []string) {
	t.Helper()
	if got := configMapUID(t, ns, name); got != uid {
		t.Errorf("ConfigMap %s/%s UID = %s, want %s: it was deleted and recreated", ns, name, got, uid)
	}
	if d := deletes(); len(d) > 0 {
		t.Errorf("ConfigMaps deleted: %v", d)
	}
}

// TestClassDeleteBlipKeepsObjects: deleting a Gantry class that a Gateway uses and
// recreating it a second later is not an outage. The class is held by Gateway API's
// gateway-exists finalizer (so the recreate is refused), the Gateway says its class is being
// deleted, and the rendered ConfigMap is never deleted. Deleting the Gateway then removes what
// it rendered and releases the class, whose deletion completes.
func TestClassDeleteBlipKeepsObjects(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	bp := blueprint("values", `{"a": 1}`, map[string]string{"values": valuesTemplate})
	class := setup(t, ns, bp)
	create(t, gateway(ns, "web", class))
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	uid := configMapUID(t, ns, "web-values")
	deletes := watchDeletes(t, ns)
	// The class reconciler holds the class once it has seen the Gateway.
	waitClassFinalizer(t, class, true)

	if err := k8s.Delete(ctx, &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: class}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if err := k8s.Create(ctx, gantryClass(class, bp.Name)); !apierrors.IsAlreadyExists(err) {
		t.Errorf("recreating the class: %v, want AlreadyExists (held while a Gateway uses it)", err)
	}
	waitAcceptedMessage(t, ns, "web", metav1.ConditionFalse, controllers.ReasonGatewayClassDeleting, "GatewayClass "+class)
	held := &gwv1.GatewayClass{}
	if err := k8s.Get(ctx, client.ObjectKey{Name: class}, held); err != nil {
		t.Fatalf("class: %v", err)
	}
	if held.DeletionTimestamp.IsZero() || !slices.Contains(held.Finalizers, gwv1.GatewayClassFinalizerGatewaysExist) {
		t.Errorf("class deletionTimestamp %v, finalizers %v: want held by %s", held.DeletionTimestamp, held.Finalizers, gwv1.GatewayClassFinalizerGatewaysExist)
	}
	assertKept(t, ns, "web-values", uid, deletes)

	// The Gateway goes: its objects go, and so does the class it held.
	if err := k8s.Delete(ctx, &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-values"}}, held)
}

// TestClassGoneKeepsObjects: a class that is really gone (an admin removed the finalizer) or a
// Gateway moved to a class that never existed stops nothing: the Gateway says which class is
// missing and its objects stay. When the class is back, rendering resumes on the same objects.
func TestClassGoneKeepsObjects(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	bp := blueprint("values", `{"a": 1}`, map[string]string{"values": valuesTemplate})
	class := setup(t, ns, bp)
	gw := gateway(ns, "web", class)
	// A Gateway Gantry never rendered for, naming a class that does not exist: it may be
	// another controller's, so Gantry leaves its status alone.
	stray := gateway(ns, "stray", "absent-"+ns)
	create(t, gw, stray)
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	uid := configMapUID(t, ns, "web-values")
	deletes := watchDeletes(t, ns)

	held := &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: class}}
	if err := k8s.Delete(ctx, held); err != nil {
		t.Fatal(err)
	}
	// The admin's override: the finalizer removed by hand.
	eventually(t, "remove the class's finalizers", func() error {
		err := k8s.Get(ctx, client.ObjectKeyFromObject(held), held)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		held.Finalizers = nil
		return client.IgnoreNotFound(k8s.Update(ctx, held))
	})
	waitGone(t, held)
	waitAcceptedMessage(t, ns, "web", metav1.ConditionFalse, controllers.ReasonGatewayClassNotFound, "GatewayClass "+class)
	assertKept(t, ns, "web-values", uid, deletes)

	create(t, gantryClass(class, bp.Name))
	waitGateway(t, ns, "web", "Accepted", metav1.ConditionTrue, "Accepted")
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	waitClassFinalizer(t, class, true)
	assertKept(t, ns, "web-values", uid, deletes)

	// Moved to a class that never existed: the same.
	never := "never-" + ns
	update(t, gw, func(gw *gwv1.Gateway) { gw.Spec.GatewayClassName = gwv1.ObjectName(never) })
	waitAcceptedMessage(t, ns, "web", metav1.ConditionFalse, controllers.ReasonGatewayClassNotFound, "GatewayClass "+never)
	assertKept(t, ns, "web-values", uid, deletes)
	// No Gateway uses the old class any more: it is released.
	waitClassFinalizer(t, class, false)

	update(t, gw, func(gw *gwv1.Gateway) { gw.Spec.GatewayClassName = gwv1.ObjectName(class) })
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	waitClassFinalizer(t, class, true)
	assertKept(t, ns, "web-values", uid, deletes)

	if err := k8s.Get(ctx, client.ObjectKeyFromObject(stray), stray); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(stray.Status.Conditions, "Accepted"); c != nil && c.Reason != "Pending" {
		t.Errorf("a Gateway Gantry never served got Accepted %s/%s (%s)", c.Status, c.Reason, c.Message)
	}

	// Deleting the Gateway removes its objects and releases the class.
	if err := k8s.Delete(ctx, gw); err != nil {
		t.Fatal(err)
	}
	waitGone(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-values"}})
	waitClassFinalizer(t, class, false)
}

// TestGatewayMovedToOtherControllerRemovesObjects: a Gateway moved to a class whose
// controllerName is not Gantry's has left Gantry: what Gantry rendered for it is removed, and
// its former class is released. Gantry puts no finalizer on the other controller's class.
func TestGatewayMovedToOtherControllerRemovesObjects(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("values", `{"a": 1}`, map[string]string{"values": valuesTemplate}))
	other := gantryClass("other-"+ns, "whatever")
	other.Spec.ControllerName = "example.com/other"
	gw := gateway(ns, "web", class)
	create(t, other, gw)
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	waitClassFinalizer(t, class, true)

	update(t, gw, func(gw *gwv1.Gateway) { gw.Spec.GatewayClassName = gwv1.ObjectName(other.Name) })
	waitGone(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-values"}})
	waitClassFinalizer(t, class, false)
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(other), other); err != nil {
		t.Fatal(err)
	}
	if len(other.Finalizers) != 0 {
		t.Errorf("another controller's class got finalizers %v", other.Finalizers)
	}
}

// TestPolicyAncestorsOnlyForGantryGateways: Gantry writes policy ancestor status only for
// Gateways of its own classes. A GatewayConfig on a Gateway of another controller's class, or a
// GatewayClassConfig on such a class, gets no entry from Gantry; an entry Gantry wrote for a
// Gateway that then moves to another controller's class is removed.
func TestPolicyAncestorsOnlyForGantryGateways(t *testing.T) {
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("values", `{"a": 1}`, map[string]string{"values": valuesTemplate}))
	other := gantryClass("other-"+ns, "whatever")
	other.Spec.ControllerName = "example.com/other"
	theirs := gatewayConfig(ns, "for-theirs", "Gateway", "theirs", `{"a": 2}`, "")
	theirClass := gatewayClassConfig(ns, "for-their-class", "GatewayClass", other.Name, `{"a": 3}`, "")
	mine := gatewayConfig(ns, "for-web", "Gateway", "web", `{"a": 4}`, "")
	gw := gateway(ns, "web", class)
	create(t, other, gateway(ns, "theirs", other.Name), theirs, theirClass, gw, mine)
	waitPolicy(t, mine, ns, "web", metav1.ConditionTrue, "Accepted", metav1.ConditionTrue, "Enforced")

	noEntry := func(p client.Object) error {
		st, _, err := policyStatus(t.Context(), p)
		if err != nil {
			return err
		}
		for _, a := range st.Ancestors {
			if a.ControllerName == v1alpha1.ControllerName {
				return fmt.Errorf("%T %s has Gantry's ancestor entries %s", p, p.GetName(), describeAncestors(st))
			}
		}
		return nil
	}
	// The controller has reconciled everything created above by now; give the policy status
	// controllers their write interval once more before looking.
	time.Sleep(time.Second)
	for _, p := range []client.Object{theirs, theirClass} {
		if err := noEntry(p); err != nil {
			t.Error(err)
		}
	}

	update(t, gw, func(gw *gwv1.Gateway) { gw.Spec.GatewayClassName = gwv1.ObjectName(other.Name) })
	eventually(t, "Gantry's ancestor entry for the moved Gateway removed", func() error { return noEntry(mine) })
}

// TestRoutePolicyAncestorFollowsParentClass: a GatewayConfig on an HTTPRoute gets Gantry's
// entry only while one of the route's parents is a Gantry Gateway; when that Gateway moves to
// another controller's class, the entry goes, although neither the route nor the policy
// changed.
func TestRoutePolicyAncestorFollowsParentClass(t *testing.T) {
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("values", `{"a": 1}`, map[string]string{"values": valuesTemplate}))
	other := gantryClass("other-"+ns, "whatever")
	other.Spec.ControllerName = "example.com/other"
	gw := gateway(ns, "web", class)
	p := gatewayConfig(ns, "for-route", "HTTPRoute", "ra", `{"a": 2}`, "")
	create(t, other, gw, httpRoute(ns, "ra", ns, "web"), p)
	waitPolicyTarget(t, p, metav1.ConditionTrue, "Accepted")

	update(t, gw, func(gw *gwv1.Gateway) { gw.Spec.GatewayClassName = gwv1.ObjectName(other.Name) })
	eventually(t, "Gantry's ancestor entry for the route removed", func() error {
		st, _, err := policyStatus(t.Context(), p)
		if err != nil {
			return err
		}
		for _, a := range st.Ancestors {
			if a.ControllerName == v1alpha1.ControllerName {
				return fmt.Errorf("ancestors %s", describeAncestors(st))
			}
		}
		return nil
	})
}
