package controllers_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/apis/v1alpha1"
)

// secretTemplate renders a Secret: a second kind, to prune a whole kind.
const secretTemplate = `apiVersion: v1
kind: Secret
metadata:
  name: {{ .Gateway.metadata.name }}-secret
data:
  token: c2VjcmV0
`

// namesTemplate renders one ConfigMap per entry of .Values.names: a template whose output
// shrinks and grows with the values.
const namesTemplate = `{{- range .Values.names }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ $.Gateway.metadata.name }}-n-{{ . }}
data:
  name: {{ . | quote }}
{{- end }}
`

// waitConfigMaps waits until the ConfigMaps rendered for a Gateway are exactly names.
func waitConfigMaps(t *testing.T, ns, gw string, names ...string) map[string]corev1.ConfigMap {
	t.Helper()
	slices.Sort(names)
	var cms map[string]corev1.ConfigMap
	eventually(t, fmt.Sprintf("ConfigMaps of %s/%s = %v", ns, gw, names), func() error {
		var err error
		if cms, err = renderedConfigMaps(t.Context(), ns, gw); err != nil {
			return err
		}
		if got := slices.Sorted(maps.Keys(cms)); !slices.Equal(got, names) {
			return fmt.Errorf("ConfigMaps = %v", got)
		}
		return nil
	})
	return cms
}

// TestPruneWhenTemplateStopsProducing: objects the render no longer produces are deleted —
// when a condition turns a template off, when a list it ranges over shrinks, and when the
// blueprint drops a template and with it the only object of its kind — while the objects still
// rendered stay the same objects.
func TestPruneWhenTemplateStopsProducing(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	bp := blueprint("prune", `{"optional": true, "names": ["a", "b", "c"]}`, map[string]string{
		"values":   valuesTemplate,
		"names":    namesTemplate,
		"secret":   secretTemplate,
		"optional": "{{ if .Values.optional }}apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Gateway.metadata.name }}-optional\n{{ end }}",
	})
	class := setup(t, ns, bp)
	create(t, gateway(ns, "web", class))
	before := waitConfigMaps(t, ns, "web", "web-values", "web-optional", "web-n-a", "web-n-b", "web-n-c")
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-secret"}}
	eventually(t, "Secret rendered", func() error { return k8s.Get(ctx, client.ObjectKeyFromObject(secret), secret) })

	create(t, gatewayConfig(ns, "less", "Gateway", "web", `{"optional": false, "names": ["a", "c"]}`, ""))
	after := waitConfigMaps(t, ns, "web", "web-values", "web-n-a", "web-n-c")
	for _, name := range []string{"web-n-a", "web-n-c"} {
		if after[name].UID != before[name].UID {
			t.Errorf("%s was replaced, not kept", name)
		}
	}

	update(t, bp, func(bp *v1alpha1.GatewayClassBlueprint) { delete(bp.Spec.GatewayTemplate.ResourceTemplates, "secret") })
	waitGone(t, secret)
	waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	waitConfigMaps(t, ns, "web", "web-values", "web-n-a", "web-n-c")
}

// TestDriftCorrected: a rendered object edited, stripped of Gantry's labels or deleted by hand
// is put back as the render says.
func TestDriftCorrected(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("drift", `{"names": ["a"]}`, map[string]string{"names": namesTemplate}))
	gw := gateway(ns, "web", class)
	create(t, gw)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-n-a"}}
	eventually(t, "rendered", func() error { return k8s.Get(ctx, client.ObjectKeyFromObject(cm), cm) })
	wantLabels := map[string]string{
		v1alpha1.LabelGatewayName: "web", v1alpha1.LabelGatewayClassName: class, v1alpha1.LabelTemplate: "names",
	}
	restored := func(what string, check func(*corev1.ConfigMap) error) *corev1.ConfigMap {
		t.Helper()
		got := &corev1.ConfigMap{}
		eventually(t, what, func() error {
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil {
				return err
			}
			if got.Data["name"] != "a" {
				return fmt.Errorf("data = %v", got.Data)
			}
			if !maps.Equal(got.Labels, wantLabels) {
				return fmt.Errorf("labels = %v", got.Labels)
			}
			if len(got.OwnerReferences) != 1 || got.OwnerReferences[0].Name != "web" {
				return fmt.Errorf("owner references = %+v", got.OwnerReferences)
			}
			return check(got)
		})
		return got
	}

	update(t, cm, func(cm *corev1.ConfigMap) { cm.Data["name"] = "edited by hand" })
	restored("edited value restored", func(got *corev1.ConfigMap) error {
		if got.UID != cm.UID {
			return fmt.Errorf("replaced instead of corrected")
		}
		return nil
	})

	update(t, cm, func(cm *corev1.ConfigMap) { cm.Labels = nil })
	restored("labels restored", func(*corev1.ConfigMap) error { return nil })

	if err := k8s.Delete(ctx, cm); err != nil {
		t.Fatal(err)
	}
	restored("deleted object recreated", func(got *corev1.ConfigMap) error {
		if got.UID == cm.UID {
			return fmt.Errorf("still the deleted object")
		}
		return nil
	})
}
