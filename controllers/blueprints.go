package controllers

import (
	"context"
	"fmt"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/render"
)

// blueprintCache keeps each blueprint compiled once per generation: parsing templates on every
// reconcile of every Gateway would dominate the cost of a render.
type blueprintCache struct {
	mu       sync.Mutex
	compiled map[string]compiledBlueprint
	// revisions holds revisions compiled by name: a revision's template never changes.
	revisions map[string]compiledRevision
}

type compiledRevision struct {
	spec    *v1alpha1.GatewayClassBlueprintSpec
	configs []v1alpha1.ClassConfig
	bp      *render.Blueprint
	err     error
}

// maxCompiledRevisions bounds the revisions kept compiled: those a staged rollout renders from
// are few, and one dropped is compiled again.
const maxCompiledRevisions = 64

type compiledBlueprint struct {
	generation int64
	bp         *render.Blueprint
	err        error
}

// get returns the blueprint and, when it compiles, its compiled form. A missing blueprint is
// (nil, nil); one that does not compile is (blueprint, nil), and desired.Gateway reports why.
func (c *blueprintCache) get(ctx context.Context, cl client.Reader, name string) (*v1alpha1.GatewayClassBlueprint, *render.Blueprint) {
	bp := &v1alpha1.GatewayClassBlueprint{}
	if err := cl.Get(ctx, client.ObjectKey{Name: name}, bp); err != nil {
		return nil, nil
	}
	compiled, _ := c.compile(bp)
	return bp, compiled
}

// compile returns the compiled blueprint, compiling it when its generation changed.
func (c *blueprintCache) compile(bp *v1alpha1.GatewayClassBlueprint) (*render.Blueprint, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.compiled == nil {
		c.compiled = map[string]compiledBlueprint{}
	}
	if got, ok := c.compiled[bp.Name]; ok && got.generation == bp.Generation {
		return got.bp, got.err
	}
	compiled, err := render.Compile(bp.Name, &bp.Spec)
	c.compiled[bp.Name] = compiledBlueprint{generation: bp.Generation, bp: compiled, err: err}
	return compiled, err
}

// atRevision is bp as it was at the named revision, that compiled, and the class-wide
// GatewayClassConfigs it had: bp's metadata, status and rollout with the revision's template. A
// revision that is not bp's, or is gone, is an error.
func (c *blueprintCache) atRevision(ctx context.Context, cl client.Reader, bp *v1alpha1.GatewayClassBlueprint, name string) (*v1alpha1.GatewayClassBlueprint, *render.Blueprint, []v1alpha1.ClassConfig, error) {
	c.mu.Lock()
	got, ok := c.revisions[name]
	c.mu.Unlock()
	if !ok {
		rev := &v1alpha1.GatewayClassBlueprintRevision{}
		if err := cl.Get(ctx, client.ObjectKey{Name: name}, rev); err != nil {
			return nil, nil, nil, fmt.Errorf("GatewayClassBlueprintRevision %s: %w", name, err)
		}
		if rev.Spec.Blueprint != bp.Name {
			return nil, nil, nil, fmt.Errorf("GatewayClassBlueprintRevision %s is a revision of %s, not of %s", name, rev.Spec.Blueprint, bp.Name)
		}
		got.spec, got.configs = rev.Spec.Template.DeepCopy(), rev.Spec.ClassConfigs
		got.bp, got.err = render.Compile(bp.Name, got.spec)
		c.mu.Lock()
		if c.revisions == nil || len(c.revisions) >= maxCompiledRevisions {
			c.revisions = map[string]compiledRevision{}
		}
		c.revisions[name] = got
		c.mu.Unlock()
	}
	out := bp.DeepCopy()
	out.Spec = *got.spec.DeepCopy()
	out.Spec.Rollout = bp.Spec.Rollout
	return out, got.bp, got.configs, nil
}
