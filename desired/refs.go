package desired

import (
	"crypto/tls"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1beta1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// ReferenceAllowed says whether an object of fromGroup/fromKind in fromNS may refer to the
// object toGroup/toKind toNS/toName: always within a namespace, across namespaces only when a
// ReferenceGrant in toNS allows it (Gateway API's ReferenceGrant).
func ReferenceAllowed(grants []*gwv1beta1.ReferenceGrant, fromGroup, fromKind, fromNS, toGroup, toKind, toNS, toName string) bool {
	if fromNS == toNS {
		return true
	}
	for _, g := range grants {
		if g.Namespace != toNS {
			continue
		}
		from := false
		for _, f := range g.Spec.From {
			if string(f.Group) == fromGroup && string(f.Kind) == fromKind && string(f.Namespace) == fromNS {
				from = true
				break
			}
		}
		if !from {
			continue
		}
		for _, to := range g.Spec.To {
			if string(to.Group) == toGroup && string(to.Kind) == toKind && (to.Name == nil || string(*to.Name) == toName) {
				return true
			}
		}
	}
	return false
}

// CertificateRefKeys are the namespace/name of the Secrets a Gateway's listeners name as
// certificates, for the controller to gather and to index.
func CertificateRefKeys(gw *gwv1.Gateway) []types.NamespacedName {
	return certificateRefKeys(gw.Namespace, gw.Spec.Listeners)
}

func certificateRefKeys(namespace string, listeners []gwv1.Listener) []types.NamespacedName {
	var out []types.NamespacedName
	for _, l := range listeners {
		if l.TLS == nil {
			continue
		}
		for _, ref := range l.TLS.CertificateRefs {
			if !isSecret(ref.Group, ref.Kind) {
				continue
			}
			ns := namespace
			if ref.Namespace != nil {
				ns = string(*ref.Namespace)
			}
			out = append(out, types.NamespacedName{Namespace: ns, Name: string(ref.Name)})
		}
	}
	return out
}

func isSecret(group *gwv1.Group, kind *gwv1.Kind) bool {
	return (group == nil || *group == "") && (kind == nil || *kind == "Secret")
}

// resolveListenerRefs sets, on each listener that terminates TLS, why its certificateRefs do
// not resolve (Gateway API's InvalidCertificateRef and RefNotPermitted), or nothing when they
// do. The first reference that does not resolve decides; RefNotPermitted is checked first, so
// that a listener does not learn whether a Secret it may not read exists.
func resolveListenerRefs(gw *gwv1.Gateway, secrets map[types.NamespacedName]*corev1.Secret, grants []*gwv1beta1.ReferenceGrant, listeners []Listener) {
	resolveRefs(gw.Spec.Listeners, "Gateway", gw.Namespace, secrets, grants, listeners)
}

// resolveRefs checks the certificateRefs of the listeners of a Gateway or a ListenerSet (kind),
// in namespace ns, and records the first that does not resolve in the listener's state.
func resolveRefs(specs []gwv1.Listener, kind, ns string, secrets map[types.NamespacedName]*corev1.Secret, grants []*gwv1beta1.ReferenceGrant, listeners []Listener) {
	for i, l := range specs {
		if l.TLS == nil || i >= len(listeners) {
			continue
		}
		for j, ref := range l.TLS.CertificateRefs {
			field := fmt.Sprintf("spec.listeners[%d].tls.certificateRefs[%d]", i, j)
			reason, msg := certificateRef(kind, ns, ref, secrets, grants)
			if reason != "" {
				listeners[i].RefReason, listeners[i].RefMessage = reason, field+": "+msg
				break
			}
		}
	}
}

func certificateRef(kind, ns string, ref gwv1.SecretObjectReference, secrets map[types.NamespacedName]*corev1.Secret, grants []*gwv1beta1.ReferenceGrant) (gwv1.ListenerConditionReason, string) {
	if !isSecret(ref.Group, ref.Kind) {
		group, kind := "", "Secret"
		if ref.Group != nil {
			group = string(*ref.Group)
		}
		if ref.Kind != nil {
			kind = string(*ref.Kind)
		}
		return gwv1.ListenerReasonInvalidCertificateRef, fmt.Sprintf("a certificate must be a core Secret, not %s", strings.TrimSuffix(kind+"."+group, "."))
	}
	key := types.NamespacedName{Namespace: ns, Name: string(ref.Name)}
	if ref.Namespace != nil {
		key.Namespace = string(*ref.Namespace)
	}
	if !ReferenceAllowed(grants, gwv1.GroupName, kind, ns, "", "Secret", key.Namespace, key.Name) {
		return gwv1.ListenerReasonRefNotPermitted, fmt.Sprintf("Secret %s is in another namespace, and no ReferenceGrant in namespace %s allows %ss of namespace %s to refer to it", key, key.Namespace, kind, ns)
	}
	s := secrets[key]
	if s == nil {
		return gwv1.ListenerReasonInvalidCertificateRef, fmt.Sprintf("Secret %s does not exist or is not of type kubernetes.io/tls", key)
	}
	if s.Type != corev1.SecretTypeTLS {
		return gwv1.ListenerReasonInvalidCertificateRef, fmt.Sprintf("Secret %s is of type %s, not of type kubernetes.io/tls", key, s.Type)
	}
	if err := TLSVerdict(s); err != nil {
		return gwv1.ListenerReasonInvalidCertificateRef, fmt.Sprintf("Secret %s: tls.crt and tls.key are not a PEM certificate and its key: %v", key, err)
	}
	return "", ""
}

// AnnotationTLSVerdict is what the controller's cache keeps of a TLS Secret in place of its
// data: "valid", or why tls.crt and tls.key are not a certificate and its key. The controller
// needs no more, and so holds no private key of the cluster in memory. The cache sets it on
// every Secret it holds, over whatever the Secret itself says (see StripTLSSecret).
const AnnotationTLSVerdict = "gateway.gantry.dev/tls-verdict"

// TLSVerdict says whether a kubernetes.io/tls Secret holds a PEM certificate and its key: from
// its data, or, for a Secret from the controller's cache, from the verdict made when it was
// cached.
func TLSVerdict(s *corev1.Secret) error {
	if v, ok := s.Annotations[AnnotationTLSVerdict]; ok && s.Data == nil {
		if v == "valid" {
			return nil
		}
		return errors.New(v)
	}
	_, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey])
	return err
}

// StripTLSSecret reduces a Secret to what Gantry reads of it: its metadata without
// annotations and managedFields, its type, and the verdict on its certificate and key
// (AnnotationTLSVerdict) in place of its data. No annotation is kept: a Secret written with
// `kubectl apply` carries its whole data, private key included, in its last-applied annotation,
// and any other annotation could too; Gantry reads none of them.
func StripTLSSecret(s *corev1.Secret) {
	verdict := "valid"
	if _, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]); err != nil {
		verdict = err.Error()
	}
	s.Annotations = map[string]string{AnnotationTLSVerdict: verdict}
	s.Data, s.StringData, s.ManagedFields = nil, nil, nil
}

// flagCertificateRefs marks, in the map templates see of a Gateway or a ListenerSet (kind),
// each listener's certificateRefs with whether it resolves (`resolved`) and why not
// (`reason`: RefNotPermitted, InvalidCertificateRef), as .Backends marks backendRefs: a
// template that mounts or copies a certificate must not use a Secret of another namespace
// that no ReferenceGrant lets this Gateway read, and cannot tell one otherwise.
func flagCertificateRefs(m map[string]any, specs []gwv1.Listener, kind, ns string, secrets map[types.NamespacedName]*corev1.Secret, grants []*gwv1beta1.ReferenceGrant) {
	spec, _ := m["spec"].(map[string]any)
	listeners, _ := spec["listeners"].([]any)
	for i, l := range specs {
		if l.TLS == nil || i >= len(listeners) {
			continue
		}
		lm, _ := listeners[i].(map[string]any)
		tls, _ := lm["tls"].(map[string]any)
		refs, _ := tls["certificateRefs"].([]any)
		for j, ref := range l.TLS.CertificateRefs {
			if j >= len(refs) {
				break
			}
			rm, ok := refs[j].(map[string]any)
			if !ok {
				continue
			}
			reason, _ := certificateRef(kind, ns, ref, secrets, grants)
			rm["resolved"], rm["reason"] = reason == "", string(reason)
		}
	}
}
