package controllers_test

import (
	"errors"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestGatewayLifecycle follows one Gateway from creation to deletion and checks the world at
// each step: rendered objects, their labels and owners, status, a policy change, deletion.
func TestGatewayLifecycle(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	set := loadBlueprint(t, "proxy")
	bp := set.Blueprints["proxy"].DeepCopy()
	bp.Name = "proxy-" + ns
	create(t, bp, gantryClass("class-"+ns, bp.Name))
	gw := gateway(ns, "web", "class-"+ns)
	create(t, gw)

	key := client.ObjectKey{Namespace: ns, Name: "web"}
	dep := &appsv1.Deployment{}
	eventually(t, "Deployment rendered", func() error { return k8s.Get(ctx, key, dep) })
	if got := dep.Labels[v1alpha1.LabelGatewayName]; got != "web" {
		t.Errorf("Deployment label %s = %q, want web", v1alpha1.LabelGatewayName, got)
	}
	if got := dep.Labels[v1alpha1.LabelGatewayClassName]; got != "class-"+ns {
		t.Errorf("Deployment class label = %q", got)
	}
	if len(dep.OwnerReferences) != 1 || dep.OwnerReferences[0].Kind != "Gateway" || dep.OwnerReferences[0].Name != "web" {
		t.Errorf("Deployment owner references = %+v, want the Gateway", dep.OwnerReferences)
	}
	if *dep.Spec.Replicas != 2 {
		t.Errorf("replicas = %d, want the blueprint default 2", *dep.Spec.Replicas)
	}
	for _, o := range []client.Object{&corev1.Service{}, &corev1.ServiceAccount{}} {
		if err := k8s.Get(ctx, key, o); err != nil {
			t.Errorf("%T not rendered: %v", o, err)
		}
	}

	eventually(t, "Gateway Programmed", func() error {
		if err := k8s.Get(ctx, key, gw); err != nil {
			return err
		}
		return conditionIs(gw.Status.Conditions, "Programmed", metav1.ConditionTrue, "Programmed", gw.Generation)
	})
	if err := conditionIs(gw.Status.Conditions, "Accepted", metav1.ConditionTrue, "Accepted", gw.Generation); err != nil {
		t.Error(err)
	}
	if len(gw.Status.Listeners) != 1 || gw.Status.Listeners[0].Name != "http" || len(gw.Status.Listeners[0].SupportedKinds) != 1 {
		t.Errorf("listener status = %+v", gw.Status.Listeners)
	}

	// A tenant GatewayConfig changes replicas: the Deployment follows.
	create(t, &v1alpha1.GatewayConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: v1alpha1.GatewayConfigSpec{
			TargetRef:    v1alpha1.PolicyTargetReference{Group: gwv1.GroupName, Kind: "Gateway", Name: "web"},
			PolicyValues: v1alpha1.PolicyValues{Default: &apiextensionsv1.JSON{Raw: []byte(`{"replicas": 5}`)}},
		},
	})
	eventually(t, "replicas from the GatewayConfig", func() error {
		if err := k8s.Get(ctx, key, dep); err != nil {
			return err
		}
		if *dep.Spec.Replicas != 5 {
			return fmt.Errorf("replicas = %d, want 5", *dep.Spec.Replicas)
		}
		return nil
	})
	eventually(t, "GatewayConfig status", func() error {
		p := &v1alpha1.GatewayConfig{}
		if err := k8s.Get(ctx, key, p); err != nil {
			return err
		}
		if len(p.Status.Ancestors) != 1 {
			return fmt.Errorf("ancestors = %+v", p.Status.Ancestors)
		}
		a := p.Status.Ancestors[0]
		if a.AncestorRef.Name != "web" {
			return fmt.Errorf("ancestor = %+v", a.AncestorRef)
		}
		if err := conditionIs(a.Conditions, "Accepted", metav1.ConditionTrue, "Accepted", p.Generation); err != nil {
			return err
		}
		return conditionIs(a.Conditions, "gateway.gantry.dev/Enforced", metav1.ConditionTrue, "Enforced", p.Generation)
	})

	// Deleting the Gateway removes everything it rendered.
	if err := k8s.Delete(ctx, gw); err != nil {
		t.Fatal(err)
	}
	for _, o := range []client.Object{&appsv1.Deployment{}, &corev1.Service{}, &corev1.ServiceAccount{}} {
		eventually(t, fmt.Sprintf("%T deleted", o), func() error {
			err := k8s.Get(ctx, key, o)
			if apierrors.IsNotFound(err) {
				return nil
			}
			return errors.Join(err, fmt.Errorf("still there"))
		})
	}
}

func conditionIs(conds []metav1.Condition, typ string, status metav1.ConditionStatus, reason string, gen int64) error {
	c := meta.FindStatusCondition(conds, typ)
	switch {
	case c == nil:
		return fmt.Errorf("no %s condition in %+v", typ, conds)
	case c.Status != status || c.Reason != reason:
		return fmt.Errorf("%s = %s/%s (%s), want %s/%s", typ, c.Status, c.Reason, c.Message, status, reason)
	case c.ObservedGeneration != gen:
		return fmt.Errorf("%s observedGeneration = %d, want %d", typ, c.ObservedGeneration, gen)
	}
	return nil
}
