package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	apimetav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// await waits until ready holds for at least n objects of list's kind (item is one of them, for
// its type), following them with client-go's watchtools.UntilWithSync: one list, then a watch,
// relisted should the watch expire. Until 2026-11-27 the harness listed every object again
// every 250 ms (every N/4 ms above N=1,000): at N=1,000 about 80 lists of 1,000 Gateways
// during one convergence, each encoded by the API server and decoded by the harness on the
// same two cores as the controller measured, a load the floor does not carry. A watch costs
// the API server one event per change, which it sends the controller's informers anyway.
func await(ctx context.Context, c client.WithWatch, list client.ObjectList, item client.Object, n int, opts *client.ListOptions, ready func(client.Object) bool, what string) error {
	ctx, cancel := context.WithTimeout(ctx, waitLimit(n))
	defer cancel()
	lw := &toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o apimetav1.ListOptions) (runtime.Object, error) {
			l := list.DeepCopyObject().(client.ObjectList)
			return l, c.List(ctx, l, withRaw(opts, o))
		},
		WatchFuncWithContext: func(ctx context.Context, o apimetav1.ListOptions) (watch.Interface, error) {
			return c.Watch(ctx, list.DeepCopyObject().(client.ObjectList), withRaw(opts, o))
		},
	}
	state := map[string]bool{} // namespace/name: ready
	done, lastReport := 0, time.Now()
	_, err := watchtools.UntilWithSync(ctx, lw, item, nil, func(ev watch.Event) (bool, error) {
		o, ok := ev.Object.(client.Object)
		if !ok {
			return false, fmt.Errorf("%s: unexpected watch event %s %T", what, ev.Type, ev.Object)
		}
		key := o.GetNamespace() + "/" + o.GetName()
		was := state[key]
		now := ev.Type != watch.Deleted && ready(o)
		switch {
		case now && !was:
			done++
		case was && !now:
			done--
		}
		if ev.Type == watch.Deleted {
			delete(state, key)
		} else {
			state[key] = now
		}
		if time.Since(lastReport) > 30*time.Second {
			lastReport = time.Now()
			fmt.Fprintf(os.Stderr, "  %d of %d %s%s\n", done, n, what, notYet(state))
		}
		return done >= n, nil
	})
	if err != nil {
		return fmt.Errorf("%d of %d %s after %v%s: %w", done, n, what, waitLimit(n), notYet(state), err)
	}
	return nil
}

// notYet names one object that is not ready, if there is one, for a wait's report.
func notYet(state map[string]bool) string {
	for key, ready := range state {
		if !ready {
			return "; e.g. not yet " + key
		}
	}
	return ""
}

// withRaw is opts (a namespace, a field selector) with what the informer asks for: resource
// version, bookmarks, and pages (controller-runtime sets the page from the options' own Limit
// and Continue).
func withRaw(opts *client.ListOptions, raw apimetav1.ListOptions) *client.ListOptions {
	out := &client.ListOptions{}
	if opts != nil {
		*out = *opts
	}
	out.Limit, out.Continue, out.Raw = raw.Limit, raw.Continue, &raw
	return out
}

// programmed reports whether a Gateway is Programmed for its generation.
func programmed(o client.Object) bool {
	gw := o.(*gwv1.Gateway)
	c := meta.FindStatusCondition(gw.Status.Conditions, "Programmed")
	return c != nil && c.Status == apimetav1.ConditionTrue && c.ObservedGeneration == gw.Generation
}
