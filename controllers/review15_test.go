package controllers_test

import (
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/precedence"
)

// TestReview15RecreatedPolicyIsLookedAtOnce: a policy looked at, deleted, and re-created under
// its name inside its look interval is looked at at once: the delete's reconcile finds it gone
// and forgets its last look. 1c46714 checked the wait before reading the policy, so the delete's
// reconcile was only requeued and the new policy waited out the old one's interval. Found by a
// review (a helper session); seen failing on 1c46714.
func TestReview15RecreatedPolicyIsLookedAtOnce(t *testing.T) {
	ns := namespace(t, nil)
	p := gatewayClassConfig(ns, "recreated", "Namespace", ns, `{"replicas": 2}`, "")
	create(t, p)
	const interval = 10 * time.Second
	r, _ := controllers.NewPolicyReconcilerForTest(k8s, precedence.KindGatewayClassConfig, interval, nil)
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)}
	// The suite's own controller writes this policy's status too: a conflict is requeued.
	var res reconcile.Result
	var err error
	for range 20 {
		if res, err = r.Reconcile(t.Context(), req); err == nil && res.RequeueAfter == 0 {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if err != nil || res.RequeueAfter != 0 {
		t.Fatalf("first look: %v %v", res, err)
	}
	if err := k8s.Delete(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	res, err = r.Reconcile(t.Context(), req)
	t.Logf("reconcile of the deleted policy: requeueAfter=%v err=%v", res.RequeueAfter, err)
	p2 := gatewayClassConfig(ns, "recreated", "Namespace", ns, `{"replicas": 3}`, "")
	create(t, p2)
	res, err = r.Reconcile(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	// A short requeue is a status write that met the suite's own controller's (the cache
	// behind); the defect put the look off by the old policy's interval.
	if res.RequeueAfter >= interval/2 {
		t.Errorf("re-created policy: first look put off by %v (the deleted policy's interval); want looked at at once", res.RequeueAfter)
	}
}
