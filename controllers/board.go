package controllers

import (
	"maps"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"gantry.dev/gantry/precedence"
)

// board holds, per policy, its outcome on every Gateway (and route) that last rendered with it.
// The Gateway reconciler computes these outcomes anyway; keeping them here lets the policy
// status controller write GEP-713 ancestor status without resolving every affected Gateway
// again — for a global policy that is every Gateway of the class.
type board struct {
	mu sync.Mutex
	// outcomes[policy][ancestor Gateway] is the policy's outcome there.
	outcomes map[precedence.Ref]map[types.NamespacedName]outcome
	// byGateway remembers which policies a Gateway reported, to forget them.
	byGateway map[types.NamespacedName][]precedence.Ref
	// broken[policy][Gateway] says how the policy's values break the Gateway's blueprint's
	// values schema (the Gateway is InvalidValues because of them).
	broken map[precedence.Ref]map[types.NamespacedName]string
	// reported holds the Gateways the reconciler has decided on since the process started.
	// Until a Gateway is in it, the board knows nothing of it — after a restart the board is
	// empty, and "no outcome" would be wrong, not news.
	reported map[types.NamespacedName]bool
}

// outcome is a precedence.Outcome on the board, without the Ref it is filed under: a policy's
// outcomes are one per Gateway it applies to, 10,000 for a class's policy at N=10,000, and the
// Ref was a third of each map entry.
type outcome struct {
	Level      precedence.Level
	State      precedence.State
	Reason     string
	Superseded []precedence.Superseded
}

func (b *board) init() {
	if b.outcomes == nil {
		b.outcomes = map[precedence.Ref]map[types.NamespacedName]outcome{}
		b.byGateway = map[types.NamespacedName][]precedence.Ref{}
		b.reported = map[types.NamespacedName]bool{}
		b.broken = map[precedence.Ref]map[types.NamespacedName]string{}
	}
}

// record replaces a Gateway's outcomes: those of its own chain and of its routes'. It returns
// the policies the Gateway had outcomes for before, so that their status is looked at again.
func (b *board) record(gw types.NamespacedName, results ...*precedence.Result) []precedence.Ref {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	before := b.forgetLocked(gw)
	b.reported[gw] = true
	for _, res := range results {
		if res == nil {
			continue
		}
		for _, o := range res.Outcomes {
			if o.State == precedence.StateNotApplicable {
				continue
			}
			m := b.outcomes[o.Ref]
			if m == nil {
				m = map[types.NamespacedName]outcome{}
				b.outcomes[o.Ref] = m
			}
			if prev, ok := m[gw]; ok && !worse(o.State, prev.State) {
				continue // a route chain may see the policy too; report the worse outcome
			}
			m[gw] = outcome{Level: o.Level, State: o.State, Reason: o.Reason, Superseded: o.Superseded}
			b.byGateway[gw] = append(b.byGateway[gw], o.Ref)
		}
	}
	return before
}

// worse orders states by how much of the policy was lost.
func worse(a, b precedence.State) bool {
	rank := map[precedence.State]int{precedence.StateEnforced: 0, precedence.StatePartiallyEnforced: 1, precedence.StateOverridden: 2}
	return rank[a] > rank[b]
}

// forget drops the outcomes of a Gateway that is no longer Gantry's, or is gone (then the
// board forgets it was ever reported, too). It returns the policies it had outcomes for.
func (b *board) forget(gw types.NamespacedName, gone bool) []precedence.Ref {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	if gone {
		delete(b.reported, gw)
	} else {
		b.reported[gw] = true
	}
	return b.forgetLocked(gw)
}

// breaks records that a Gateway's values break its blueprint's schema because of the policies
// in broken (desired.Error.Broken), with their outcomes there (values, nil when unknown): the
// Gateway is reported, and its earlier record replaced. It returns the policies to look at.
func (b *board) breaks(gw types.NamespacedName, values *precedence.Result, broken map[precedence.Ref]string) []precedence.Ref {
	before := b.record(gw, values)
	b.mu.Lock()
	defer b.mu.Unlock()
	for ref, msg := range broken {
		m := b.broken[ref]
		if m == nil {
			m = map[types.NamespacedName]string{}
			b.broken[ref] = m
		}
		m[gw] = msg
		b.byGateway[gw] = append(b.byGateway[gw], ref)
		before = append(before, ref)
	}
	return before
}

// brokenBy returns a copy of what a policy breaks, by Gateway.
func (b *board) brokenBy(ref precedence.Ref) map[types.NamespacedName]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.broken[ref])
}

// attempted marks a Gateway as reported whose desired state could not be computed: its
// earlier outcomes, if any, stay.
func (b *board) attempted(gw types.NamespacedName) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	b.reported[gw] = true
}

// known reports whether the board has heard of the Gateway since the process started.
func (b *board) known(gw types.NamespacedName) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reported[gw]
}

func (b *board) forgetLocked(gw types.NamespacedName) []precedence.Ref {
	refs := b.byGateway[gw]
	for _, ref := range refs {
		delete(b.outcomes[ref], gw)
		if len(b.outcomes[ref]) == 0 {
			delete(b.outcomes, ref)
		}
		delete(b.broken[ref], gw)
		if len(b.broken[ref]) == 0 {
			delete(b.broken, ref)
		}
	}
	delete(b.byGateway, gw)
	return refs
}

// reach is how many Gateways a policy has outcomes on or breaks: a look at it goes through
// each of them.
func (b *board) reach(ref precedence.Ref) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(b.outcomes[ref])
	for gw := range b.broken[ref] {
		if _, ok := b.outcomes[ref][gw]; !ok {
			n++
		}
	}
	return n
}

// policy returns a copy of a policy's outcomes by Gateway.
func (b *board) policy(ref precedence.Ref) map[types.NamespacedName]precedence.Outcome {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[types.NamespacedName]precedence.Outcome, len(b.outcomes[ref]))
	for k, v := range b.outcomes[ref] {
		out[k] = precedence.Outcome{Ref: ref, Level: v.Level, State: v.State, Reason: v.Reason, Superseded: v.Superseded}
	}
	return out
}
