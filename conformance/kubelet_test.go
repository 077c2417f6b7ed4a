package conformance_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// standInKubelet stands in for what envtest lacks and the suite's setup waits for: envtest runs
// no controller-manager and no kubelet, so the backends' Deployments never get Pods, while the
// suite waits for Ready Pods in its base namespaces (gateway-conformance-*). For every
// Deployment there it creates one Pod from the Deployment's template and reports it Ready. No
// container runs; nothing here affects what Gantry is tested on (Gantry does not read Pods).
func standInKubelet(ctx context.Context, t *testing.T, c client.Client) {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		deps := &appsv1.DeploymentList{}
		if err := c.List(ctx, deps); err != nil {
			continue
		}
		for i := range deps.Items {
			d := &deps.Items[i]
			if !strings.HasPrefix(d.Namespace, "gateway-conformance-") || !d.DeletionTimestamp.IsZero() {
				continue
			}
			if err := readyPod(ctx, c, d); err != nil && ctx.Err() == nil {
				t.Logf("stand-in kubelet: %v", err)
			}
		}
	}
}

func readyPod(ctx context.Context, c client.Client, d *appsv1.Deployment) error {
	pod := &corev1.Pod{}
	key := client.ObjectKey{Namespace: d.Namespace, Name: d.Name + "-standin"}
	if err := c.Get(ctx, key, pod); apierrors.IsNotFound(err) {
		pod = &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, Labels: d.Spec.Template.Labels,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID}}},
			Spec: d.Spec.Template.Spec,
		}
		// As if scheduled: tests that write EndpointSlices for these Pods copy the node name.
		pod.Spec.NodeName = "envtest"
		if err := c.Create(ctx, pod); err != nil {
			return fmt.Errorf("create Pod %s: %w", key, err)
		}
	} else if err != nil {
		return err
	}
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
			return nil
		}
	}
	pod.Status.Phase = corev1.PodRunning
	pod.Status.PodIP = "192.0.2.2"
	pod.Status.PodIPs = []corev1.PodIP{{IP: pod.Status.PodIP}}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
	if err := c.Status().Update(ctx, pod); err != nil {
		return fmt.Errorf("report Pod %s Ready: %w", key, err)
	}
	return nil
}
