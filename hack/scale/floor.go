package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/controllers"
	"gantry.dev/gantry/internal/testenv"
)

// The floor: what the API server itself needs for the writes of a first convergence. A bare
// client, on a fresh API server holding the same inputs, applies the objects Gantry applied
// (server-side apply, field manager gantry), writes each Gateway's status as Gantry wrote it
// and creates one Event per Gateway, with 4 workers (gantry controller's default
// --gateway-concurrency; -workers does not change them), each writing a Gateway's objects at
// once as Gantry writes a unit's, and no client-side rate limit. No templates, no precedence,
// no dry-runs, no caches, no policy status; its requests pass through the same kind of
// counting proxy. Gantry's first convergence is reported as a ratio to it.

// renderedKinds are the kinds the scenario's blueprint (proxy, PDB on) renders.
var renderedKinds = []schema.GroupVersionKind{
	{Group: "apps", Version: "v1", Kind: "Deployment"},
	{Version: "v1", Kind: "Service"},
	{Version: "v1", Kind: "ServiceAccount"},
	{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"},
}

// floorWorkers is gantry controller's default --gateway-concurrency.
const floorWorkers = 4

// gatewayWrites is what a first convergence wrote for one Gateway.
type gatewayWrites struct {
	gateway types.NamespacedName
	objects []*unstructured.Unstructured
	status  gwv1.GatewayStatus
}

// captureWrites reads, from the cluster Gantry converged, each Gateway's rendered objects as
// an apply configuration (what Gantry sent, less what the server added) and its status.
func captureWrites(ctx context.Context, c client.Client) ([]gatewayWrites, error) {
	gws := &gwv1.GatewayList{}
	if err := c.List(ctx, gws); err != nil {
		return nil, err
	}
	byGateway := map[types.NamespacedName]*gatewayWrites{}
	var out []*gatewayWrites
	for _, gw := range gws.Items {
		w := &gatewayWrites{gateway: types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}, status: gw.Status}
		byGateway[w.gateway] = w
		out = append(out, w)
	}
	for _, gvk := range renderedKinds {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := c.List(ctx, l, client.HasLabels{v1alpha1.LabelGatewayName}); err != nil {
			return nil, err
		}
		for i := range l.Items {
			o := &l.Items[i]
			owner := ""
			for _, r := range o.GetOwnerReferences() {
				if r.Kind == "Gateway" {
					owner = r.Name
				}
			}
			w := byGateway[types.NamespacedName{Namespace: o.GetNamespace(), Name: owner}]
			if w == nil {
				return nil, fmt.Errorf("%s %s/%s has no Gateway owner", gvk.Kind, o.GetNamespace(), o.GetName())
			}
			w.objects = append(w.objects, applyConfiguration(o))
		}
	}
	res := make([]gatewayWrites, len(out))
	for i, w := range out {
		res[i] = *w
	}
	return res, nil
}

// applyConfiguration strips what the server wrote: identity, versions, managed fields, owner
// references (the floor's cluster has other UIDs) and status.
func applyConfiguration(o *unstructured.Unstructured) *unstructured.Unstructured {
	a := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": o.GetAPIVersion(), "kind": o.GetKind(), "spec": o.Object["spec"],
	}}
	a.SetNamespace(o.GetNamespace())
	a.SetName(o.GetName())
	a.SetLabels(o.GetLabels())
	a.SetAnnotations(o.GetAnnotations())
	if o.GetKind() == "Service" {
		// The cluster IP is allocated by the server: not part of what Gantry sends.
		spec := a.Object["spec"].(map[string]any)
		spec = copyMap(spec)
		delete(spec, "clusterIP")
		delete(spec, "clusterIPs")
		a.Object["spec"] = spec
	}
	if a.Object["spec"] == nil {
		delete(a.Object, "spec")
	}
	return a
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// measureFloor starts a fresh API server, creates the scenario's inputs, and times the bare
// writes. It returns the seconds they took.
func measureFloor(ctx context.Context, n int, writes []gatewayWrites) (float64, error) {
	objs, err := scenario(n)
	if err != nil {
		return 0, err
	}
	env, cfg, err := testenv.Start()
	if err != nil {
		return 0, err
	}
	defer env.Stop()
	c, err := client.New(rest.CopyConfig(cfg), client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		return 0, err
	}
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			return 0, fmt.Errorf("floor: create %T %s: %w", o, o.GetName(), err)
		}
	}
	// The writer goes through the same counting proxy as the controller's requests, so that
	// the proxy's hop is in both figures; no client-side rate limit, as gantry controller's
	// default.
	proxy, err := startProxy(cfg, &counter{})
	if err != nil {
		return 0, err
	}
	defer proxy.stop()
	w, err := client.New(proxy.restConfig(), client.Options{Scheme: controllers.NewScheme()})
	if err != nil {
		return 0, err
	}
	work := make(chan gatewayWrites)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = err
		}
	}
	start := time.Now()
	for range floorWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for gw := range work {
				if err := writeGateway(ctx, w, gw); err != nil {
					fail(err)
				}
			}
		}()
	}
	for _, gw := range writes {
		work <- gw
	}
	close(work)
	wg.Wait()
	return time.Since(start).Seconds(), first
}

func writeGateway(ctx context.Context, c client.Client, w gatewayWrites) error {
	// A Gateway's objects at once, as Gantry writes a unit's: the same parallelism.
	errs := make([]error, len(w.objects))
	var wg sync.WaitGroup
	for i, o := range w.objects {
		wg.Go(func() {
			if err := c.Patch(ctx, o.DeepCopy(), client.Apply, client.FieldOwner("gantry"), client.ForceOwnership); err != nil {
				errs[i] = fmt.Errorf("floor: apply %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	// A merge patch of the whole status, from what is known: no read first, as Gantry reads
	// its cache.
	status, err := json.Marshal(map[string]any{"status": w.status})
	if err != nil {
		return err
	}
	gw := &gwv1.Gateway{}
	gw.Namespace, gw.Name = w.gateway.Namespace, w.gateway.Name
	if err := c.Status().Patch(ctx, gw, client.RawPatch(types.MergePatchType, status)); err != nil {
		return fmt.Errorf("floor: status of Gateway %s: %w", w.gateway, err)
	}
	ev := &corev1.Event{}
	ev.Namespace, ev.GenerateName = w.gateway.Namespace, w.gateway.Name+"."
	ev.InvolvedObject = corev1.ObjectReference{APIVersion: gwv1.GroupVersion.String(), Kind: "Gateway", Namespace: w.gateway.Namespace, Name: w.gateway.Name, UID: gw.UID}
	ev.Type, ev.Reason, ev.Message = corev1.EventTypeNormal, "Applied", "applied"
	if err := c.Create(ctx, ev); err != nil {
		return fmt.Errorf("floor: event for Gateway %s: %w", w.gateway, err)
	}
	return nil
}
