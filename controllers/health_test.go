package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/controllers"
)

// TestGatewaySaysHowHealthyItsObjectsAre: issue 23, item 4. A Gateway's Healthy condition
// summarises the readiness of what was rendered for it as kstatus computes it, naming the first
// object that is not ready, and follows the objects' own status; Programmed keeps its Gateway API
// meaning throughout. envtest runs no controller-manager: the test writes the Deployment's
// status, as the conformance suite's stand-in kubelet does.
func TestGatewaySaysHowHealthyItsObjectsAre(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("health", "", map[string]string{
		"cm": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config\ndata:\n  a: b\n",
		"deployment": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: proxy
spec:
  replicas: 2
  selector: {matchLabels: {app: proxy}}
  template:
    metadata: {labels: {app: proxy}}
    spec:
      containers: [{name: proxy, image: registry.example.com/proxy:1}]
`}))
	create(t, gateway(ns, "web", class))
	healthy := func(status metav1.ConditionStatus, reason, says string) {
		t.Helper()
		eventually(t, fmt.Sprintf("Healthy=%s/%s saying %q", status, reason, says), func() error {
			gw := waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
			c := meta.FindStatusCondition(gw.Status.Conditions, controllers.ConditionHealthy)
			if c == nil || c.Status != status || c.Reason != reason || !strings.Contains(c.Message, says) || c.ObservedGeneration != gw.Generation {
				return fmt.Errorf("Healthy = %+v", c)
			}
			return nil
		})
	}
	healthy(metav1.ConditionFalse, controllers.ReasonInProgress, "Deployment "+ns+"/proxy")

	dep := &appsv1.Deployment{}
	setStatus := func(change func(*appsv1.DeploymentStatus)) {
		t.Helper()
		eventually(t, "write the Deployment's status", func() error {
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "proxy"}, dep); err != nil {
				return err
			}
			dep.Status.ObservedGeneration = dep.Generation
			change(&dep.Status)
			return k8s.Status().Update(ctx, dep)
		})
	}
	setStatus(func(s *appsv1.DeploymentStatus) {
		s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas = 2, 2, 2, 2
		s.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable"},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"}}
	})
	healthy(metav1.ConditionTrue, controllers.ReasonCurrent, "all 2 rendered objects are ready")

	setStatus(func(s *appsv1.DeploymentStatus) {
		s.ReadyReplicas, s.AvailableReplicas = 0, 0
		s.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded", Message: "ReplicaSet has timed out progressing"}}
	})
	healthy(metav1.ConditionFalse, controllers.ReasonFailed, "Deployment "+ns+"/proxy")
}

// TestHealthOfAFirstRenderIsTheLiveObjects: the Healthy condition written after a first render
// says what kstatus says of the objects as the API server holds them, with no other reconcile
// to put it right. The oracle is controllers.Health over the objects read back from the API
// server. A first render is created (create.go); its health was computed from the objects as
// sent, without the cluster IP the API server gives a Service, and said it was not ready.
func TestHealthOfAFirstRenderIsTheLiveObjects(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	class := setup(t, ns, blueprint("health-first", "", map[string]string{
		"cm":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config\ndata:\n  a: b\n",
		"svc": "apiVersion: v1\nkind: Service\nmetadata:\n  name: lb\nspec:\n  type: LoadBalancer\n  ports: [{port: 80}]\n",
	}))
	create(t, gateway(ns, "web", class))
	gw := waitGateway(t, ns, "web", "Programmed", metav1.ConditionTrue, "Programmed")
	var live []*unstructured.Unstructured
	for _, k := range []struct{ apiVersion, kind, name string }{{"v1", "ConfigMap", "config"}, {"v1", "Service", "lb"}} {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(k.apiVersion)
		u.SetKind(k.kind)
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: k.name}, u); err != nil {
			t.Fatal(err)
		}
		live = append(live, u)
	}
	want := metav1.ConditionTrue
	for _, h := range controllers.Health(live) {
		t.Logf("live: %s %s %s", h.Object, h.Status, h.Message)
		if h.Status != status.CurrentStatus {
			want = metav1.ConditionFalse
		}
	}
	c := meta.FindStatusCondition(gw.Status.Conditions, controllers.ConditionHealthy)
	if c == nil || c.Status != want {
		t.Errorf("Healthy = %+v, want %s as the live objects are", c, want)
	}
}
