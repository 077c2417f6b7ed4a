package desired_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/desired"
	"gantry.dev/gantry/render"
)

const (
	ns        = "team-a"
	className = "internet"
)

var created = metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))

func ptr[T any](v T) *T { return &v }

func rawJSON(s string) *apiextensionsv1.JSON {
	if s == "" {
		return nil
	}
	return &apiextensionsv1.JSON{Raw: []byte(s)}
}

// blueprint is the blueprint proxy with the given gateway templates and default values.
func blueprint(templates map[string]string, defaults string) *v1alpha1.GatewayClassBlueprint {
	return &v1alpha1.GatewayClassBlueprint{
		ObjectMeta: metav1.ObjectMeta{Name: "proxy"},
		Spec: v1alpha1.GatewayClassBlueprintSpec{
			Values:          v1alpha1.ValuesStanzas{Default: rawJSON(defaults)},
			GatewayTemplate: v1alpha1.GatewayTemplate{ResourceTemplates: templates},
		},
	}
}

func class() *gwv1.GatewayClass {
	return &gwv1.GatewayClass{
		ObjectMeta: metav1.ObjectMeta{Name: className},
		Spec: gwv1.GatewayClassSpec{
			ControllerName: "gantry.dev/gateway-controller",
			ParametersRef:  &gwv1.ParametersReference{Group: v1alpha1.GroupName, Kind: "GatewayClassBlueprint", Name: "proxy"},
		},
	}
}

func listener(name string, protocol gwv1.ProtocolType, port gwv1.PortNumber, hostname string) gwv1.Listener {
	l := gwv1.Listener{Name: gwv1.SectionName(name), Protocol: protocol, Port: port}
	if hostname != "" {
		l.Hostname = ptr(gwv1.Hostname(hostname))
	}
	return l
}

// gateway is a typed Gateway as a client returns it: no apiVersion and kind.
func gateway(name string, listeners ...gwv1.Listener) *gwv1.Gateway {
	if len(listeners) == 0 {
		listeners = []gwv1.Listener{listener("http", gwv1.HTTPProtocolType, 80, "")}
	}
	return &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: created},
		Spec:       gwv1.GatewaySpec{GatewayClassName: className, Listeners: listeners},
	}
}

func target(kind, name string) v1alpha1.PolicyTargetReference {
	group := gwv1.Group(gwv1.GroupName)
	if kind == "Namespace" {
		group = ""
	}
	return v1alpha1.PolicyTargetReference{Group: group, Kind: gwv1.Kind(kind), Name: gwv1.ObjectName(name)}
}

func gatewayConfig(namespace, name string, to v1alpha1.PolicyTargetReference, defaults, overrides string) *v1alpha1.GatewayConfig {
	return &v1alpha1.GatewayConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, CreationTimestamp: created},
		Spec: v1alpha1.GatewayConfigSpec{TargetRef: to, PolicyValues: v1alpha1.PolicyValues{
			Default: rawJSON(defaults), Override: rawJSON(overrides),
		}},
	}
}

func gatewayClassConfig(namespace, name string, to v1alpha1.PolicyTargetReference, defaults string) *v1alpha1.GatewayClassConfig {
	return &v1alpha1.GatewayClassConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, CreationTimestamp: created},
		Spec:       v1alpha1.GatewayClassConfigSpec{TargetRef: to, PolicyValues: v1alpha1.PolicyValues{Default: rawJSON(defaults)}},
	}
}

// configMapTemplate renders a ConfigMap with the given data lines.
func configMapTemplate(name string, data ...string) string {
	t := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n"
	for _, d := range data {
		t += "  " + d + "\n"
	}
	return t
}

func desiredError(t *testing.T, err error, reason string) *desired.Error {
	t.Helper()
	var de *desired.Error
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T) is not a *desired.Error", err, err)
	}
	if de.Reason != reason {
		t.Errorf("Reason = %s, want %s (error %v)", de.Reason, reason, err)
	}
	if errors.Unwrap(err) != de.Err {
		t.Errorf("Unwrap does not give the cause")
	}
	return de
}

func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:8]
}

func TestMissingBlueprint(t *testing.T) {
	noRef := class()
	noRef.Spec.ParametersRef = nil
	otherGroup := class()
	otherGroup.Spec.ParametersRef.Group = "example.com"
	bifrostGroup := class() // as carried over from bifrost-gateway-controller: read as Gantry's
	bifrostGroup.Spec.ParametersRef.Group = "gateway.tv2.dk"
	tests := []struct {
		name  string
		class *gwv1.GatewayClass
		want  string
	}{
		{"parametersRef to a blueprint that does not exist", class(), "GatewayClass internet has parametersRef GatewayClassBlueprint proxy, which does not exist"},
		{"parametersRef of another group", otherGroup, "GatewayClass internet parametersRef is GatewayClassBlueprint.example.com; it must be a GatewayClassBlueprint.gateway.gantry.dev (or GatewayClassBlueprint.gateway.tv2.dk, bifrost-gateway-controller's, read as the same)"},
		{"parametersRef of bifrost's group to a blueprint that does not exist", bifrostGroup, "GatewayClass internet has parametersRef GatewayClassBlueprint proxy, which does not exist"},
		{"no parametersRef", noRef, "GatewayClass internet has no parametersRef"},
		{"no class", nil, "GatewayClass internet, which the Gateway names, does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: tt.class})
			if err == nil {
				t.Fatalf("Gateway = %+v, want an error", res)
			}
			desiredError(t, err, desired.ReasonInvalidParameters)
			if err.Error() != tt.want {
				t.Errorf("error\n got %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestBlueprintDoesNotCompile(t *testing.T) {
	bp := blueprint(map[string]string{"cm": `{{ env "HOME" }}`}, "")
	_, err := desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(), Blueprint: bp})
	desiredError(t, err, desired.ReasonInvalidParameters)
	if want := `blueprint proxy: gatewayTemplate.resourceTemplates.cm:1: function "env" not defined`; err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

func TestValuesSchema(t *testing.T) {
	schema := `{"type": "object", "required": ["image"], "properties": {
		"image": {"type": "string"},
		"replicas": {"type": "integer", "minimum": 1, "maximum": 10},
		"service": {"type": "object", "properties": {"type": {"enum": ["LoadBalancer", "ClusterIP"]}}}
	}}`
	gwTarget := target("Gateway", "web")
	tests := []struct {
		name     string
		defaults string
		gccs     []*v1alpha1.GatewayClassConfig
		gcs      []*v1alpha1.GatewayConfig
		want     string
	}{{
		name:     "wrong type from the Gateway's GatewayConfig",
		defaults: `{"image": "envoy", "replicas": 2}`,
		gcs:      []*v1alpha1.GatewayConfig{gatewayConfig(ns, "tenant", gwTarget, `{"replicas": "three"}`, "")},
		want:     "blueprint proxy valuesSchema: values.replicas: got string, want integer (set by GatewayConfig team-a/tenant (default, level 5))",
	}, {
		name:     "too many from a namespace override",
		defaults: `{"image": "envoy", "replicas": 2}`,
		gcs: []*v1alpha1.GatewayConfig{
			gatewayConfig(ns, "tenant", gwTarget, `{"replicas": 3}`, ""),
			gatewayConfig(ns, "namespace-wide", target("Namespace", ns), "", `{"replicas": 20}`),
		},
		want: "blueprint proxy valuesSchema: values.replicas: maximum: got 20, want 10 (set by GatewayConfig team-a/namespace-wide (override, level 4))",
	}, {
		name:     "nested value from a global GatewayClassConfig",
		defaults: `{"image": "envoy"}`,
		gccs:     []*v1alpha1.GatewayClassConfig{gatewayClassConfig("gantry-system", "global", target("GatewayClass", className), `{"service": {"type": "NodePort"}}`)},
		want:     "blueprint proxy valuesSchema: values.service.type: value must be one of 'LoadBalancer', 'ClusterIP' (set by GatewayClassConfig gantry-system/global (default, level 1))",
	}, {
		name:     "missing value",
		defaults: `{"replicas": 2}`,
		want:     "blueprint proxy valuesSchema: values: missing property 'image' (set by no object (the value is missing))",
	}, {
		name:     "removed by a tenant's null",
		defaults: `{"image": "envoy"}`,
		gcs:      []*v1alpha1.GatewayConfig{gatewayConfig(ns, "tenant", gwTarget, "", `{"image": null}`)},
		want:     "blueprint proxy valuesSchema: values: missing property 'image' (removed by GatewayConfig team-a/tenant (override, level 5))",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bp := blueprint(map[string]string{"cm": configMapTemplate("cm")}, tt.defaults)
			bp.Spec.ValuesSchema = rawJSON(schema)
			_, err := desired.Gateway(&desired.Input{
				Gateway: gateway("web"), Class: class(), Blueprint: bp,
				GatewayClassConfigs: tt.gccs, GatewayConfigs: tt.gcs,
			})
			if err == nil {
				t.Fatalf("Gateway: no error, want %s", tt.want)
			}
			desiredError(t, err, desired.ReasonInvalidValues)
			if err.Error() != tt.want {
				t.Errorf("error\n got %v\nwant %s", err, tt.want)
			}
		})
	}

	// Values that satisfy the schema render.
	bp := blueprint(map[string]string{"cm": configMapTemplate("cm", `replicas: {{ .Values.replicas | quote }}`)}, `{"image": "envoy", "replicas": 2}`)
	bp.Spec.ValuesSchema = rawJSON(schema)
	res, err := desired.Gateway(&desired.Input{
		Gateway: gateway("web"), Class: class(), Blueprint: bp,
		GatewayConfigs: []*v1alpha1.GatewayConfig{gatewayConfig(ns, "tenant", gwTarget, `{"replicas": 3}`, "")},
	})
	if err != nil {
		t.Fatalf("Gateway: %v", err)
	}
	if got := res.Objects[0].Object["data"]; !reflect.DeepEqual(got, map[string]any{"replicas": "3"}) {
		t.Errorf("data = %v, want replicas 3", got)
	}
}

func TestLabels(t *testing.T) {
	long := strings.Repeat("a", 60) + ".example-" + strings.Repeat("b", 184) // 253 characters
	longClass := strings.Repeat("c", 100)
	tests := []struct {
		name, gateway, class string
		wantGateway          string
		wantClass            string
	}{
		{"short names", "web", className, "web", className},
		{"253-character Gateway name", long, className, long[:54] + "-" + hash8(long), className},
		{"long class name", "web", longClass, "web", longClass[:54] + "-" + hash8(longClass)},
	}
	template := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n" +
		"    app: web\n    gateway.networking.k8s.io/gateway-name: spoofed\n"
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw := gateway(tt.gateway)
			gw.Spec.GatewayClassName = gwv1.ObjectName(tt.class)
			c := class()
			c.Name = tt.class
			res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: c, Blueprint: blueprint(map[string]string{"config": template}, "")})
			if err != nil {
				t.Fatalf("Gateway: %v", err)
			}
			if len(res.Objects) != 1 {
				t.Fatalf("objects = %v, want one", res.Objects)
			}
			o := res.Objects[0]
			if want := (desired.Owner{Kind: "Gateway", NamespacedName: types.NamespacedName{Namespace: ns, Name: tt.gateway}}); o.Owner != want || o.Template != "config" {
				t.Errorf("owner %v, template %q; want %v, config", o.Owner, o.Template, want)
			}
			labels := o.Object["metadata"].(map[string]any)["labels"].(map[string]any)
			want := map[string]any{
				"app":                                    "web",
				"gateway.networking.k8s.io/gateway-name": tt.wantGateway,
				"gateway.networking.k8s.io/gateway-class-name": tt.wantClass,
				"gateway.gantry.dev/template":                  "config",
			}
			if !reflect.DeepEqual(labels, want) {
				t.Errorf("labels =\n%v\nwant\n%v", labels, want)
			}
			for k, v := range labels {
				if errs := validation.IsValidLabelValue(v.(string)); len(errs) > 0 {
					t.Errorf("label %s=%q is not a valid label value: %v", k, v, errs)
				}
			}
			if got := desired.LabelValue(tt.gateway); got != tt.wantGateway {
				t.Errorf("LabelValue = %q, want %q", got, tt.wantGateway)
			}
		})
	}
}

// deployment renders a Deployment whose pod template spec line is spec.
func deployment(spec string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n" +
		"    metadata:\n      labels:\n        app: web\n    spec:\n      " + spec + "\n"
}

// TestTenantInjection: tenant strings used unquoted cannot add fields; the error names the
// object and the value.
func TestTenantInjection(t *testing.T) {
	changed := func(origin string) string {
		return "blueprint proxy: gatewayTemplate.resourceTemplates.deployment: " + origin +
			": this value changed the YAML structure of the output (it would add documents or fields); the template must quote it, e.g. `| quote`, or use toYaml"
	}
	annotated := gateway("web")
	annotated.Annotations = map[string]string{"gantry.dev/service-account": "x\n    hostNetwork: true"}
	gwTarget := target("Gateway", "web")
	tests := []struct {
		name     string
		spec     string
		gw       *gwv1.Gateway
		policies []*v1alpha1.GatewayConfig
		want     string
	}{{
		name:     "GatewayConfig value",
		spec:     "serviceAccountName: {{ .Values.sa }}",
		policies: []*v1alpha1.GatewayConfig{gatewayConfig(ns, "tenant", gwTarget, `{"sa": "x\n    hostNetwork: true"}`, "")},
		want:     changed("GatewayConfig team-a/tenant value sa"),
	}, {
		name:     "nested GatewayConfig value",
		spec:     "serviceAccountName: {{ .Values.pod.sa }}",
		policies: []*v1alpha1.GatewayConfig{gatewayConfig(ns, "tenant", gwTarget, "", `{"pod": {"sa": "x\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: pwned"}}`)},
		want:     changed("GatewayConfig team-a/tenant value pod.sa"),
	}, {
		name:     "GatewayConfig list item",
		spec:     "containers:\n      - name: proxy\n        args:\n        {{- range .Values.args }}\n        - {{ . }}\n        {{- end }}",
		policies: []*v1alpha1.GatewayConfig{gatewayConfig(ns, "namespace-wide", target("Namespace", ns), `{"args": ["--verbose", "--log=info\n        - --admin=0.0.0.0"]}`, "")},
		want:     changed("GatewayConfig team-a/namespace-wide value args[1]"),
	}, {
		name: "Gateway annotation",
		spec: `serviceAccountName: {{ index .Gateway.metadata.annotations "gantry.dev/service-account" }}`,
		gw:   annotated,
		want: changed("Gateway team-a/web field metadata.annotations.gantry.dev/service-account"),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw := tt.gw
			if gw == nil {
				gw = gateway("web")
			}
			bp := blueprint(map[string]string{"deployment": deployment(tt.spec)}, "")
			res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: bp, GatewayConfigs: tt.policies})
			if err == nil {
				t.Fatalf("Gateway rendered %v, want an error", res.Objects)
			}
			desiredError(t, err, desired.ReasonRenderFailed)
			if err.Error() != tt.want {
				t.Errorf("error\n got %q\nwant %q", err, tt.want)
			}
		})
	}

	// Quoted, the same values are data.
	bp := blueprint(map[string]string{"deployment": deployment(`serviceAccountName: {{ .Values.sa | quote }}`)}, "")
	res, err := desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(), Blueprint: bp, GatewayConfigs: tests[0].policies})
	if err != nil {
		t.Fatalf("Gateway: %v", err)
	}
	spec := res.Objects[0].Object["spec"].(map[string]any)["template"].(map[string]any)["spec"]
	if want := map[string]any{"serviceAccountName": "x\n    hostNetwork: true"}; !reflect.DeepEqual(spec, want) {
		t.Errorf("pod spec = %v, want %v", spec, want)
	}
}

func TestGatewayMap(t *testing.T) {
	// A typed Gateway from a client has no apiVersion and kind; templates see them anyway.
	gw := gateway("web")
	gw.Status.Addresses = []gwv1.GatewayStatusAddress{{Value: "192.0.2.1"}}
	bp := blueprint(map[string]string{"owner": configMapTemplate("owner",
		`apiVersion: {{ .Gateway.apiVersion | quote }}`,
		`kind: {{ .Gateway.kind | quote }}`,
		`status: {{ hasKey .Gateway "status" | quote }}`,
		`managedFields: {{ hasKey .Gateway.metadata "managedFields" | quote }}`,
	)}, "")
	res, err := desired.Gateway(&desired.Input{Gateway: gw, Class: class(), Blueprint: bp})
	if err != nil {
		t.Fatalf("Gateway: %v", err)
	}
	want := map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway", "status": "false", "managedFields": "false"}
	if got := res.Objects[0].Object["data"]; !reflect.DeepEqual(got, want) {
		t.Errorf("data = %v, want %v", got, want)
	}
	if gw.APIVersion != "" || gw.Kind != "" {
		t.Errorf("the Gateway changed: %v", gw.TypeMeta)
	}
}

func TestStatusAndPending(t *testing.T) {
	bp := blueprint(map[string]string{"service": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n"}, "")
	bp.Spec.GatewayTemplate.Status = &v1alpha1.StatusTemplate{Template: `
{{- with .Resources.service }}
addresses:
{{- range (index . 0).status.loadBalancer.ingress }}
- type: IPAddress
  value: {{ .ip | quote }}
{{- end }}
{{- end }}`}
	service := func(status map[string]any) map[string][]map[string]any {
		o := map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web", "namespace": ns}}
		if status != nil {
			o["status"] = status
		}
		return map[string][]map[string]any{"service": {o}}
	}
	tests := []struct {
		name      string
		live      map[string][]map[string]any
		addresses []gwv1.GatewayStatusAddress
		pending   []render.Pending
	}{{
		name: "nothing applied yet",
	}, {
		name: "no status yet",
		live: service(nil),
		pending: []render.Pending{{
			Template: "gatewayTemplate.status.template",
			Waiting:  []string{"service"},
			Reason:   `0: map has no entry for key "status"`,
		}},
	}, {
		name:      "load balancer ready",
		live:      service(map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1"}}}}),
		addresses: []gwv1.GatewayStatusAddress{{Type: ptr(gwv1.IPAddressType), Value: "192.0.2.1"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(), Blueprint: bp, Live: tt.live})
			if err != nil {
				t.Fatalf("Gateway: %v", err)
			}
			if !reflect.DeepEqual(res.Addresses, tt.addresses) || !reflect.DeepEqual(res.Pending, tt.pending) {
				t.Errorf("Addresses, Pending = %v, %#v\nwant %v, %#v", res.Addresses, res.Pending, tt.addresses, tt.pending)
			}
			if len(res.Objects) != 1 {
				t.Errorf("objects = %v, want the Service", res.Objects)
			}
		})
	}
}

func TestStatusAddressErrors(t *testing.T) {
	tests := []struct{ status, want string }{
		{"addresses: 192.0.2.1", "blueprint proxy: gatewayTemplate.status.template: addresses must be a list"},
		{"addresses:\n- type: IPAddress", "blueprint proxy: gatewayTemplate.status.template: addresses[0] has no value"},
	}
	for _, tt := range tests {
		bp := blueprint(nil, "")
		bp.Spec.GatewayTemplate.Status = &v1alpha1.StatusTemplate{Template: tt.status}
		_, err := desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(), Blueprint: bp})
		if err == nil {
			t.Errorf("status %q: no error, want %s", tt.status, tt.want)
			continue
		}
		desiredError(t, err, desired.ReasonRenderFailed)
		if err.Error() != tt.want {
			t.Errorf("error\n got %v\nwant %s", err, tt.want)
		}
	}
}

func TestMalformedPolicyValues(t *testing.T) {
	bp := blueprint(map[string]string{"cm": configMapTemplate("cm")}, "")
	_, err := desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(), Blueprint: bp,
		GatewayConfigs: []*v1alpha1.GatewayConfig{gatewayConfig(ns, "tenant", target("Gateway", "web"), `["not", "an", "object"]`, "")}})
	if err == nil {
		t.Fatal("no error for values that are not an object")
	}
	desiredError(t, err, desired.ReasonInvalidValues)
	if want := "GatewayConfig team-a/tenant spec.default: values must be an object, not a list"; err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

// TestLiveObjectsAreTenantStrings: the objects Gantry rendered live in the tenant's namespace,
// and a tenant with ordinary rights there can edit them. What a template reads back from them
// through .Resources is a tenant string like a GatewayConfig value: it cannot add a document.
func TestLiveObjectsAreTenantStrings(t *testing.T) {
	const pwn = "x\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: pwned"
	bp := blueprint(map[string]string{
		"settings": configMapTemplate("settings", `sa: "default"`),
		"cm":       configMapTemplate("copy", `{{- with .Resources.settings }}`, `sa: {{ (index . 0).data.sa }}`, `{{- end }}`),
	}, "")
	live := func(sa string) map[string][]map[string]any {
		return map[string][]map[string]any{"settings": {{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "settings", "namespace": ns}, "data": map[string]any{"sa": sa}}}}
	}
	// Edited by the tenant to hold a document: refused, naming the object and the field.
	res, err := desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(), Blueprint: bp, Live: live(pwn)})
	if err == nil {
		t.Fatalf("Gateway rendered %d objects, want an error", len(res.Objects))
	}
	desiredError(t, err, desired.ReasonRenderFailed)
	if want := "ConfigMap team-a/settings field data.sa: this value changed the YAML structure"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	// As rendered, it is data.
	res, err = desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(), Blueprint: bp, Live: live("default")})
	if err != nil {
		t.Fatalf("Gateway: %v", err)
	}
	if len(res.Objects) != 2 {
		t.Errorf("objects = %v, want settings and copy", res.Objects)
	}
}

// TestHelmWayBlueprint: a blueprint written the Helm way — a _helpers template with defines
// and include, default, if/with on optional values, required — renders, also when a value is
// removed by an explicit null (the blueprint's `opt: null`, a tenant's `tags: null`).
func TestHelmWayBlueprint(t *testing.T) {
	bp := blueprint(map[string]string{
		"_helpers": `{{- define "app.name" -}}{{ .Gateway.metadata.name }}-{{ .Values.suffix | default "app" }}{{- end -}}`,
		"cm": configMapTemplate(`{{ include "app.name" . }}`,
			`image: {{ required "image is required" .Values.image | quote }}`,
			`opt: {{ .Values.opt | default "none" | quote }}`,
			`{{- if .Values.debug.enabled }}`, `debug: "on"`, `{{- end }}`,
			`{{- with .Values.tags }}`, `tags: {{ toJson . | quote }}`, `{{- end }}`,
			`{{- if not (hasKey .Values "tags") }}`, `untagged: "yes"`, `{{- end }}`),
	}, `{"image": "proxy:1", "opt": null, "tags": {"team": "a"}}`)
	out, err := desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(), Blueprint: bp,
		GatewayConfigs: []*v1alpha1.GatewayConfig{gatewayConfig(ns, "tenant", target("Gateway", "web"), `{"tags": null}`, "")}})
	if err != nil {
		t.Fatal(err)
	}
	got := out.Objects[0].Object["data"]
	want := map[string]any{"image": "proxy:1", "opt": "none", "untagged": "yes"}
	if !reflect.DeepEqual(got, want) || out.Objects[0].Object["metadata"].(map[string]any)["name"] != "web-app" {
		t.Errorf("object = %v, want data %v, name web-app", out.Objects[0].Object, want)
	}

	// Without the image, required says so.
	bp.Spec.Values.Default = rawJSON(`{"opt": null}`)
	_, err = desired.Gateway(&desired.Input{Gateway: gateway("web"), Class: class(), Blueprint: bp})
	if err == nil || !strings.Contains(err.Error(), "gatewayTemplate.resourceTemplates.cm:6") || !strings.Contains(err.Error(), "image is required") {
		t.Errorf("error = %v, want the required message at cm:6", err)
	}
}
