// Package precedence merges the values of a blueprint and its GEP-713 policies into the one
// .Values tree a Gateway (or HTTPRoute) is rendered with, and records for every value which
// object decided it and what it shadowed.
//
// It is pure: it takes plain inputs and returns plain outputs, and never talks to an API
// server. The controller and `gantry render` both call Resolve.
//
// The chain, highest first (DESIGN.md "Precedence"): the blueprint's values (level 0), a global
// GatewayClassConfig in the controller's namespace targeting the class (1), a GatewayClassConfig
// targeting the Gateway's Namespace (2), a GatewayClassConfig in that namespace targeting the
// class (3), a GatewayConfig targeting the Namespace (4), and a GatewayConfig targeting the
// Gateway (5). Route templates continue with the route's Namespace (6) and the route itself (7).
// Within a level the older policy is higher, then the one first by namespace/name.
//
// Defaults: lower beats higher. Overrides: higher beats lower, and every override beats every
// default. Values merge as an RFC 7386 JSON merge patch.
//
// What a tenant sends costs a bounded amount: a policy whose values nest deeper than
// MaxValuesDepth or hold more than MaxValuesSize entries is refused (CheckValues; its outcome
// is NotApplicable, with the reason naming the policy and the path), the merge is linear in
// the values, and each value keeps at most MaxShadowed entries of history.
package precedence
