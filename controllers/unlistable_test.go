package controllers_test

import (
	"context"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"gantry.dev/gantry/controllers"
)

// TestUnlistableKindFailsTheStart: a controller whose RBAC does not let it list a kind it
// watches (here Secrets) stops with an error after its cache-sync timeout, instead of waiting
// for that informer forever (boundedSync; controller-runtime's wait for the manager's cache has no
// deadline and does not return when stopped).
func TestUnlistableKindFailsTheStart(t *testing.T) {
	ctx := t.Context()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "gantry-test-no-secrets"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"namespaces", "services", "events", "configmaps"}, Verbs: []string{"*"}},
		{APIGroups: []string{"gateway.networking.k8s.io", "gateway.gantry.dev", "coordination.k8s.io", "events.k8s.io"}, Resources: []string{"*"}, Verbs: []string{"*"}},
	}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "gantry-test-no-secrets"}}}
	create(t, role, binding)
	t.Cleanup(func() {
		_ = k8s.Delete(context.Background(), binding)
		_ = k8s.Delete(context.Background(), role)
	})
	as := rest.CopyConfig(cfg)
	as.Impersonate = rest.ImpersonationConfig{UserName: "gantry-test-no-secrets"}

	// Not beside the suite's controller: this one would reconcile the same objects.
	stopMgr()
	t.Cleanup(func() { startOrFail(t) })
	mgr, err := controllers.NewManager(as, controllers.ManagerOptions{MetricsAddress: "0", Restartable: true, CacheSyncTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := controllers.Setup(mctx, mgr, controllers.Options{ControllerNamespace: controllerNS}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	select {
	case err := <-done:
		// controller-runtime names the source whose wait ran out, which may be another kind's:
		// each source also waits for the whole cache. client-go's log names the forbidden list.
		if err == nil || !strings.Contains(err.Error(), "timed out waiting for cache to be synced") {
			t.Fatalf("the manager returned %v, want a timeout waiting for its caches", err)
		}
		t.Logf("the start failed: %v", err)
	case <-time.After(60 * time.Second):
		// A manager stuck in its cache wait does not return when cancelled either: leave it.
		t.Fatal("the manager is still starting after 60 s: it waits for an informer that can never list")
	}
}
