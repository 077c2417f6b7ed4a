package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// metadataCreator creates objects and reads the API server's answer as metadata only
// (`Accept: application/json;as=PartialObjectMetadata`), as patchStatusQuietly does for status
// patches. A create answers with the whole object as stored, managedFields included, and
// controller-runtime decodes that into the unstructured object it sent: 16% of everything the
// controller allocated in a first convergence of 1,000 Gateways (the scale harness's heap
// profile, docs/performance.md), for an answer of which createUnit keeps the identity and the
// metadata. controller-runtime's client creates nothing as metadata only, and client-go's
// metadata client has no create; written by hand on client-go's REST client.
type metadataCreator struct {
	rest   rest.Interface
	mapper meta.RESTMapper
}

// metadataAccept asks for PartialObjectMetadata in JSON.
const metadataAccept = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"

// newMetadataCreator returns a creator on cfg's API server, through httpClient (the manager's,
// so that connections are shared).
func newMetadataCreator(cfg *rest.Config, httpClient *http.Client, scheme *runtime.Scheme, mapper meta.RESTMapper) (*metadataCreator, error) {
	c := rest.CopyConfig(cfg)
	c.ContentType = runtime.ContentTypeJSON
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	rc, err := rest.UnversionedRESTClientForConfigAndClient(c, httpClient)
	if err != nil {
		return nil, err
	}
	return &metadataCreator{rest: rc, mapper: mapper}, nil
}

// create creates o with Gantry's field manager and strict field validation (as client.Create
// with those options) and returns the answer's metadata. A refusal is the API server's
// error, as apierrors reads it (AlreadyExists, Invalid…).
func (m *metadataCreator) create(ctx context.Context, o *unstructured.Unstructured) (*metav1.PartialObjectMetadata, error) {
	gvk := o.GroupVersionKind()
	mapping, err := m.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	body, err := o.MarshalJSON()
	if err != nil {
		return nil, err
	}
	path := "/apis/" + gvk.Group + "/" + gvk.Version
	if gvk.Group == "" {
		path = "/api/" + gvk.Version
	}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		path += "/namespaces/" + o.GetNamespace()
	}
	path += "/" + mapping.Resource.Resource
	res := m.rest.Post().AbsPath(path).
		Param("fieldManager", FieldManager).
		Param("fieldValidation", metav1.FieldValidationStrict).
		SetHeader("Accept", metadataAccept).
		SetHeader("Content-Type", runtime.ContentTypeJSON).
		Body(body).
		Do(ctx)
	// Error, not DoRaw's error: it reads the API server's Status (message and reason), where
	// DoRaw's says only the HTTP code's generic reason.
	if err := res.Error(); err != nil {
		return nil, err
	}
	raw, err := res.Raw()
	if err != nil {
		return nil, err
	}
	answer := &metav1.PartialObjectMetadata{}
	if err := json.Unmarshal(raw, answer); err != nil {
		return nil, fmt.Errorf("create %s: reading the answer: %w", keyOf(o), err)
	}
	if answer.UID == "" || answer.ResourceVersion == "" {
		return nil, fmt.Errorf("create %s: the answer holds no uid or resourceVersion: %.200s", keyOf(o), raw)
	}
	return answer, nil
}

// answered puts the API server's metadata answer to a create into o, the object sent: its
// identity (uid, resourceVersion, generation, creation time) and what admission may have set
// (labels, annotations, finalizers, owner references). The rest of o is what was sent, which a
// create stores with the server's defaults; the Gateway's Healthy condition is computed from
// it, and no object's readiness (kstatus) depends on a default before its status is written.
func answered(o *unstructured.Unstructured, a *metav1.PartialObjectMetadata) {
	o.SetUID(a.UID)
	o.SetResourceVersion(a.ResourceVersion)
	o.SetGeneration(a.Generation)
	o.SetCreationTimestamp(a.CreationTimestamp)
	o.SetDeletionTimestamp(a.DeletionTimestamp)
	o.SetLabels(a.Labels)
	o.SetAnnotations(a.Annotations)
	o.SetFinalizers(a.Finalizers)
	o.SetOwnerReferences(a.OwnerReferences)
}
