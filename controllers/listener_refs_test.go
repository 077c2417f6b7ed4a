package controllers_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
	confk8s "sigs.k8s.io/gateway-api/conformance/utils/kubernetes"
)

// TestListenerCertificateRefs: each HTTPS listener's certificateRefs decide its ResolvedRefs
// and Programmed conditions, and a Secret or ReferenceGrant that appears later fixes them.
func TestListenerCertificateRefs(t *testing.T) {
	ctx := t.Context()
	ns := namespace(t, nil)
	other := namespace(t, nil)
	create(t, blueprint("refs-"+ns, `{}`, map[string]string{"values": valuesTemplate}), gantryClass("class-"+ns, "refs-"+ns))
	create(t,
		confk8s.MustCreateSelfSignedCertSecret(t, ns, "good", []string{"example.com"}),
		confk8s.MustCreateSelfSignedCertSecret(t, other, "elsewhere", []string{"example.com"}),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "malformed"}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{"tls.crt": []byte("Hello world"), "tls.key": []byte("Hello world")}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "opaque"}, Data: map[string][]byte{"x": []byte("y")}},
	)
	https := func(name string, port gwv1.PortNumber, ref gwv1.SecretObjectReference) gwv1.Listener {
		return gwv1.Listener{Name: gwv1.SectionName(name), Port: port, Protocol: gwv1.HTTPSProtocolType,
			TLS: &gwv1.ListenerTLSConfig{Mode: ptr(gwv1.TLSModeTerminate), CertificateRefs: []gwv1.SecretObjectReference{ref}}}
	}
	secret := func(name string) gwv1.SecretObjectReference {
		return gwv1.SecretObjectReference{Name: gwv1.ObjectName(name)}
	}
	elsewhere := secret("elsewhere")
	elsewhere.Namespace = ptr(gwv1.Namespace(other))
	wrongKind := secret("good")
	wrongKind.Kind = ptr(gwv1.Kind("ConfigMap"))
	wrongGroup := secret("good")
	wrongGroup.Group = ptr(gwv1.Group("wrong.example.com"))
	create(t, gateway(ns, "web", "class-"+ns,
		https("good", 443, secret("good")),
		https("missing", 444, secret("later")),
		https("malformed", 445, secret("malformed")),
		https("opaque", 446, secret("opaque")),
		https("wrong-kind", 447, wrongKind),
		https("wrong-group", 448, wrongGroup),
		https("elsewhere", 449, elsewhere),
	))

	want := map[string]struct {
		reason  gwv1.ListenerConditionReason
		message string
	}{
		"good":        {gwv1.ListenerReasonResolvedRefs, ""},
		"missing":     {gwv1.ListenerReasonInvalidCertificateRef, "Secret " + ns + "/later does not exist"},
		"malformed":   {gwv1.ListenerReasonInvalidCertificateRef, "tls.crt"},
		"opaque":      {gwv1.ListenerReasonInvalidCertificateRef, "not of type kubernetes.io/tls"},
		"wrong-kind":  {gwv1.ListenerReasonInvalidCertificateRef, "ConfigMap"},
		"wrong-group": {gwv1.ListenerReasonInvalidCertificateRef, "wrong.example.com"},
		"elsewhere":   {gwv1.ListenerReasonRefNotPermitted, "no ReferenceGrant in namespace " + other},
	}
	check := func(gw *gwv1.Gateway) error {
		if len(gw.Status.Listeners) != len(want) {
			return fmt.Errorf("%d listener statuses, want %d", len(gw.Status.Listeners), len(want))
		}
		for _, ls := range gw.Status.Listeners {
			w := want[string(ls.Name)]
			rr := meta.FindStatusCondition(ls.Conditions, string(gwv1.ListenerConditionResolvedRefs))
			pr := meta.FindStatusCondition(ls.Conditions, string(gwv1.ListenerConditionProgrammed))
			if rr == nil || pr == nil {
				return fmt.Errorf("listener %s: no ResolvedRefs or Programmed condition: %+v", ls.Name, ls.Conditions)
			}
			ok := w.reason == gwv1.ListenerReasonResolvedRefs
			if rr.Reason != string(w.reason) || (rr.Status == metav1.ConditionTrue) != ok || !strings.Contains(rr.Message, w.message) {
				return fmt.Errorf("listener %s ResolvedRefs = %s %s %q, want %s containing %q", ls.Name, rr.Status, rr.Reason, rr.Message, w.reason, w.message)
			}
			if (pr.Status == metav1.ConditionTrue) != ok || !ok && pr.Reason != string(gwv1.ListenerReasonInvalid) {
				return fmt.Errorf("listener %s Programmed = %s %s, want it %v (Invalid when not)", ls.Name, pr.Status, pr.Reason, ok)
			}
		}
		return nil
	}
	gw := &gwv1.Gateway{}
	key := client.ObjectKey{Namespace: ns, Name: "web"}
	eventually(t, "listener conditions from certificateRefs", func() error {
		if err := k8s.Get(ctx, key, gw); err != nil {
			return err
		}
		return check(gw)
	})

	// The missing Secret appears, and a grant lets the Gateway's namespace use the other's.
	create(t, confk8s.MustCreateSelfSignedCertSecret(t, ns, "later", []string{"example.com"}),
		&gwv1beta1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: "gateways"},
			Spec: gwv1beta1.ReferenceGrantSpec{
				From: []gwv1beta1.ReferenceGrantFrom{{Group: gwv1.GroupName, Kind: "Gateway", Namespace: gwv1.Namespace(ns)}},
				To:   []gwv1beta1.ReferenceGrantTo{{Group: "", Kind: "Secret"}},
			}})
	want["missing"] = want["good"]
	want["elsewhere"] = want["good"]
	eventually(t, "a Secret and a ReferenceGrant created later resolve the references", func() error {
		if err := k8s.Get(ctx, key, gw); err != nil {
			return err
		}
		return check(gw)
	})
}
