package cluster

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/manifests"
)

// The reads here work with the rights their user has: a tenant bound to the chart's
// gantry-tenant role in one namespace may list its own namespace's Gateways, routes and
// GatewayConfigs, not the cluster's, nor the platform's GatewayClassConfigs. What the user may
// not read is left out and named in manifests.Set.Unseen, for the commands to say what their
// answer could not take into account; any other error still fails the read.

// listVisible lists into l; when the user may not, it leaves l empty and notes what (e.g.
// "GatewayClassConfigs in gantry-system").
func listVisible(ctx context.Context, c client.Client, set *manifests.Set, what string, l client.ObjectList, opts ...client.ListOption) error {
	err := c.List(ctx, l, opts...)
	if apierrors.IsForbidden(err) {
		set.Unseen = append(set.Unseen, what)
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s: %w", what, err)
	}
	return nil
}

// listWide lists into l across every namespace; when the user may not, it lists namespace ns
// alone (when given) and notes that the rest was not seen.
func listWide(ctx context.Context, c client.Client, set *manifests.Set, what, ns string, l client.ObjectList, opts ...client.ListOption) error {
	err := c.List(ctx, l, opts...)
	switch {
	case err == nil:
		return nil
	case !apierrors.IsForbidden(err):
		return fmt.Errorf("list %s: %w", what, err)
	case ns == "":
		set.Unseen = append(set.Unseen, what)
		return nil
	}
	set.Unseen = append(set.Unseen, what+" outside namespace "+ns)
	return listVisible(ctx, c, set, what+" in "+ns, l, append(opts, client.InNamespace(ns))...)
}

// getVisible reads key into o; found is false when it does not exist, and also when the user
// may not read it, which is noted.
func getVisible(ctx context.Context, c client.Client, set *manifests.Set, what string, key client.ObjectKey, o client.Object) (found bool, err error) {
	err = c.Get(ctx, key, o)
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	case apierrors.IsForbidden(err):
		set.Unseen = append(set.Unseen, what)
		return false, nil
	}
	return false, fmt.Errorf("get %s: %w", what, err)
}
