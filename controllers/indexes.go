package controllers

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
)

// Field indexes. Every "which objects does this change affect" question is answered through
// one of these, never by listing a whole kind.
const (
	// indexTarget on policies: "<Kind>/<name>" of spec.targetRef (namespace: the policy's own).
	indexTarget = "gantry.target"
	// indexClass on Gateways: spec.gatewayClassName.
	indexClass = "gantry.class"
	// indexBlueprint on GatewayClasses: the GatewayClassBlueprint of parametersRef.
	indexBlueprint = "gantry.blueprint"
	// indexParent on HTTPRoutes: "<namespace>/<name>" of every parent Gateway.
	indexParent = "gantry.parent"
	// indexCertificate on Gateways: "<namespace>/<name>" of every Secret a listener names.
	indexCertificate = "gantry.certificate"
	// indexParameters on Gateways: the GatewayConfig of spec.infrastructure.parametersRef.
	indexParameters = "gantry.parameters"
	// indexBackend on HTTPRoutes: "<namespace>/<name>" of every Service a backendRef names.
	indexBackend = "gantry.backend"
	// indexListenerSetParent on HTTPRoutes: "<namespace>/<name>" of every parent ListenerSet.
	indexListenerSetParent = "gantry.listenerset-parent"
	// indexGateway on ListenerSets: "<namespace>/<name>" of the parent Gateway. ListenerSets
	// also have indexCertificate.
	indexGateway = "gantry.gateway"
)

func targetKey(kind, name string) string { return kind + "/" + name }

func setupIndexes(ctx context.Context, idx client.FieldIndexer, listenerSets bool) error {
	policyTarget := func(ref v1alpha1.PolicyTargetReference) []string {
		return []string{targetKey(string(ref.Kind), string(ref.Name))}
	}
	if err := idx.IndexField(ctx, &v1alpha1.GatewayClassConfig{}, indexTarget, func(o client.Object) []string {
		return policyTarget(o.(*v1alpha1.GatewayClassConfig).Spec.TargetRef)
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &v1alpha1.GatewayConfig{}, indexTarget, func(o client.Object) []string {
		return policyTarget(o.(*v1alpha1.GatewayConfig).Spec.TargetRef)
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &gwv1.Gateway{}, indexClass, func(o client.Object) []string {
		return []string{string(o.(*gwv1.Gateway).Spec.GatewayClassName)}
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &gwv1.GatewayClass{}, indexBlueprint, func(o client.Object) []string {
		// The same reading as the Gateway's (bifrost's group included), or a blueprint change
		// would not reach the classes that use it.
		name, err := desired.BlueprintName(o.(*gwv1.GatewayClass))
		if err != nil {
			return nil
		}
		return []string{name}
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &gwv1.Gateway{}, indexCertificate, func(o client.Object) []string {
		var out []string
		for _, k := range desired.CertificateRefKeys(o.(*gwv1.Gateway)) {
			out = append(out, k.String())
		}
		return out
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &gwv1.Gateway{}, indexParameters, func(o client.Object) []string {
		if ref := desired.ParametersRef(o.(*gwv1.Gateway)); ref != nil && string(ref.Group) == v1alpha1.GroupName && ref.Kind == "GatewayConfig" {
			return []string{ref.Name}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &gwv1.HTTPRoute{}, indexBackend, func(o client.Object) []string {
		var out []string
		for _, k := range desired.BackendServiceKeys(o.(*gwv1.HTTPRoute)) {
			out = append(out, k.String())
		}
		return out
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &gwv1.HTTPRoute{}, indexListenerSetParent, func(o client.Object) []string {
		r := o.(*gwv1.HTTPRoute)
		var out []string
		for _, pr := range r.Spec.ParentRefs {
			if key, ok := desired.ListenerSetRef(pr, r.Namespace); ok {
				out = append(out, key.String())
			}
		}
		return out
	}); err != nil {
		return err
	}
	if listenerSets { // a cluster whose Gateway API has no ListenerSet CRD has none to index
		if err := idx.IndexField(ctx, &gwv1.ListenerSet{}, indexGateway, func(o client.Object) []string {
			return []string{desired.ParentGateway(o.(*gwv1.ListenerSet)).String()}
		}); err != nil {
			return err
		}
		if err := idx.IndexField(ctx, &gwv1.ListenerSet{}, indexCertificate, func(o client.Object) []string {
			var out []string
			for _, k := range desired.ListenerSetCertificateRefKeys(o.(*gwv1.ListenerSet)) {
				out = append(out, k.String())
			}
			return out
		}); err != nil {
			return err
		}
	}
	return idx.IndexField(ctx, &gwv1.HTTPRoute{}, indexParent, func(o client.Object) []string {
		return parentKeys(o.(*gwv1.HTTPRoute))
	})
}

// parentKeys are the "<namespace>/<name>" of the Gateways a route of any kind names as parents.
func parentKeys(r client.Object) []string {
	return parentRefKeys(r.GetNamespace(), desired.ParentRefs(r))
}
