package controllers_test

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
)

// TestAdmissionRejectsNonsense: the CRDs' validation refuses, at admission, policies that make
// no sense — with a message that says why — and admits the ones that do.
func TestAdmissionRejectsNonsense(t *testing.T) {
	ns := namespace(t, nil)
	ref := func(group, kind, name string) v1alpha1.PolicyTargetReference {
		return v1alpha1.PolicyTargetReference{Group: gwv1.Group(group), Kind: gwv1.Kind(kind), Name: gwv1.ObjectName(name)}
	}
	raw := func(s string) *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte(s)} }
	tests := []struct {
		name string
		obj  client.Object
		want string // "" means admitted
	}{
		{"GatewayClassConfig on a GatewayClass", &v1alpha1.GatewayClassConfig{Spec: v1alpha1.GatewayClassConfigSpec{TargetRef: ref("gateway.networking.k8s.io", "GatewayClass", "c")}}, ""},
		{"GatewayClassConfig on a Namespace", &v1alpha1.GatewayClassConfig{Spec: v1alpha1.GatewayClassConfigSpec{TargetRef: ref("", "Namespace", ns)}}, ""},
		{"GatewayClassConfig on a Gateway", &v1alpha1.GatewayClassConfig{Spec: v1alpha1.GatewayClassConfigSpec{TargetRef: ref("gateway.networking.k8s.io", "Gateway", "g")}},
			"a GatewayClassConfig may target only a GatewayClass"},
		{"GatewayClassConfig on a Namespace with a group", &v1alpha1.GatewayClassConfig{Spec: v1alpha1.GatewayClassConfigSpec{TargetRef: ref("gateway.networking.k8s.io", "Namespace", ns)}},
			"a GatewayClassConfig may target only a GatewayClass"},
		{"GatewayConfig on a Gateway", &v1alpha1.GatewayConfig{Spec: v1alpha1.GatewayConfigSpec{TargetRef: ref("gateway.networking.k8s.io", "Gateway", "g")}}, ""},
		{"GatewayConfig on an HTTPRoute", &v1alpha1.GatewayConfig{Spec: v1alpha1.GatewayConfigSpec{TargetRef: ref("gateway.networking.k8s.io", "HTTPRoute", "r")}}, ""},
		{"GatewayConfig on a Namespace", &v1alpha1.GatewayConfig{Spec: v1alpha1.GatewayConfigSpec{TargetRef: ref("", "Namespace", ns)}}, ""},
		{"GatewayConfig on a GatewayClass", &v1alpha1.GatewayConfig{Spec: v1alpha1.GatewayConfigSpec{TargetRef: ref("gateway.networking.k8s.io", "GatewayClass", "c")}},
			"a GatewayConfig may target only a Gateway or a route (HTTPRoute, GRPCRoute"},
		{"default that is a list", &v1alpha1.GatewayConfig{Spec: v1alpha1.GatewayConfigSpec{TargetRef: ref("gateway.networking.k8s.io", "Gateway", "g"),
			PolicyValues: v1alpha1.PolicyValues{Default: raw(`["a"]`)}}}, "spec.default: Invalid value: \"array\": spec.default in body must be of type object"},
		{"override that is a string", &v1alpha1.GatewayClassConfig{Spec: v1alpha1.GatewayClassConfigSpec{TargetRef: ref("", "Namespace", ns),
			PolicyValues: v1alpha1.PolicyValues{Override: raw(`"x"`)}}}, "spec.override: Invalid value: \"string\": spec.override in body must be of type object"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.obj.SetNamespace(ns)
			tt.obj.SetName("p" + string(rune('a'+i)))
			err := k8s.Create(t.Context(), tt.obj)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && err == nil:
				t.Fatalf("admitted, want an error containing %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("error %q does not say %q", err, tt.want)
			}
		})
	}
	c := crdClient(t)
	crd := &apiextensionsv1.CustomResourceDefinition{}
	for _, name := range []string{"gatewayclassconfigs.gateway.gantry.dev", "gatewayconfigs.gateway.gantry.dev"} {
		if err := c.Get(t.Context(), client.ObjectKey{Name: name}, crd); err != nil {
			t.Fatal(err)
		}
		if got := crd.Labels["gateway.networking.k8s.io/policy"]; got != "inherited" {
			t.Errorf("CRD %s label gateway.networking.k8s.io/policy = %q, want inherited", name, got)
		}
	}
}
