package controllers_test

import (
	"context"
	"fmt"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/testenv"
)

// TestRESTMapperLearnsNewKinds: the manager's mapper, on the suite's API server, answers a
// known kind from memory (no allocation but the copy it returns and the call's slice; 81
// without the memo) and still learns a kind whose CRD is created after it started, and that
// kind's scope.
func TestRESTMapperLearnsNewKinds(t *testing.T) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := controllers.NewRESTMapper(cfg, hc)
	if err != nil {
		t.Fatal(err)
	}
	deployment := schema.GroupKind{Group: "apps", Kind: "Deployment"}
	if _, err := m.RESTMapping(deployment, "v1"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.RESTMapping(deployment, "v1"); err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(100, func() { _, _ = m.RESTMapping(deployment, "v1") }); allocs > 2 {
		t.Errorf("a known kind's mapping: %.0f allocations, want at most the copy and the versions' slice", allocs)
	}

	widget := schema.GroupKind{Group: "mapper.gantry.test", Kind: "Widget"}
	if _, err := m.RESTMapping(widget, "v1"); !meta.IsNoMatchError(err) {
		t.Fatalf("before its CRD: %v, want no match", err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.mapper.gantry.test"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: widget.Group, Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: widget.Kind, ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}}}},
		},
	}
	c := crdClient(t)
	if err := c.Create(t.Context(), crd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // t.Context() has ended by now
		ctx := context.Background()
		if err := c.Delete(ctx, crd); err != nil {
			t.Errorf("delete the CRD: %v", err)
			return
		}
		testenv.Eventually(t, "the CRD gone", func() error {
			if err := c.Get(ctx, client.ObjectKeyFromObject(crd), crd); !apierrors.IsNotFound(err) {
				return fmt.Errorf("still there (%v)", err)
			}
			return nil
		})
	})
	var got *meta.RESTMapping
	eventually(t, "the new kind mapped", func() error {
		got, err = m.RESTMapping(widget, "v1")
		return err
	})
	if got.Scope.Name() != meta.RESTScopeNameRoot || got.Resource.Resource != "widgets" {
		t.Errorf("the new kind maps to %s, scope %s; want widgets, cluster-scoped", got.Resource, got.Scope.Name())
	}
}
