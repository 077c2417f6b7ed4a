package desired

import (
	"crypto/sha256"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/internal/lru"
	"gantry.dev/gantry/precedence"
)

// Policies converts the policy objects into precedence's form, decoding their values. An error
// names the object and stanza whose values are not an object.
func Policies(gccs []*v1alpha1.GatewayClassConfig, gcs []*v1alpha1.GatewayConfig) ([]precedence.Policy, error) {
	out := make([]precedence.Policy, 0, len(gccs)+len(gcs))
	for _, p := range gccs {
		pol, err := policy(precedence.KindGatewayClassConfig, p.Namespace, p.Name, p.CreationTimestamp.Time, p.Spec.TargetRef, p.Spec.PolicyValues)
		if err != nil {
			return nil, err
		}
		out = append(out, pol)
	}
	for _, p := range gcs {
		pol, err := policy(precedence.KindGatewayConfig, p.Namespace, p.Name, p.CreationTimestamp.Time, p.Spec.TargetRef, p.Spec.PolicyValues)
		if err != nil {
			return nil, err
		}
		out = append(out, pol)
	}
	return out, nil
}

func policy(kind, ns, name string, created time.Time, ref v1alpha1.PolicyTargetReference, v v1alpha1.PolicyValues) (precedence.Policy, error) {
	p := precedence.Policy{
		Ref:               precedence.Ref{Kind: kind, Namespace: ns, Name: name},
		CreationTimestamp: created,
		Target:            precedence.Target{Group: string(ref.Group), Kind: string(ref.Kind), Name: string(ref.Name)},
	}
	if ref.Namespace != nil {
		p.Target.Namespace = string(*ref.Namespace)
	}
	var err error
	if p.Default, err = decoded(p.Ref, "default", v.Default); err != nil {
		return p, fmt.Errorf("%s spec.default: %w", p.Ref, err)
	}
	if p.Override, err = decoded(p.Ref, "override", v.Override); err != nil {
		return p, fmt.Errorf("%s spec.override: %w", p.Ref, err)
	}
	return p, nil
}

// decodedValues remembers each policy stanza's decoded values by the stanza's identity and raw
// JSON: every Gateway a policy reaches decodes the same bytes, and with all policies as
// candidates (an offline render) decoding was most of a Gateway's cost. Decoded values are
// shared, so nothing may change them: precedence and render copy what they hand on. It is
// bounded in bytes (the raw JSON's length, times decodedFactor for the decoded maps), so
// deleted policies and admission's checks of policies that were never stored (a tenant may
// send any number) age out instead of accumulating.
var decodedValues = lru.New[decodedEntry](decodedMemory)

const (
	decodedMemory = 64 << 20
	decodedFactor = 6
)

type decodedEntry struct {
	values map[string]any
	size   int
}

func (e decodedEntry) Size() int { return e.size }

func decoded(ref precedence.Ref, stanza string, j *apiextensionsv1.JSON) (map[string]any, error) {
	if j == nil {
		return nil, nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", ref, stanza)
	h.Write(j.Raw)
	var key lru.Key
	h.Sum(key[:0])
	if e, ok := decodedValues.Get(key); ok {
		return e.values, nil
	}
	v, err := precedence.ParseValues(j.Raw)
	if err != nil {
		return nil, err
	}
	decodedValues.Put(key, decodedEntry{values: v, size: 64 + decodedFactor*len(j.Raw)})
	return v, nil
}

// BlueprintValues decodes a blueprint's own values, through the same cache as policies' values:
// every Gateway of a class decodes the same bytes (a twentieth of a render, before).
func BlueprintValues(bp *v1alpha1.GatewayClassBlueprint) (precedence.Blueprint, error) {
	out := precedence.Blueprint{Name: bp.Name}
	ref := precedence.Ref{Kind: precedence.KindBlueprint, Name: bp.Name}
	var err error
	if out.Default, err = decoded(ref, "default", bp.Spec.Values.Default); err != nil {
		return out, fmt.Errorf("GatewayClassBlueprint %s spec.values.default: %w", bp.Name, err)
	}
	if out.Override, err = decoded(ref, "override", bp.Spec.Values.Override); err != nil {
		return out, fmt.Errorf("GatewayClassBlueprint %s spec.values.override: %w", bp.Name, err)
	}
	return out, nil
}
