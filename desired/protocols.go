package desired

import (
	"fmt"
	"slices"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// DefaultListenerProtocols are what a blueprint serves unless it declares otherwise.
var DefaultListenerProtocols = []gwv1.ProtocolType{gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType}

// ListenerProtocols are the listener protocols a blueprint declares, or the default.
func ListenerProtocols(bp *v1alpha1.GatewayClassBlueprint) []gwv1.ProtocolType {
	if bp == nil || len(bp.Spec.ListenerProtocols) == 0 {
		return DefaultListenerProtocols
	}
	return bp.Spec.ListenerProtocols
}

// acceptProtocols marks the listeners whose protocol the blueprint does not declare: they are
// not accepted, support no route kind and attach no route.
func acceptProtocols(gw *gwv1.Gateway, bp *v1alpha1.GatewayClassBlueprint, listeners []Listener) {
	acceptSpecProtocols(gw.Spec.Listeners, bp, listeners)
}

func acceptListenerProtocols(specs []gwv1.Listener, in *Input, listeners []Listener) {
	acceptSpecProtocols(specs, in.Blueprint, listeners)
}

func acceptSpecProtocols(specs []gwv1.Listener, bp *v1alpha1.GatewayClassBlueprint, listeners []Listener) {
	supported := ListenerProtocols(bp)
	for i, l := range specs {
		if i >= len(listeners) {
			continue
		}
		if slices.Contains(supported, l.Protocol) {
			if l.Protocol == gwv1.TLSProtocolType && tlsTerminates(l) {
				// TLSRoutes are passed through: a TLS listener that would terminate TLS has
				// nothing to hand them (Gateway API's TLSRouteModeTerminate, not claimed).
				listeners[i].Unsupported, listeners[i].UnsupportedReason = "a TLS listener is supported in mode Passthrough only; this one terminates TLS (tls.mode Terminate, the default)", gwv1.ListenerReasonUnsupportedValue
				listeners[i].SupportedKinds, listeners[i].AttachedRoutes, listeners[i].Invalid = []gwv1.RouteGroupKind{}, 0, ""
			}
			continue
		}
		names := make([]string, len(supported))
		for j, p := range supported {
			names[j] = string(p)
		}
		who := "Gantry's default"
		if bp != nil {
			who = "blueprint " + bp.Name
		}
		listeners[i].Unsupported = fmt.Sprintf("protocol %s is not supported: %s serves %s", l.Protocol, who, strings.Join(names, ", "))
		listeners[i].UnsupportedReason = gwv1.ListenerReasonUnsupportedProtocol
		listeners[i].SupportedKinds = []gwv1.RouteGroupKind{}
		listeners[i].AttachedRoutes = 0
	}
}

// tlsTerminates reports whether a TLS listener terminates TLS: its mode is Terminate, which is
// also the default.
func tlsTerminates(l gwv1.Listener) bool {
	return l.TLS == nil || l.TLS.Mode == nil || *l.TLS.Mode == gwv1.TLSModeTerminate
}
