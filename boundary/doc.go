// Package boundary is the tenant boundary of Gantry's render: it decides, for every template of
// a render, whether the tenant's values (GatewayConfig values, fields of Gateways, routes and
// ListenerSets, live objects in tenant namespaces) stayed data, whatever the template did with
// them. It holds the whole check, and only the check; the engine (package render) runs
// templates for it through two small interfaces.
//
// What is checked, where, and against what:
//
//   - What the template wrote comes out exactly as written (check.go, identity.go). Render A is
//     the real render. Render B is the same templates on the same input with every tenant value
//     replaced by a stand-in (standins.go: placeholder words for strings and keys, numbers of
//     their own for numbers, flipped bools), replaying A's decisions (decide.go). A is compared
//     with B node by node: template nodes must be identical, tenant nodes scalars of the
//     stand-in's type. A third render, C, with other stand-ins, tells a transformed tenant
//     value from a template node. Also: no new comments (comments.go), no two keys that read as
//     one JSON key.
//   - Tenant text never runs as template code (tplguard.go, code.go). A render with stand-ins
//     first learns the texts the templates give tpl; the real render's tpl runs code only in
//     those texts with the tenant values put back, of the same code shape.
//   - B is a function of its input (memory.go, hash.go): its output is remembered under a
//     SHA-256 of a canonical encoding of that input with the stand-ins applied, so a resync or a
//     tenant's edit of a value's content costs no second render.
//
// What is the tenant's is the caller's to say: Tainted lists every tenant value with where it
// came from, and KeyTree where in .Values the tenant's keys are (tenant.go). A refusal names
// the value by that origin (Refusal), never by its content or the template's.
//
// The interface to the engine: Engine starts a render with a Substitution's stand-ins and a
// TplGuard; Run renders one template (replaying Decisions) and reports its text, the code
// shapes it ran through tpl, and whether it failed, was refused or ran out of time. The engine
// calls NewCheck, Ran after each template of A, Verify with A's output, and LearnTpl/Admit
// around tpl. No list of functions or of dangerous characters is involved anywhere: the
// comparison is the property itself.
//
// docs/security.md section 8 states each claim, its tests, and what it does not prove.
package boundary
