package precedence

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Applies places a policy in the chain of in, or says why it does not apply.
func Applies(in *Input, p *Policy) (Level, string) {
	ns, gw := in.Gateway.Namespace, in.Gateway.Name
	t := p.Target
	if t.Namespace != "" && t.Namespace != p.Namespace {
		return 0, fmt.Sprintf("spec.targetRef.namespace is %s, but a policy can only target objects in its own namespace (%s)", t.Namespace, p.Namespace)
	}
	switch p.Kind {
	case KindGatewayClassConfig:
		switch {
		case t.Group == GatewayGroup && t.Kind == TargetGatewayClass:
			if t.Name != in.ClassName {
				return 0, fmt.Sprintf("targets GatewayClass %s, not %s", t.Name, in.ClassName)
			}
			if p.Namespace == in.ControllerNamespace {
				return LevelGlobal, ""
			}
			if p.Namespace == ns {
				return LevelClass, ""
			}
			return 0, fmt.Sprintf("is in namespace %s, neither the controller's (%s) nor the Gateway's (%s)", p.Namespace, in.ControllerNamespace, ns)
		case t.Group == "" && t.Kind == TargetNamespace:
			if ok, why := ownNamespace(p, ns); !ok {
				return 0, why
			}
			return LevelNamespaceClassConfig, ""
		}
	case KindGatewayConfig:
		switch {
		case t.Group == "" && t.Kind == TargetNamespace:
			if p.Namespace == ns && t.Name == ns {
				return LevelNamespace, ""
			}
			if r := in.Route; r != nil && r.Namespace != ns && p.Namespace == r.Namespace && t.Name == r.Namespace {
				return LevelRouteNamespace, ""
			}
			if t.Name != p.Namespace {
				return 0, fmt.Sprintf("targets Namespace %s but a policy can only target its own namespace (%s)", t.Name, p.Namespace)
			}
			return 0, fmt.Sprintf("targets Namespace %s, not the Gateway's (%s)", t.Name, ns)
		case t.Group == GatewayGroup && t.Kind == TargetGateway:
			if p.Namespace == ns && t.Name == gw {
				return LevelGateway, ""
			}
			return 0, fmt.Sprintf("targets Gateway %s/%s, not %s/%s", p.Namespace, t.Name, ns, gw)
		case t.Group == GatewayGroup && isRouteKind(t.Kind):
			kind := cmp.Or(in.RouteKind, TargetHTTPRoute)
			if r := in.Route; r != nil && t.Kind == kind && p.Namespace == r.Namespace && t.Name == r.Name {
				return LevelRoute, ""
			}
			if in.Route == nil {
				return 0, fmt.Sprintf("targets %s %s/%s; it applies to that route's templates, not to the Gateway's", t.Kind, p.Namespace, t.Name)
			}
			return 0, fmt.Sprintf("targets %s %s/%s, not %s %s/%s", t.Kind, p.Namespace, t.Name, kind, in.Route.Namespace, in.Route.Name)
		}
	}
	return 0, fmt.Sprintf("a %s cannot target %s", p.Kind, groupKind(t))
}

func ownNamespace(p *Policy, gatewayNamespace string) (bool, string) {
	if p.Target.Name != p.Namespace {
		return false, fmt.Sprintf("targets Namespace %s but a policy can only target its own namespace (%s)", p.Target.Name, p.Namespace)
	}
	if p.Namespace != gatewayNamespace {
		return false, fmt.Sprintf("targets Namespace %s, not the Gateway's (%s)", p.Target.Name, gatewayNamespace)
	}
	return true, ""
}

func groupKind(t Target) string {
	if t.Group == "" {
		return t.Kind + " (core group)"
	}
	return t.Kind + "." + t.Group
}

// placed is a policy with its level.
type placed struct {
	*Policy
	level Level
}

// higher orders the chain highest first: by level, then GEP-713's tie-breakers — the older
// creationTimestamp is higher, then the first by namespace/name.
func higher(a, b placed) int {
	if c := cmp.Compare(a.level, b.level); c != 0 {
		return c
	}
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name); c != 0 {
		return c
	}
	// Same namespace/name can only mean two kinds; keep the order total.
	return cmp.Compare(a.Kind, b.Kind)
}

// chain places every applicable policy, highest first, and the outcomes of the rest.
func chain(in *Input) ([]placed, []Outcome) {
	var applicable []placed
	var skipped []Outcome
	for i := range in.Policies {
		p := &in.Policies[i]
		level, why := Applies(in, p)
		if why != "" {
			skipped = append(skipped, Outcome{Ref: p.Ref, State: StateNotApplicable, Reason: why})
			continue
		}
		if why := Refused(p); why != "" {
			skipped = append(skipped, Outcome{Ref: p.Ref, State: StateNotApplicable, Reason: why})
			continue
		}
		applicable = append(applicable, placed{Policy: p, level: level})
	}
	slices.SortStableFunc(applicable, higher)
	return applicable, skipped
}

// Refused says why a policy's values are refused (CheckValues), naming the policy and the
// path, or returns "". A refused policy applies nowhere, so that what one tenant sends never
// costs more than the bounds allow, and never fails another's Gateway; its own status says
// why (the policy controller asks here).
func Refused(p *Policy) string {
	for _, s := range []struct {
		stanza Stanza
		values map[string]any
	}{{StanzaDefault, p.Default}, {StanzaOverride, p.Override}} {
		var e *ValuesError
		if err := CheckValues(s.values); errors.As(err, &e) {
			sep := "."
			if strings.HasPrefix(e.Path, "[") {
				sep = ""
			}
			return fmt.Sprintf("%s is refused: spec.%s%s%s: %s", p.Ref, s.stanza, sep, e.Path, e.Msg)
		}
	}
	return ""
}

// isRouteKind reports whether kind is one of Gateway API's route kinds, which a GatewayConfig
// can target.
func isRouteKind(kind string) bool {
	switch kind {
	case TargetHTTPRoute, TargetGRPCRoute, TargetTLSRoute, TargetTCPRoute, TargetUDPRoute:
		return true
	}
	return false
}
