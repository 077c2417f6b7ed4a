package precedence

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The bounds on one stanza of a policy's values (DESIGN.md "Trust boundary", bounded cost).
// The API server caps an object at 1.5 MB but not how deep or how many its values are, and
// Resolve's cost grows with both: every value it keeps carries its whole path. Resolve refuses
// a policy whose values pass either bound, and merges the rest without it.
const (
	// MaxValuesDepth is how deep values may nest, counting each map and list as a level:
	// {"a": {"b": 1}} is two deep. Helm charts' values stay under ten; 64 leaves room for any
	// sane tree and bounds what a path costs.
	MaxValuesDepth = 64
	// MaxValuesSize is how many entries values may hold, counting every map entry and list
	// element at any depth. Charts' values hold hundreds, the largest (kube-prometheus-stack)
	// a few thousand. Resolve keeps about 1 KiB for each value of a flat policy and 2.5 KiB at
	// the depth bound: 10,000 keeps one policy, merged whatever its shape, within 25 MiB
	// (TestCostLargestPolicies).
	MaxValuesSize = 10_000
	// MaxShadowed is how much history a value keeps: a Leaf's Shadowed (and each Shadow
	// behind it) lists at most this many of the values it replaced, the most recent first.
	// Without a bound, history is the square of what policies hold: a map one policy replaces
	// with a scalar and another rebuilds hands what it replaced to every leaf in it.
	MaxShadowed = 8
)

// ValuesError is values that pass MaxValuesDepth or MaxValuesSize.
type ValuesError struct {
	// Path is where the bound was passed: the first value too deep, or the entry past the
	// size bound, in key order.
	Path string
	// Msg says which bound.
	Msg string
}

func (e *ValuesError) Error() string { return e.Path + ": " + e.Msg }

// CheckValues refuses values deeper than MaxValuesDepth or larger than MaxValuesSize. It reads
// at most MaxValuesSize entries and MaxValuesDepth levels of v, allocating nothing unless v is
// refused; the error then names the first place, in key order, where v went past the bound.
func CheckValues(v map[string]any) error {
	c := checker{}
	if c.walk(v, 1) {
		return nil
	}
	// Map order is random: walk again in key order for a path that is the same every time.
	c = checker{sorted: true}
	c.walk(v, 1)
	return c.err
}

// checker walks values against the bounds; with sorted set, it walks maps in key order and
// keeps the path it is at, to name it.
type checker struct {
	sorted bool
	size   int
	path   []step
	err    *ValuesError
}

// step is a map key, or a list index when key is "" and index >= 0.
type step struct {
	key   string
	index int
}

// walk reports whether the entries of v, at the given depth, are within bounds.
func (c *checker) walk(v any, depth int) bool {
	switch v := v.(type) {
	case map[string]any:
		if !c.sorted {
			for _, e := range v {
				if !c.entry(e, depth) {
					return false
				}
			}
			return true
		}
		for _, k := range sortedKeys(v) {
			c.path = append(c.path, step{key: k, index: -1})
			if !c.entry(v[k], depth) {
				return false
			}
			c.path = c.path[:len(c.path)-1]
		}
	case []any:
		for i, e := range v {
			if c.sorted {
				c.path = append(c.path, step{index: i})
			}
			if !c.entry(e, depth) {
				return false
			}
			if c.sorted {
				c.path = c.path[:len(c.path)-1]
			}
		}
	}
	return true
}

// entry counts one map entry or list element holding e, at depth.
func (c *checker) entry(e any, depth int) bool {
	c.size++
	if c.size > MaxValuesSize {
		c.fail(fmt.Sprintf("values hold more than %d entries", MaxValuesSize))
		return false
	}
	switch e := e.(type) {
	case map[string]any:
		if depth == MaxValuesDepth && len(e) > 0 {
			// Its entries would be one level too deep: name the first of them.
			c.fail(fmt.Sprintf("values nest deeper than %d levels", MaxValuesDepth), step{key: slices.Min(sortedKeys(e)), index: -1})
			return false
		}
		return c.walk(e, depth+1)
	case []any:
		if depth == MaxValuesDepth && len(e) > 0 {
			c.fail(fmt.Sprintf("values nest deeper than %d levels", MaxValuesDepth), step{index: 0})
			return false
		}
		return c.walk(e, depth+1)
	}
	return true
}

// fail records the error at the current path and then the steps given (the sorted walk only).
func (c *checker) fail(msg string, then ...step) {
	if c.sorted {
		c.err = &ValuesError{Path: pathString(append(c.path, then...)), Msg: msg}
	}
}

// pathString writes a path as Path.String does, with list indexes as [i].
func pathString(steps []step) string {
	var b strings.Builder
	for i, s := range steps {
		switch {
		case s.index >= 0:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		case plainKey(s.key):
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		default:
			b.WriteString("[" + strconv.Quote(s.key) + "]")
		}
	}
	return b.String()
}
