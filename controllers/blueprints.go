package controllers

import (
	"context"
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
}

type compiledBlueprint struct {
	generation int64
	bp         *render.Blueprint
	err        error
	// revision is the name of the revision of this generation's spec (v1alpha1.RevisionName).
	revision string
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
	c.compiled[bp.Name] = compiledBlueprint{generation: bp.Generation, bp: compiled, err: err, revision: v1alpha1.RevisionName(bp.Name, &bp.Spec)}
	return compiled, err
}

// revision is the name of the revision of bp's spec, hashed once per generation.
func (c *blueprintCache) revision(bp *v1alpha1.GatewayClassBlueprint) string {
	c.mu.Lock()
	got, ok := c.compiled[bp.Name]
	c.mu.Unlock()
	if ok && got.generation == bp.Generation && got.revision != "" {
		return got.revision
	}
	return v1alpha1.RevisionName(bp.Name, &bp.Spec)
}
