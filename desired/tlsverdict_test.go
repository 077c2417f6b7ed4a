package desired_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	confk8s "sigs.k8s.io/gateway-api/conformance/utils/kubernetes"

	"gantry.dev/gantry/desired"
)

// TestStripTLSSecret: what the controller's cache keeps of a TLS Secret holds no private key,
// only the verdict, and the verdict is the cache's own: a Secret that claims in the annotation
// to be valid is judged by its data. (A kubernetes.io/tls Secret from the API server always has
// data: the API server requires tls.crt and tls.key.)
func TestStripTLSSecret(t *testing.T) {
	good := confk8s.MustCreateSelfSignedCertSecret(t, "team-a", "good", []string{"example.com"})
	malformed := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "bad"}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{"tls.crt": []byte("Hello world"), "tls.key": []byte("Hello world")}}
	forged := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "forged",
		Annotations: map[string]string{desired.AnnotationTLSVerdict: "valid"}}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{"tls.crt": []byte("x"), "tls.key": []byte("y")}}
	for _, tt := range []struct {
		s     *corev1.Secret
		valid bool
	}{{good, true}, {malformed, false}, {forged, false}} {
		before := desired.TLSVerdict(tt.s)
		desired.StripTLSSecret(tt.s)
		if tt.s.Data != nil || tt.s.StringData != nil || tt.s.ManagedFields != nil {
			t.Errorf("Secret %s keeps data %v, string data %v", tt.s.Name, tt.s.Data, tt.s.StringData)
		}
		after := desired.TLSVerdict(tt.s)
		if (after == nil) != tt.valid || (before == nil) != tt.valid {
			t.Errorf("Secret %s: verdict before %v, after %v; want valid %v", tt.s.Name, before, after, tt.valid)
		}
		if !tt.valid && after != nil && before != nil && after.Error() != before.Error() {
			t.Errorf("Secret %s: the stripped verdict %q is not %q", tt.s.Name, after, before)
		}
	}
}
