package manifests

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/precedence"
	"gantry.dev/gantry/render"
)

// Serves reports whether a Gateway's class is one of Gantry's (its controllerName is Gantry's).
func (s *Set) Serves(gw *gwv1.Gateway) bool {
	c := s.Classes[string(gw.Spec.GatewayClassName)]
	return c != nil && c.Spec.ControllerName == v1alpha1.ControllerName
}

// Input gathers the desired.Input of one Gateway from the set, as the controller does from an
// API server: its class and blueprint, every route and policy (precedence decides which
// apply), and the live objects carrying the Gateway's labels as .Resources. CandidateInput
// narrows the policies as the controller does.
func (s *Set) Input(gw *gwv1.Gateway, controllerNamespace string) *desired.Input {
	in := &desired.Input{
		ControllerNamespace: controllerNamespace,
		Gateway:             gw,
		Class:               s.Classes[string(gw.Spec.GatewayClassName)],
		Routes:              s.Routes,
		OtherRoutes:         s.OtherRoutes,
		ListenerSets:        s.ListenerSets,
		NamespaceLabels:     s.NamespaceLabels,
		GatewayClassConfigs: s.GatewayClassConfigs,
		GatewayConfigs:      s.GatewayConfigs,
		ReferenceGrants:     s.ReferenceGrants,
		BackendServices:     s.Services,
	}
	in.CustomKinds = s.customKinds()
	if ref := desired.ParametersRef(gw); ref != nil {
		for _, gc := range s.GatewayConfigs {
			if gc.Namespace == gw.Namespace && gc.Name == ref.Name && string(ref.Group) == v1alpha1.GroupName && ref.Kind == "GatewayConfig" {
				in.Parameters = gc
			}
		}
	}
	if in.Class != nil {
		if name, err := desired.BlueprintName(in.Class); err == nil {
			in.Blueprint = s.Blueprints[name]
			in.Compiled = s.compile(in.Blueprint)
		}
	}
	for _, u := range s.Owned(gw) {
		in.AddLive(u.GetLabels(), u.GetNamespace(), u.Object)
	}
	return in
}

// Owned returns the live objects that carry a Gateway's labels and are its own: what its
// earlier renders produced (.Resources, and what a reconcile may prune).
func (s *Set) Owned(gw *gwv1.Gateway) []*unstructured.Unstructured {
	idx := s.ownedIndex()
	label := desired.LabelValue(gw.Name)
	// The owner annotation names the Gateway exactly; without it, only an object in the
	// Gateway's namespace can be its own (a label alone is shared by same-named Gateways).
	named := idx[ownedKey{label: label, annotated: true, who: gw.Namespace + "/" + gw.Name}]
	unnamed := idx[ownedKey{label: label, who: gw.Namespace}]
	var out []*unstructured.Unstructured
	for len(named)+len(unnamed) > 0 { // both in Live's order: merge them
		var i int
		if len(unnamed) == 0 || len(named) > 0 && named[0] < unnamed[0] {
			i, named = named[0], named[1:]
		} else {
			i, unnamed = unnamed[0], unnamed[1:]
		}
		u := s.Live[i]
		if s.Proof != nil && !s.Proof(gw, u) {
			continue
		}
		out = append(out, u)
	}
	return out
}

// ownedKey is where ownedIndex files a live object: its Gateway label, and the Gateway its
// owner annotation names or, without one, its namespace.
type ownedKey struct {
	label     string
	annotated bool
	who       string
}

// ownedIndex returns the positions in Live of the objects that carry Gantry's template label,
// by ownedKey, in Live's order: what Owned looks up. It is built once per Set, and again if
// Live was replaced or appended to since. Owned is called for every Gateway (three times by
// diff), and a scan of every live object each time made a fleet's diff quadratic in the
// number of Gateways; a key by label alone would still be, with the same Gateway name in
// many namespaces.
func (s *Set) ownedIndex() map[ownedKey][]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owned != nil && s.ownedOf.same(s.Live) {
		return s.owned
	}
	idx := map[ownedKey][]int{}
	for i, u := range s.Live {
		l := u.GetLabels()
		if l[v1alpha1.LabelTemplate] == "" {
			continue
		}
		k := ownedKey{label: l[v1alpha1.LabelGatewayName], who: u.GetNamespace()}
		if o, ok := u.GetAnnotations()[v1alpha1.AnnotationOwner]; ok {
			k.annotated, k.who = true, o
		}
		idx[k] = append(idx[k], i)
	}
	s.owned, s.ownedOf = idx, sliceID(s.Live)
	return idx
}

// liveID tells whether Live is still the slice an index was built from: the same backing
// array and length. An element replaced in place goes unseen; nothing does that once a set is
// built (With builds a new set).
type liveID struct {
	array **unstructured.Unstructured
	n     int
}

func sliceID(l []*unstructured.Unstructured) liveID {
	if len(l) == 0 {
		return liveID{}
	}
	return liveID{&l[0], len(l)}
}

func (id liveID) same(l []*unstructured.Unstructured) bool { return id == sliceID(l) }

// compile compiles each blueprint once per set. A blueprint that does not compile gives nil, and
// desired.Gateway reports why.
func (s *Set) compile(bp *v1alpha1.GatewayClassBlueprint) *render.Blueprint {
	if bp == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.compiled[bp.Name]; ok {
		return c
	}
	if s.compiled == nil {
		s.compiled = map[string]*render.Blueprint{}
	}
	c, err := render.Compile(bp.Name, &bp.Spec)
	if err != nil {
		c = nil
	}
	s.compiled[bp.Name] = c
	return c
}

// ExplainTargets returns v with the reasons of policies that do not apply completed where their
// target is missing from the manifests altogether — what the controller reports as
// TargetNotFound.
func (s *Set) ExplainTargets(v *precedence.Result) *precedence.Result {
	out := *v
	out.Outcomes = slices.Clone(v.Outcomes)
	for i, o := range out.Outcomes {
		if o.State != precedence.StateNotApplicable {
			continue
		}
		if t, ok := s.target(o.Ref); ok && !s.exists(o.Namespace, t) {
			out.Outcomes[i].Reason = fmt.Sprintf("its target %s %s does not exist in the manifests", t.Kind, t.Name)
		}
	}
	return &out
}

func (s *Set) target(ref precedence.Ref) (v1alpha1.PolicyTargetReference, bool) {
	for _, p := range s.GatewayClassConfigs {
		if ref.Kind == precedence.KindGatewayClassConfig && p.Namespace == ref.Namespace && p.Name == ref.Name {
			return p.Spec.TargetRef, true
		}
	}
	for _, p := range s.GatewayConfigs {
		if ref.Kind == precedence.KindGatewayConfig && p.Namespace == ref.Namespace && p.Name == ref.Name {
			return p.Spec.TargetRef, true
		}
	}
	return v1alpha1.PolicyTargetReference{}, false
}

func (s *Set) exists(ns string, t v1alpha1.PolicyTargetReference) bool {
	name := string(t.Name)
	switch t.Kind {
	case "GatewayClass":
		_, ok := s.Classes[name]
		return ok
	case "Namespace":
		if _, ok := s.NamespaceLabels[name]; ok {
			return true
		}
		// Namespaces are rarely in the manifests; one that holds any object exists.
		for _, gw := range s.Gateways {
			if gw.Namespace == name {
				return true
			}
		}
		return false
	case "Gateway":
		return slices.ContainsFunc(s.Gateways, func(g *gwv1.Gateway) bool { return g.Namespace == ns && g.Name == name })
	case "HTTPRoute":
		return slices.ContainsFunc(s.Routes, func(r *gwv1.HTTPRoute) bool { return r.Namespace == ns && r.Name == name })
	}
	return true
}

// customKinds reads the scope of every kind a CustomResourceDefinition in the set defines, so
// that kinds the API server does not serve by itself get their scope offline as in a cluster
// where the CRD is installed.
func (s *Set) customKinds() map[schema.GroupKind]bool {
	s.kindsOnce.Do(func() { s.kinds = s.readCustomKinds() })
	return s.kinds
}

func (s *Set) readCustomKinds() map[schema.GroupKind]bool {
	var out map[schema.GroupKind]bool
	for _, u := range s.Live {
		if u.GetKind() != "CustomResourceDefinition" || u.GroupVersionKind().Group != "apiextensions.k8s.io" {
			continue
		}
		group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
		scope, _, _ := unstructured.NestedString(u.Object, "spec", "scope")
		if group == "" || kind == "" {
			continue
		}
		if out == nil {
			out = map[schema.GroupKind]bool{}
		}
		out[schema.GroupKind{Group: group, Kind: kind}] = scope != "Cluster"
	}
	return out
}
