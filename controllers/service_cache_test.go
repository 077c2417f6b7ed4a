package controllers_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/controllers"
)

// TestServiceCacheKeepsIdentityOnly: the metadata cache of Services holds every Service of the
// cluster, most of them others'. A Service applied with kubectl carries its whole configuration
// in an annotation; the cache keeps the Service's identity (enough to say a backend exists) and
// none of its labels, annotations, owner references or finalizers. The oracle is the API
// server's own copy of the Service, read directly.
func TestServiceCacheKeepsIdentityOnly(t *testing.T) {
	ns := namespace(t, nil)
	big := strings.Repeat("x", 4096)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "others", Labels: map[string]string{"app": "theirs"},
			Annotations: map[string]string{corev1.LastAppliedConfigAnnotation: big},
			Finalizers:  []string{"example.com/keep"}},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}
	create(t, svc)
	t.Cleanup(func() { // t.Context() is done in a cleanup
		patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
		if err := k8s.Patch(context.Background(), svc, patch); err != nil {
			t.Errorf("remove the Service's finalizer: %v", err)
		}
	})
	direct := &corev1.Service{}
	if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(svc), direct); err != nil {
		t.Fatal(err)
	}
	if len(direct.Labels) == 0 || len(direct.Annotations[corev1.LastAppliedConfigAnnotation]) != len(big) || len(direct.Finalizers) == 0 {
		t.Fatalf("the API server's Service lacks what the test wrote: %+v", direct.ObjectMeta)
	}

	mgr, err := controllers.NewManager(cfg, controllers.ManagerOptions{MetricsAddress: "0", Restartable: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.GetCache().Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("cache: %v", err)
		}
	})
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("the cache did not sync")
	}
	cached := &metav1.PartialObjectMetadata{}
	cached.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
	if err := mgr.GetCache().Get(ctx, types.NamespacedName{Namespace: ns, Name: "others"}, cached); err != nil {
		t.Fatal(err)
	}
	if cached.Name != direct.Name || cached.Namespace != direct.Namespace || cached.UID != direct.UID || cached.ResourceVersion != direct.ResourceVersion {
		t.Errorf("the cached Service is %s/%s uid %s version %s; the API server's %s/%s uid %s version %s",
			cached.Namespace, cached.Name, cached.UID, cached.ResourceVersion, direct.Namespace, direct.Name, direct.UID, direct.ResourceVersion)
	}
	if cached.Labels != nil || cached.Annotations != nil || cached.OwnerReferences != nil || cached.Finalizers != nil || cached.ManagedFields != nil {
		t.Errorf("the cache keeps more of others' Services than their identity: %d labels, %d annotations, %d owner references, finalizers %v, %d managedFields entries",
			len(cached.Labels), len(cached.Annotations), len(cached.OwnerReferences), cached.Finalizers, len(cached.ManagedFields))
	}
}
