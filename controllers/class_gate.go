package controllers

// Reasons for a Gateway's Accepted=False when its class cannot say whose the Gateway is.
// Gateway API defines none for this: its Accepted=False reasons (Invalid, InvalidParameters,
// UnsupportedAddress, ListenersNotValid) describe the Gateway's own spec, Pending is for
// Unknown before any controller looked, and NoResources belongs to Programmed. The API allows
// implementation-specific reasons, so Gantry names the situation exactly.
const (
	// ReasonGatewayClassNotFound: the Gateway's GatewayClass does not exist. What Gantry
	// rendered for the Gateway stays as it is until the class is back or the Gateway is
	// deleted or moved to another controller's class.
	ReasonGatewayClassNotFound = "GatewayClassNotFound"
	// ReasonGatewayClassDeleting: the Gateway's GatewayClass is being deleted (held by
	// Gateway API's gateway-exists finalizer while Gateways use it). Rendered objects stay.
	ReasonGatewayClassDeleting = "GatewayClassDeleting"
)
