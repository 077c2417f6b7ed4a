package cli_test

import (
	"strings"
	"testing"

	"gantry.dev/gantry/internal/golden"
)

// TestPolicyTargetRefNamespace: bifrost-gateway-controller's policies carry
// spec.targetRef.namespace, which strict decoding refused (`json: unknown field "namespace"`),
// refusing the whole file. The policy's own namespace is accepted; another applies nowhere and
// `--explain` says why.
func TestPolicyTargetRefNamespace(t *testing.T) {
	input := func(targetNS string) string {
		return `apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: bifrost
spec:
  values:
    default: {size: small}
  gatewayTemplate:
    resourceTemplates:
      cm: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: size
        data:
          size: {{ .Values.size | quote }}
` + classAndGateway("bifrost") + `---
apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayConfig
metadata:
  name: tenant
  namespace: team-a
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: web, namespace: ` + targetNS + `}
  default: {size: large}
`
	}
	code, out, errOut := run(t, input("team-a"), "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `size: "large"`) && !strings.Contains(out, "size: large") {
		t.Errorf("the policy naming its own namespace did not apply:\n%s", out)
	}
	code, out, errOut = run(t, input("team-b"), "-", "--explain")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "size: large") || strings.Contains(out, `size: "large"`) {
		t.Errorf("a policy naming another namespace applied:\n%s", out)
	}
	if !strings.Contains(out, "spec.targetRef.namespace is team-b") {
		t.Errorf("--explain does not say why the policy does not apply:\n%s", out)
	}
}

// TestRenderAppliesAPIServerDefaults: offline, a parentRef without kind and a listener without
// allowedRoutes read as the API server would fill them in, so templates that read them render
// the same as in the cluster.
func TestRenderAppliesAPIServerDefaults(t *testing.T) {
	in := `apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: bifrost
spec:
  gatewayTemplate:
    resourceTemplates:
      cm: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: listeners
        data:
          from: {{ (index .Gateway.spec.listeners 0).allowedRoutes.namespaces.from | quote }}
  httpRouteTemplate:
    resourceTemplates:
      route: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .HTTPRoute.metadata.name }}
        data:
          parent: {{ printf "%s/%s" (index .HTTPRoute.spec.parentRefs 0).group (index .HTTPRoute.spec.parentRefs 0).kind | quote }}
` + classAndGateway("bifrost") + `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: team-a}
spec:
  parentRefs:
  - name: web
`
	code, out, errOut := run(t, in, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{`from: Same`, `parent: gateway.networking.k8s.io/Gateway`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestParametersRefBifrostGroup: a GatewayClass carried over from bifrost-gateway-controller
// still names its blueprint as GatewayClassBlueprint.gateway.tv2.dk. Gantry reads that group as
// its own, so the class needs no edit beyond controllerName, and the output says so.
func TestParametersRefBifrostGroup(t *testing.T) {
	in := `apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: bifrost
spec:
  gatewayTemplate:
    resourceTemplates:
      cm: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cm
` + strings.Replace(classAndGateway("bifrost"), "group: gateway.gantry.dev", "group: gateway.tv2.dk", 1)
	code, out, errOut := run(t, in, "-")
	if code != 0 {
		t.Fatalf("exit %d; a class naming its blueprint in bifrost's group did not render:\n%s", code, errOut)
	}
	if !strings.Contains(out, "name: cm") {
		t.Errorf("the blueprint's ConfigMap is not in the output:\n%s", out)
	}
	if want := "# GatewayClass bifrost: parametersRef group gateway.tv2.dk (bifrost-gateway-controller's) is read as gateway.gantry.dev"; !strings.Contains(out, want) {
		t.Errorf("the output does not say that the bifrost group was read as Gantry's (%q):\n%s", want, out)
	}
}

// TestParametersRefForeignGroup: a parametersRef of any other group names nothing Gantry reads.
// The Gateway's error said the blueprint "does not exist" although a blueprint of that name was
// in the input; it must say the group is the problem and which ones Gantry takes.
func TestParametersRefForeignGroup(t *testing.T) {
	in := `apiVersion: gateway.gantry.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: bifrost
spec:
  gatewayTemplate:
    resourceTemplates:
      cm: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cm
` + strings.Replace(classAndGateway("bifrost"), "group: gateway.gantry.dev", "group: example.com", 1)
	code, _, errOut := run(t, in, "-")
	if code == 0 {
		t.Fatal("rendered a Gateway whose class names a blueprint of another API group")
	}
	if strings.Contains(errOut, "does not exist") || !strings.Contains(errOut, "GatewayClassBlueprint.example.com") || !strings.Contains(errOut, "GatewayClassBlueprint.gateway.gantry.dev") {
		t.Errorf("the error does not name the wrong group and the right one:\n%s", errOut)
	}
}

// TestBifrostFormat renders testdata/bifrost-format, a blueprint and policies in
// bifrost-gateway-controller's format that use the constructs its published blueprints use:
// Gateway API v1beta1 objects; get, toYaml|nindent, printf|substr, sha1sum and or on values;
// optional values left null or empty in the defaults; .Hostnames.Intersection for a
// certificate; a status template reading a live object through .Resources; a route template
// ranging over parentRefs; class-wide policies in the controller's namespace, policies aimed at
// a Namespace with group "", and a GatewayConfig naming its own namespace in targetRef.
// The golden files hold what a bifrost user should see; any construct that stops working shows
// up as a diff (or a non-zero exit code) there. Run with -update and review the diff.
func TestBifrostFormat(t *testing.T) {
	t.Chdir("testdata")
	args := []string{"bifrost-format", "--controller-namespace", "bifrost-gateway-controller-system"}
	golden.Check(t, "bifrost-format.out.yaml", golden.Render(t, args...))
	golden.Check(t, "bifrost-format.explain.out.yaml", golden.Render(t, append(args, "--explain")...))
}
