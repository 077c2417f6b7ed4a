package desired_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
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

// TestStripTLSSecretKeepsNoKey: a TLS Secret written with `kubectl apply` holds its data twice,
// in data and in its last-applied annotation, and may hold it in any other annotation. What the
// cache keeps of it, serialized whole, contains neither the private key's PEM nor its base64.
func TestStripTLSSecretKeepsNoKey(t *testing.T) {
	s := confk8s.MustCreateSelfSignedCertSecret(t, "team-a", "applied", []string{"example.com"})
	key := s.Data[corev1.TLSPrivateKeyKey]
	applied, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Secret", "type": s.Type, "data": s.Data,
		"metadata": map[string]any{"name": s.Name, "namespace": s.Namespace}})
	if err != nil {
		t.Fatal(err)
	}
	s.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": string(applied), "team-a.example/backup": string(key)}
	desired.StripTLSSecret(s)
	kept, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	block := bytes.TrimSpace(bytes.Split(bytes.Split(key, []byte("-----\n"))[1], []byte("\n-----"))[0])
	for name, secret := range map[string][]byte{
		"the key's PEM":           key,
		"the key's base64":        []byte(base64.StdEncoding.EncodeToString(key)),
		"the PEM block's content": block[:64],
	} {
		if bytes.Contains(kept, secret) {
			t.Errorf("the stripped Secret holds %s: %s", name, kept)
		}
	}
	if err := desired.TLSVerdict(s); err != nil {
		t.Errorf("the verdict: %v, want valid", err)
	}
}
