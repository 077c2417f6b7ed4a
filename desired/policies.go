package desired

import (
	"fmt"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"gantry.dev/gantry/apis/v1alpha1"
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

// decodedValues caches each policy stanza's decoded values, checked against the raw JSON: every
// Gateway a policy reaches decodes the same bytes, and with all policies as candidates (an
// offline render) decoding was most of a Gateway's cost. Decoded values are shared, so nothing
// may change them: precedence and render copy what they hand on. One entry per policy stanza
// keeps the cache as small as the set of policies.
var decodedValues = struct {
	sync.Mutex
	m map[string]decodedEntry
}{m: map[string]decodedEntry{}}

type decodedEntry struct {
	raw    string
	values map[string]any
}

func decoded(ref precedence.Ref, stanza string, j *apiextensionsv1.JSON) (map[string]any, error) {
	if j == nil {
		return nil, nil
	}
	key := ref.String() + "/" + stanza
	decodedValues.Lock()
	e, ok := decodedValues.m[key]
	decodedValues.Unlock()
	if ok && e.raw == string(j.Raw) {
		return e.values, nil
	}
	v, err := precedence.ParseValues(j.Raw)
	if err != nil {
		return nil, err
	}
	decodedValues.Lock()
	decodedValues.m[key] = decodedEntry{raw: string(j.Raw), values: v}
	decodedValues.Unlock()
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
