package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/precedence"
	"gantry.dev/gantry/render"
)

// Admission refuses, when `kubectl apply` is made, what Gantry would otherwise only report
// later on a status: a blueprint whose templates or values schema do not compile, and a
// GatewayConfig whose values break the values schema for every Gateway it reaches. The chart
// installs a ValidatingWebhookConfiguration (failurePolicy Ignore: while Gantry does not run,
// objects are stored, and their status says what is wrong, as without admission).

// webhookPaths are where the validators are served, as controller-runtime names them.
const (
	BlueprintWebhookPath     = "/validate-gateway-gantry-dev-v1alpha1-gatewayclassblueprint"
	GatewayConfigWebhookPath = "/validate-gateway-gantry-dev-v1alpha1-gatewayconfig"
)

// maxAdmissionGateways bounds the Gateways a GatewayConfig's admission looks at: a namespace
// policy may reach many, and admission must answer within its timeout.
const maxAdmissionGateways = 32

func setupWebhooks(mgr ctrl.Manager, gr *GatewayReconciler) error {
	if err := ctrl.NewWebhookManagedBy(mgr, &v1alpha1.GatewayClassBlueprint{}).WithValidator(blueprintValidator{}).Complete(); err != nil {
		return err
	}
	return ctrl.NewWebhookManagedBy(mgr, &v1alpha1.GatewayConfig{}).WithValidator(&gatewayConfigValidator{r: gr}).Complete()
}

// blueprintValidator refuses a blueprint that does not compile: a template that does not
// parse (named with its line), a values schema that is not one, values that are not objects.
type blueprintValidator struct{}

func (blueprintValidator) ValidateCreate(_ context.Context, bp *v1alpha1.GatewayClassBlueprint) (admission.Warnings, error) {
	return nil, validateBlueprint(bp)
}

func (blueprintValidator) ValidateUpdate(_ context.Context, _, bp *v1alpha1.GatewayClassBlueprint) (admission.Warnings, error) {
	return nil, validateBlueprint(bp)
}

func (blueprintValidator) ValidateDelete(context.Context, *v1alpha1.GatewayClassBlueprint) (admission.Warnings, error) {
	return nil, nil
}

func validateBlueprint(bp *v1alpha1.GatewayClassBlueprint) error {
	if _, err := render.Compile(bp.Name, &bp.Spec); err != nil {
		return fmt.Errorf("GatewayClassBlueprint %s does not compile: %w", bp.Name, err)
	}
	if _, err := desired.BlueprintValues(bp); err != nil {
		return fmt.Errorf("GatewayClassBlueprint %s: %w", bp.Name, err)
	}
	return nil
}

// gatewayConfigValidator refuses a GatewayConfig whose values break the values schema for every
// Gantry Gateway it reaches (up to maxAdmissionGateways of them), with everything else that
// applies there as it is now: a value the schema refuses whatever the other policies say. A
// policy that reaches no Gateway yet, or that some Gateway takes, is stored; its status says
// the rest.
type gatewayConfigValidator struct {
	r *GatewayReconciler
}

func (v *gatewayConfigValidator) ValidateCreate(ctx context.Context, gc *v1alpha1.GatewayConfig) (admission.Warnings, error) {
	return v.validate(ctx, gc)
}

func (v *gatewayConfigValidator) ValidateUpdate(ctx context.Context, _, gc *v1alpha1.GatewayConfig) (admission.Warnings, error) {
	return v.validate(ctx, gc)
}

func (v *gatewayConfigValidator) ValidateDelete(context.Context, *v1alpha1.GatewayConfig) (admission.Warnings, error) {
	return nil, nil
}

// validate refuses gc only for its own values: a read that fails here admits it with a warning
// (its status will say what is wrong), as the chart's failurePolicy Ignore does when the
// controller is down.
func (v *gatewayConfigValidator) validate(ctx context.Context, gc *v1alpha1.GatewayConfig) (admission.Warnings, error) {
	self := precedence.Ref{Kind: precedence.KindGatewayConfig, Namespace: gc.Namespace, Name: gc.Name}
	pols, err := desired.Policies(nil, []*v1alpha1.GatewayConfig{gc})
	if err != nil {
		return nil, fmt.Errorf("GatewayConfig %s/%s: %w", gc.Namespace, gc.Name, err)
	}
	if why := precedence.Refused(&pols[0]); why != "" {
		return nil, errors.New(why) // values past the bounds apply nowhere (docs/security.md 8.3)
	}
	unchecked := func(err error) admission.Warnings {
		return admission.Warnings{fmt.Sprintf("Gantry could not check these values against the Gateways they reach (%v); the policy's status will say whether they are taken", err)}
	}
	targets, route, err := v.reaches(ctx, gc)
	if err != nil {
		return unchecked(err), nil
	}
	var broken []string
	for _, key := range targets {
		gw := &gwv1.Gateway{}
		if err := v.r.Client.Get(ctx, key, gw); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, nil // a Gateway to come: nothing to check against yet
			}
			return unchecked(err), nil
		}
		g, err := v.r.gather(ctx, gw)
		if err != nil {
			return unchecked(err), nil
		}
		if g.class != classOurs || g.in.Blueprint == nil {
			return nil, nil // not Gantry's (yet): it takes any values
		}
		in := *g.in
		if ref := desired.ParametersRef(gw); ref != nil && ref.Kind == "GatewayConfig" && ref.Name == gc.Name && gw.Namespace == gc.Namespace {
			in.Parameters = gc
		}
		in.GatewayConfigs = append(slices.DeleteFunc(slices.Clone(in.GatewayConfigs), func(p *v1alpha1.GatewayConfig) bool {
			return p.Namespace == gc.Namespace && p.Name == gc.Name
		}), gc)
		_, err = desired.Values(&in, route)
		var de *desired.Error
		if !errors.As(err, &de) || de.Broken[self] == "" {
			return nil, nil // this Gateway takes it (or fails for reasons of its own)
		}
		broken = append(broken, fmt.Sprintf("Gateway %s: %s", key, de.Broken[self]))
	}
	if len(broken) == 0 {
		return nil, nil
	}
	return nil, fmt.Errorf("GatewayConfig %s/%s breaks the values schema of every Gateway it reaches: %s", gc.Namespace, gc.Name, strings.Join(broken, "; "))
}

// reaches lists the Gateways a GatewayConfig applies to, as the controller finds them (up to
// maxAdmissionGateways), and for a route's policy the route.
func (v *gatewayConfigValidator) reaches(ctx context.Context, gc *v1alpha1.GatewayConfig) ([]types.NamespacedName, *desired.RouteKey, error) {
	t := gc.Spec.TargetRef
	var out []types.NamespacedName
	switch {
	case t.Kind == "Gateway":
		out = append(out, types.NamespacedName{Namespace: gc.Namespace, Name: string(t.Name)})
	case t.Kind == "Namespace" && string(t.Name) == gc.Namespace:
		l := &gwv1.GatewayList{}
		if err := v.r.Client.List(ctx, l, client.InNamespace(gc.Namespace), client.Limit(maxAdmissionGateways)); err != nil {
			return nil, nil, err
		}
		for _, gw := range l.Items {
			out = append(out, client.ObjectKeyFromObject(&gw))
		}
	default:
		obj := servedRoute(v.r.routeKinds, string(t.Kind))
		if obj == nil {
			return nil, nil, nil
		}
		key := types.NamespacedName{Namespace: gc.Namespace, Name: string(t.Name)}
		if err := v.r.Client.Get(ctx, key, obj); err != nil {
			return nil, nil, client.IgnoreNotFound(err)
		}
		for _, k := range parentKeys(obj) {
			out = append(out, splitKey(k))
		}
		return capped(out), &desired.RouteKey{Kind: string(t.Kind), NamespacedName: key}, nil
	}
	return capped(out), nil, nil
}

func capped(keys []types.NamespacedName) []types.NamespacedName {
	if len(keys) > maxAdmissionGateways {
		return keys[:maxAdmissionGateways]
	}
	return keys
}
