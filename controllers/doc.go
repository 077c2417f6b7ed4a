// Package controllers runs Gantry against an API server: gather → compute → apply → status.
//
// The Gateway reconciler is the root for everything a Gateway renders. It gathers a
// desired.Input from the cache (policies through field indexes on targetRef, never a list of
// every policy), calls desired.Gateway — the same function `gantry render` calls — applies the
// result with server-side apply, prunes what is no longer rendered, and writes status only when
// it changed. It removes what a Gateway rendered only when the Gateway is deleted or moves to
// another controller's class; a class that is missing or being deleted removes nothing. The
// HTTPRoute and policy reconcilers only write status; the GatewayClass reconciler writes status
// and keeps Gateway API's gateway-exists finalizer on a class while Gateways use it.
package controllers
