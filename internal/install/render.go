// Package install renders Gantry's Helm chart (charts/gantry) with Helm's own engine, so that
// tests can install it on a real API server exactly as `helm install` would template it.
package install

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gantry.dev/gantry/internal/yamltext"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// Render templates the chart at dir for a release in namespace, with values over the chart's.
// It returns the objects of templates/ (CRDs in crds/ are installed separately, as Helm does).
func Render(dir, release, namespace string, values map[string]any) ([]*unstructured.Unstructured, error) {
	ch, err := loader.Load(dir)
	if err != nil {
		return nil, err
	}
	vals, err := chartutil.ToRenderValues(ch, values, chartutil.ReleaseOptions{Name: release, Namespace: namespace, IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(ch, vals)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		docs, _ := yamltext.SplitDocuments(files[name])
		for i, doc := range docs {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
				return nil, fmt.Errorf("%s document %d: %w", name, i+1, err)
			}
			if len(u.Object) > 0 {
				out = append(out, u)
			}
		}
	}
	return out, nil
}

// LocalWebhooks points every webhook of the ValidatingWebhookConfiguration name at
// https://127.0.0.1:port, on the path the chart gives it, trusting caPEM; the rules and failure
// policy stay the chart's. envtest's API server has no Service network to reach the chart's
// webhook Service through, so tests and the playground serve the webhooks on loopback.
func LocalWebhooks(ctx context.Context, c client.Client, name string, port int, caPEM []byte) error {
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, vwc); err != nil {
		return err
	}
	for i := range vwc.Webhooks {
		cc := &vwc.Webhooks[i].ClientConfig
		if cc.Service == nil || cc.Service.Path == nil {
			return fmt.Errorf("webhook %s of %s names no Service path", vwc.Webhooks[i].Name, name)
		}
		url := fmt.Sprintf("https://127.0.0.1:%d%s", port, *cc.Service.Path)
		*cc = admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caPEM}
	}
	return c.Update(ctx, vwc)
}
