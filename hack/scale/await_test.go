package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/testenv"
)

// TestAwaitFollowsChanges: the harness's waits end when, and only when, the API server holds
// what they wait for: every Deployment at the replicas asked (or the one named), not before.
// Its oracle is the API server's own copy of each object, read back with a plain Get.
func TestAwaitFollowsChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API server")
	}
	env, cfg, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a"}}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := c.Create(ctx, deployment(fmt.Sprintf("d%d", i), 1)); err != nil {
			t.Fatal(err)
		}
	}
	scale := func(name string, replicas int32) {
		t.Helper()
		d := &appsv1.Deployment{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "a", Name: name}, d); err != nil {
			t.Fatal(err)
		}
		d.Spec.Replicas = ptr.To(replicas)
		if err := c.Update(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	// atReplicas is the oracle: how many of the Deployments the API server holds at r.
	atReplicas := func(r int32, only string) int {
		t.Helper()
		n := 0
		for i := range 3 {
			name := fmt.Sprintf("d%d", i)
			if only != "" && only != "a/"+name {
				continue
			}
			d := &appsv1.Deployment{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "a", Name: name}, d); err != nil {
				t.Fatal(err)
			}
			if *d.Spec.Replicas == r {
				n++
			}
		}
		return n
	}
	wait := func(n int, r int32, only string) chan error {
		done := make(chan error, 1)
		go func() { done <- waitReplicas(ctx, c, n, r, only) }()
		return done
	}
	notYet := func(done chan error, what string) {
		t.Helper()
		select {
		case err := <-done:
			t.Fatalf("%s: the wait ended (%v) before it should", what, err)
		case <-time.After(time.Second):
		}
	}
	ended := func(done chan error, what string, r int32, n int, only string) {
		t.Helper()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if got := atReplicas(r, only); got < n {
				t.Fatalf("%s: the wait ended with %d Deployments at %d replicas, want %d", what, got, r, n)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the wait did not end", what)
		}
	}

	all := wait(3, 2, "")
	notYet(all, "none at 2")
	scale("d0", 2)
	scale("d1", 2)
	notYet(all, "two of three at 2")
	scale("d2", 2)
	ended(all, "three at 2", 2, 3, "")

	one := wait(1, 5, "a/d2")
	scale("d1", 5) // another Deployment at 5 is not the one waited for
	notYet(one, "d1 at 5, waiting for d2")
	scale("d2", 5)
	ended(one, "d2 at 5", 5, 1, "a/d2")
}

func deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}},
			},
		},
	}
}

// TestProgrammed: a Gateway counts once Programmed=True for its own generation only.
func TestProgrammed(t *testing.T) {
	gw := func(gen, observed int64, status metav1.ConditionStatus) *gwv1.Gateway {
		g := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Generation: gen}}
		g.Status.Conditions = []metav1.Condition{{Type: "Programmed", Status: status, ObservedGeneration: observed}}
		return g
	}
	for _, tt := range []struct {
		gw   *gwv1.Gateway
		want bool
	}{
		{gw(2, 2, metav1.ConditionTrue), true},
		{gw(2, 1, metav1.ConditionTrue), false},
		{gw(2, 2, metav1.ConditionFalse), false},
		{&gwv1.Gateway{}, false},
	} {
		if got := programmed(tt.gw); got != tt.want {
			t.Errorf("programmed(generation %d, conditions %v) = %v, want %v", tt.gw.Generation, tt.gw.Status.Conditions, got, tt.want)
		}
	}
}
