package precedence

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Level is a policy's place in the hierarchy; a lower number is higher (less specific).
type Level int

// The levels of the chain. LevelCommandLine is `gantry render --set/--values`: above everything.
const (
	LevelBlueprint            Level = 0
	LevelGlobal               Level = 1
	LevelNamespaceClassConfig Level = 2
	LevelClass                Level = 3
	LevelNamespace            Level = 4
	LevelGateway              Level = 5
	LevelRouteNamespace       Level = 6
	LevelRoute                Level = 7
	LevelCommandLine          Level = 8
)

var levelNames = map[Level]string{
	LevelBlueprint:            "blueprint",
	LevelGlobal:               "global GatewayClassConfig",
	LevelNamespaceClassConfig: "GatewayClassConfig for namespace",
	LevelClass:                "GatewayClassConfig for class",
	LevelNamespace:            "GatewayConfig for namespace",
	LevelGateway:              "GatewayConfig for Gateway",
	LevelRouteNamespace:       "GatewayConfig for route namespace",
	LevelRoute:                "GatewayConfig for route",
	LevelCommandLine:          "command line",
}

// String names the level as `--explain` prints it.
func (l Level) String() string {
	if s, ok := levelNames[l]; ok {
		return fmt.Sprintf("%d (%s)", int(l), s)
	}
	return strconv.Itoa(int(l))
}

// Stanza is the half of a policy a value came from.
type Stanza string

// The two GEP-713 stanzas.
const (
	StanzaDefault  Stanza = "default"
	StanzaOverride Stanza = "override"
)

// Kinds of the objects that supply values.
const (
	KindBlueprint          = "GatewayClassBlueprint"
	KindGatewayClassConfig = "GatewayClassConfig"
	KindGatewayConfig      = "GatewayConfig"
	KindCommandLine        = "CommandLine"
)

// Kinds a policy can target.
const (
	TargetGatewayClass = "GatewayClass"
	TargetGateway      = "Gateway"
	TargetHTTPRoute    = "HTTPRoute"
	TargetGRPCRoute    = "GRPCRoute"
	TargetTLSRoute     = "TLSRoute"
	TargetTCPRoute     = "TCPRoute"
	TargetUDPRoute     = "UDPRoute"
	TargetNamespace    = "Namespace"
	GatewayGroup       = "gateway.networking.k8s.io"
)

// Ref names an object that supplies values.
type Ref struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
}

// String reads as "GatewayConfig team-a/web" or "GatewayClassBlueprint envoy".
func (r Ref) String() string {
	switch {
	case r.Kind == KindCommandLine:
		return "command line"
	case r.Namespace == "":
		return r.Kind + " " + r.Name
	default:
		return r.Kind + " " + r.Namespace + "/" + r.Name
	}
}

// Tenant reports whether the object is tenant input (a GatewayConfig), whose values are data
// that must never shape rendered objects.
func (r Ref) Tenant() bool { return r.Kind == KindGatewayConfig }

// Source is who set a value: the object, its stanza and its level.
type Source struct {
	Ref    `json:",inline"`
	Stanza Stanza `json:"stanza"`
	Level  Level  `json:"level"`
}

// String reads as "GatewayConfig team-a/web (override, level 5)".
func (s Source) String() string {
	return fmt.Sprintf("%s (%s, level %d)", s.Ref, s.Stanza, int(s.Level))
}

// Target is a policy's targetRef.
type Target struct {
	Group string
	Kind  string
	Name  string
	// Namespace is targetRef.namespace, which bifrost's policies carry: "" or the policy's own
	// namespace; another makes the policy apply nowhere.
	Namespace string
}

// Policy is a GatewayClassConfig or GatewayConfig reduced to what precedence needs.
type Policy struct {
	Ref
	CreationTimestamp time.Time
	Target            Target
	Default           map[string]any
	Override          map[string]any
}

// Blueprint is the blueprint's own values, level 0.
type Blueprint struct {
	Name     string
	Default  map[string]any
	Override map[string]any
}

// ObjectKey is a namespace and a name.
type ObjectKey struct {
	Namespace string
	Name      string
}

// Input is everything Resolve needs for one Gateway (and optionally one of its HTTPRoutes).
type Input struct {
	// ControllerNamespace holds the global GatewayClassConfigs.
	ControllerNamespace string
	// ClassName is the Gateway's GatewayClass.
	ClassName string
	Gateway   ObjectKey
	// Route, when set, continues the chain with the route's namespace and the route itself.
	Route *ObjectKey
	// RouteKind is Route's kind (HTTPRoute when empty): a GatewayConfig applies to the route
	// only if it targets that kind.
	RouteKind string
	Blueprint Blueprint
	// Policies are candidates in any order; those that do not apply are reported as such.
	Policies []Policy
	// CommandLine is a layer above everything else (`gantry render --set/--values`).
	CommandLine map[string]any
}

// Path is the location of a value in .Values.
type Path []string

// String renders a path as `a.b.c`, quoting keys that are not plain identifiers: `a["b.c"]`.
func (p Path) String() string {
	var b strings.Builder
	for i, k := range p {
		if plainKey(k) {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
			continue
		}
		b.WriteString("[" + strconv.Quote(k) + "]")
	}
	return b.String()
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func (p Path) child(k string) Path {
	c := make(Path, len(p)+1)
	copy(c, p)
	c[len(p)] = k
	return c
}

// hasPrefix reports whether p is q or below q.
func (p Path) hasPrefix(q Path) bool {
	if len(q) > len(p) {
		return false
	}
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// Shadow is a value that a later value replaced or removed.
type Shadow struct {
	Path    Path   `json:"path"`
	Value   any    `json:"value,omitempty"`
	Removed bool   `json:"removed,omitempty"`
	Source  Source `json:"source"`
}

// Leaf is one value of the effective tree (a scalar, a list, or an empty map) or a removal.
type Leaf struct {
	Path  Path `json:"path"`
	Value any  `json:"value,omitempty"`
	// Removed marks a key that an explicit null removed; Value is then nil.
	Removed bool   `json:"removed,omitempty"`
	Source  Source `json:"source"`
	// Shadowed lists what this leaf replaced, most recent first, then what the maps holding it
	// replaced when they were set (a map that replaced a scalar: the scalar); at most
	// MaxShadowed of them, the most recent. Leaves under one map may share it: read only.
	Shadowed []Shadow `json:"shadowed,omitempty"`
}

// State is how much of a policy took effect.
type State string

// Policy outcomes.
const (
	StateNotApplicable     State = "NotApplicable"
	StateEnforced          State = "Enforced"
	StatePartiallyEnforced State = "PartiallyEnforced"
	StateOverridden        State = "Overridden"
)

// Superseded is a path a policy set whose value another object replaced or removed.
type Superseded struct {
	Path Path `json:"path"`
	// Stanza is the half of the policy whose value was lost.
	Stanza Stanza `json:"stanza"`
	// By is the source in effect at Path in the final result, not whichever value first
	// replaced the policy's (which may itself have lost since): the one whose value or removal
	// is at Path or, when Path is not there, at its nearest ancestor that is — a map counting
	// as the value of whoever created it. When that is the policy's own override (it rebuilt an
	// ancestor as a map without Path), By stays the source that replaced the value: a policy
	// never supersedes itself.
	By Source `json:"by"`
}

// Outcome says what became of one input policy.
type Outcome struct {
	Ref
	Level Level `json:"level"`
	State State `json:"state"`
	// Reason says why a policy does not apply.
	Reason string `json:"reason,omitempty"`
	// Superseded has one entry per path and stanza the policy lost, sorted by path (as Leaves
	// are) then stanza.
	Superseded []Superseded `json:"superseded,omitempty"`
}

// Result is the effective values and how they came about.
type Result struct {
	Values map[string]any `json:"values"`
	// Leaves are every effective value and removal, sorted by path.
	Leaves []Leaf `json:"leaves"`
	// Chain lists the objects that apply, highest first.
	Chain []Ref `json:"chain"`
	// Outcomes has one entry per input policy, sorted by kind, namespace and name.
	Outcomes []Outcome `json:"outcomes"`
}

// SourceOf returns the leaf that set the value at path, or at its nearest ancestor (a path
// inside a list or a scalar belongs to the leaf holding it).
func (r *Result) SourceOf(path Path) (Leaf, bool) {
	best := -1
	for i := range r.Leaves {
		l := &r.Leaves[i]
		if !l.Removed && path.hasPrefix(l.Path) && (best < 0 || len(l.Path) > len(r.Leaves[best].Path)) {
			best = i
		}
	}
	if best < 0 {
		return Leaf{}, false
	}
	return r.Leaves[best], true
}
