package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestInfrastructureMetadataIsNoPrivilege: issue 19's metadata attacks. A tenant's
// spec.infrastructure labels and annotations went on every rendered object, cluster-scoped
// included: rbac.authorization.k8s.io/aggregate-to-view joined a rendered ClusterRole to
// view, and gateway.gantry.dev/keep would keep a cluster-scoped object after its Gateway is
// gone. Now Gantry's own keys are never taken, cluster-scoped objects get none unless the
// blueprint opts in, and the blueprint's deny list holds.
func TestInfrastructureMetadataIsNoPrivilege(t *testing.T) {
	ns := namespace(t, nil)
	cm := `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-infra
data: {}
`
	role := `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ .Gateway.metadata.namespace }}-{{ .Gateway.metadata.name }}-reader
rules:
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get"]
`
	bp := blueprint("meta-"+ns, `{}`, map[string]string{"cm": cm, "role": role})
	bp.Spec.ClusterScopedKinds = []v1alpha1.GroupKind{{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}}
	bp.Spec.InfrastructureMetadata = &v1alpha1.InfrastructureMetadata{DeniedKeys: []string{"example.com/denied"}}
	create(t, bp, gantryClass("class-"+ns, "meta-"+ns))
	gw := gateway(ns, "web", "class-"+ns)
	gw.Spec.Infrastructure = &gwv1.GatewayInfrastructure{
		Labels: map[gwv1.LabelKey]gwv1.LabelValue{
			"team": "a", "rbac.authorization.k8s.io/aggregate-to-view": "true", "example.com/denied": "x",
			"sub.gantry.dev/thing": "forged",
		},
		Annotations: map[gwv1.AnnotationKey]gwv1.AnnotationValue{
			"example.com/note": "hello", v1alpha1.AnnotationKeep: "true", v1alpha1.AnnotationOwner: "other/gw",
		},
	}
	create(t, gw)
	roleName := ns + "-web-reader"
	t.Cleanup(func() {
		_ = k8s.Delete(t.Context(), &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: roleName}})
	})
	eventually(t, "the ConfigMap takes the tenant's plain keys only, the ClusterRole none", func() error {
		got := &corev1.ConfigMap{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "web-infra"}, got); err != nil {
			return err
		}
		if got.Labels["team"] != "a" || got.Annotations["example.com/note"] != "hello" {
			return fmt.Errorf("ConfigMap labels %v, annotations %v: want team=a and example.com/note", got.Labels, got.Annotations)
		}
		for _, k := range []string{"example.com/denied", "sub.gantry.dev/thing"} {
			if _, ok := got.Labels[k]; ok {
				return fmt.Errorf("ConfigMap has the label %s from spec.infrastructure", k)
			}
		}
		if _, ok := got.Annotations[v1alpha1.AnnotationKeep]; ok {
			return fmt.Errorf("ConfigMap has Gantry's keep annotation from spec.infrastructure")
		}
		if got.Annotations[v1alpha1.AnnotationOwner] != ns+"/web" {
			return fmt.Errorf("owner annotation %q, want Gantry's %s/web", got.Annotations[v1alpha1.AnnotationOwner], ns)
		}
		cr := &rbacv1.ClusterRole{}
		if err := k8s.Get(t.Context(), client.ObjectKey{Name: roleName}, cr); err != nil {
			return err
		}
		for _, k := range []string{"team", "rbac.authorization.k8s.io/aggregate-to-view"} {
			if _, ok := cr.Labels[k]; ok {
				return fmt.Errorf("ClusterRole has the label %s from spec.infrastructure (labels %v)", k, cr.Labels)
			}
		}
		for _, k := range []string{"example.com/note", v1alpha1.AnnotationKeep} {
			if _, ok := cr.Annotations[k]; ok {
				return fmt.Errorf("ClusterRole has the annotation %s from spec.infrastructure", k)
			}
		}
		return nil
	})
	// Deleting the Gateway removes the ClusterRole: the tenant's keep was not taken.
	if err := k8s.Delete(t.Context(), gw); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the ClusterRole goes with its Gateway", func() error {
		err := k8s.Get(t.Context(), client.ObjectKey{Name: roleName}, &rbacv1.ClusterRole{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("ClusterRole %s still there (%v)", roleName, err)
	})
}

// TestClassServesSelectedNamespaces: a blueprint's spec.namespaces limits its class to the
// namespaces it selects. A Gateway elsewhere is not Accepted, saying why, and gets nothing;
// once its namespace is labelled to match, it is rendered.
func TestClassServesSelectedNamespaces(t *testing.T) {
	ns := namespace(t, nil)
	bp := blueprint("only-"+ns, `{}`, map[string]string{"cm": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-cm
data: {}
`})
	bp.Spec.Namespaces = &metav1.LabelSelector{MatchLabels: map[string]string{"gantry-class-" + ns: "allowed"}}
	create(t, bp, gantryClass("class-"+ns, "only-"+ns))
	gw := gateway(ns, "web", "class-"+ns)
	create(t, gw)
	eventually(t, "the Gateway is not accepted in a namespace the class does not serve", func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(gw), gw); err != nil {
			return err
		}
		if err := conditionIs(gw.Status.Conditions, string(gwv1.GatewayConditionAccepted), metav1.ConditionFalse, string(gwv1.GatewayReasonInvalidParameters), gw.Generation); err != nil {
			return err
		}
		for _, c := range gw.Status.Conditions {
			if c.Type == string(gwv1.GatewayConditionAccepted) && !strings.Contains(c.Message, "namespaces its GatewayClassBlueprint only-"+ns+" selects") {
				return fmt.Errorf("Accepted message %q does not say why", c.Message)
			}
		}
		return nil
	})
	if err := k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "web-cm"}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Fatalf("ConfigMap of a Gateway the class does not serve: %v, want NotFound", err)
	}
	update(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, func(n *corev1.Namespace) {
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels["gantry-class-"+ns] = "allowed"
	})
	eventually(t, "the Gateway is rendered once its namespace is selected", func() error {
		if err := k8s.Get(t.Context(), client.ObjectKeyFromObject(gw), gw); err != nil {
			return err
		}
		if err := conditionIs(gw.Status.Conditions, string(gwv1.GatewayConditionAccepted), metav1.ConditionTrue, string(gwv1.GatewayReasonAccepted), gw.Generation); err != nil {
			return err
		}
		return k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "web-cm"}, &corev1.ConfigMap{})
	})
}
