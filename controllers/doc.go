// Package controllers runs Gantry against an API server: gather → compute → apply → status.
//
// The Gateway reconciler is the root for everything a Gateway renders. It gathers a
// desired.Input from the cache (policies through field indexes on targetRef, never a list of
// every policy), calls desired.Gateway — the same function `gantry render` calls — applies the
// result with server-side apply, prunes what is no longer rendered, and writes status only when
// it changed. The GatewayClass, HTTPRoute and policy reconcilers only write status.
package controllers
