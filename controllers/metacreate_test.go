package controllers_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/controllers"
)

// answers records the bodies of the API server's answers to POSTs.
type answers struct {
	base http.RoundTripper
	mu   sync.Mutex
	got  []string
}

func (a *answers) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.base.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	a.mu.Lock()
	a.got = append(a.got, string(body))
	a.mu.Unlock()
	return resp, nil
}

// TestCreateAnswersMetadataOnly: createUnit's creates (metadataCreator) ask the API server for
// the created object's metadata only, and get it; the object is stored whole, with Gantry's
// field manager; the answer's identity is put into the object sent; a taken name and an
// unknown field are the API server's refusals, as apierrors reads them. On the suite's real
// API server, a namespaced and a cluster-scoped kind.
func TestCreateAnswersMetadataOnly(t *testing.T) {
	ns := namespace(t, nil)
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rec := &answers{base: rt}
	hc := &http.Client{Transport: rec}
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "meta-answer", "namespace": ns, "labels": map[string]any{"a": "b"}},
		"data":     map[string]any{"key": "a value only the whole object holds"},
	}}
	if err := controllers.MetadataCreateForTest(t.Context(), cfg, hc, cm); err != nil {
		t.Fatal(err)
	}
	if len(rec.got) != 1 {
		t.Fatalf("%d answers recorded, want 1", len(rec.got))
	}
	if a := rec.got[0]; !strings.Contains(a, `"kind":"PartialObjectMetadata"`) || strings.Contains(a, "a value only the whole object holds") {
		t.Errorf("the create's answer is not metadata only: %.300s", a)
	}
	stored := &unstructured.Unstructured{}
	stored.SetAPIVersion("v1")
	stored.SetKind("ConfigMap")
	if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "meta-answer"}, stored); err != nil {
		t.Fatal(err)
	}
	if cm.GetUID() == "" || cm.GetUID() != stored.GetUID() || cm.GetResourceVersion() != stored.GetResourceVersion() {
		t.Errorf("answered uid %q rv %q, stored uid %q rv %q", cm.GetUID(), cm.GetResourceVersion(), stored.GetUID(), stored.GetResourceVersion())
	}
	if v, _, _ := unstructured.NestedString(stored.Object, "data", "key"); v != "a value only the whole object holds" {
		t.Errorf("stored data %q", v)
	}
	if v, _, _ := unstructured.NestedString(cm.Object, "data", "key"); v != "a value only the whole object holds" || cm.GetLabels()["a"] != "b" {
		t.Errorf("the object sent lost what it held: %v", cm.Object)
	}
	if mf := stored.GetManagedFields(); len(mf) != 1 || mf[0].Manager != controllers.FieldManager {
		t.Errorf("managed fields %+v, want one entry of %q", mf, controllers.FieldManager)
	}
	again := cm.DeepCopy()
	again.SetResourceVersion("")
	again.SetUID("")
	if err := controllers.MetadataCreateForTest(t.Context(), cfg, hc, again); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second create: %v, want AlreadyExists", err)
	}
	typo := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "meta-typo", "namespace": ns},
		"dta":      map[string]any{"key": "v"},
	}}
	if err := controllers.MetadataCreateForTest(t.Context(), cfg, hc, typo); !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "dta") {
		t.Errorf("create with an unknown field: %v, want the strict validation's refusal naming it; answers %q", err, rec.got)
	}
	role := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
		"metadata": map[string]any{"name": "gantry-meta-answer-" + ns},
	}}
	if err := controllers.MetadataCreateForTest(t.Context(), cfg, hc, role); err != nil || role.GetUID() == "" {
		t.Fatalf("cluster-scoped create: %v (uid %q)", err, role.GetUID())
	}
	t.Cleanup(func() { _ = k8s.Delete(t.Context(), role) })
}
