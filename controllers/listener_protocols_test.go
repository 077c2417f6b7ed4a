package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestListenerProtocols: a listener of a protocol the class's blueprint does not declare
// (HTTP and HTTPS unless it says otherwise) is not accepted, and the Gateway says its
// listeners are not all valid: Accepted while one of them is, not Accepted when none is.
func TestListenerProtocols(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	create(t, blueprint("protocols-"+ns, `{}`, map[string]string{"values": valuesTemplate}), gantryClass("class-"+ns, "protocols-"+ns))
	tcpBP := blueprint("tcp-"+ns, `{}`, map[string]string{"values": valuesTemplate})
	tcpBP.Spec.ListenerProtocols = []gwv1.ProtocolType{gwv1.HTTPProtocolType, gwv1.TCPProtocolType}
	create(t, tcpBP, gantryClass("tcp-"+ns, "tcp-"+ns))
	http := gwv1.Listener{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}
	tcp := gwv1.Listener{Name: "tcp", Port: 9000, Protocol: gwv1.TCPProtocolType}
	create(t, gateway(ns, "mixed", "class-"+ns, http, tcp), gateway(ns, "only-tcp", "class-"+ns, tcp), gateway(ns, "declared", "tcp-"+ns, http, tcp))

	type want struct {
		accepted metav1.ConditionStatus
		reason   string
		tcp      metav1.ConditionStatus
	}
	for name, w := range map[string]want{
		"mixed":    {metav1.ConditionTrue, string(gwv1.GatewayReasonListenersNotValid), metav1.ConditionFalse},
		"only-tcp": {metav1.ConditionFalse, string(gwv1.GatewayReasonListenersNotValid), metav1.ConditionFalse},
		"declared": {metav1.ConditionTrue, string(gwv1.GatewayReasonAccepted), metav1.ConditionTrue},
	} {
		eventually(t, "Gateway "+name+" listener acceptance", func() error {
			gw := &gwv1.Gateway{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, gw); err != nil {
				return err
			}
			a := meta.FindStatusCondition(gw.Status.Conditions, string(gwv1.GatewayConditionAccepted))
			if a == nil || a.Status != w.accepted || a.Reason != w.reason || a.ObservedGeneration != gw.Generation {
				return fmt.Errorf("Gateway Accepted = %+v, want %s %s", a, w.accepted, w.reason)
			}
			for _, ls := range gw.Status.Listeners {
				c := meta.FindStatusCondition(ls.Conditions, string(gwv1.ListenerConditionAccepted))
				if c == nil {
					return fmt.Errorf("listener %s has no Accepted condition", ls.Name)
				}
				switch {
				case ls.Name == "http" && c.Status != metav1.ConditionTrue:
					return fmt.Errorf("listener http Accepted = %+v", c)
				case ls.Name == "tcp" && c.Status != w.tcp:
					return fmt.Errorf("listener tcp Accepted = %+v, want %s", c, w.tcp)
				case ls.Name == "tcp" && w.tcp == metav1.ConditionFalse:
					if c.Reason != string(gwv1.ListenerReasonUnsupportedProtocol) || !strings.Contains(c.Message, "HTTP, HTTPS") {
						return fmt.Errorf("listener tcp Accepted = %+v, want UnsupportedProtocol naming the supported protocols", c)
					}
					if p := meta.FindStatusCondition(ls.Conditions, string(gwv1.ListenerConditionProgrammed)); p == nil || p.Status != metav1.ConditionFalse {
						return fmt.Errorf("listener tcp Programmed = %+v, want False", p)
					}
					if len(ls.SupportedKinds) != 0 {
						return fmt.Errorf("listener tcp supportedKinds = %v, want none", ls.SupportedKinds)
					}
				}
			}
			if a.Reason == string(gwv1.GatewayReasonListenersNotValid) && !strings.Contains(a.Message, "tcp") {
				return fmt.Errorf("Gateway Accepted message %q does not name the listener", a.Message)
			}
			return nil
		})
	}
}
