package controllers_test

import (
	"fmt"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestKindInstalledLater: issue 21. A blueprint renders a kind whose CRD is not installed: the
// Gateway is RenderFailed naming it. Installing the CRD, and touching nothing else, makes the
// Gateway Programmed: the controller looks again on its own (it stayed failed until something
// touched the Gateway, 90 s and more).
func TestKindInstalledLater(t *testing.T) {
	ns := namespace(t, nil)
	group := fmt.Sprintf("%s.later.gantry.dev", ns)
	class := setup(t, ns, blueprint("later", "", map[string]string{"widget": "apiVersion: " + group + "/v1\nkind: Widget\nmetadata:\n  name: w\nspec: {}\n"}))
	create(t, gateway(ns, "web", class))
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionFalse, "RenderFailed")

	c := crdClient(t)
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}}}},
		},
	}
	if err := c.Create(t.Context(), crd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Delete(t.Context(), crd) })
	start := time.Now()
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	t.Logf("Programmed %s after the CRD was created", time.Since(start).Round(time.Second))
	w := &unstructured.Unstructured{}
	w.SetAPIVersion(group + "/v1")
	w.SetKind("Widget")
	if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "w"}, w); err != nil {
		t.Errorf("the Widget: %v", err)
	}
}
