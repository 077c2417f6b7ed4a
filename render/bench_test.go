package render_test

import (
	"testing"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/boundary"
)

// proxySpec is a proxy-like blueprint: five resource templates, helpers and a status template.
func proxySpec() *v1alpha1.GatewayClassBlueprintSpec {
	return &v1alpha1.GatewayClassBlueprintSpec{GatewayTemplate: v1alpha1.GatewayTemplate{
		ResourceTemplates: map[string]string{
			"_helpers": `
{{- define "proxy.name" -}}{{ shortname 63 .Gateway.metadata.name }}{{- end -}}
{{- define "proxy.selector" -}}
app.kubernetes.io/name: gantry-proxy
app.kubernetes.io/instance: {{ include "proxy.name" . }}
{{- end -}}`,
			"serviceaccount": `apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "proxy.name" . }}
`,
			"deployment": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "proxy.name" . }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      {{- include "proxy.selector" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "proxy.selector" . | nindent 8 }}
    spec:
      serviceAccountName: {{ include "proxy.name" . }}
      containers:
      - name: proxy
        image: {{ .Values.image | quote }}
        ports:
        {{- range .Gateway.spec.listeners }}
        - name: {{ shortname 15 "l" .name | quote }}
          containerPort: {{ .port }}
        {{- end }}
        resources:
          {{- toYaml .Values.resources | nindent 10 }}
`,
			"service": `apiVersion: v1
kind: Service
metadata:
  name: {{ include "proxy.name" . }}
  {{- with .Values.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ .Values.service.type | quote }}
  selector:
    {{- include "proxy.selector" . | nindent 4 }}
  ports:
  {{- range .Gateway.spec.listeners }}
  - name: {{ shortname 15 "l" .name | quote }}
    port: {{ .port }}
    targetPort: {{ .port }}
  {{- end }}
`,
			"hpa": `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "proxy.name" . }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "proxy.name" . }}
  minReplicas: {{ .Values.autoscaling.minReplicas }}
  maxReplicas: {{ .Values.autoscaling.maxReplicas }}
`,
			"pdb": `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "proxy.name" . }}
spec:
  minAvailable: 1
  selector:
    matchLabels:
      {{- include "proxy.selector" . | nindent 6 }}
`,
		},
		Status: &v1alpha1.StatusTemplate{Template: `
{{- with .Resources.service }}
{{- with (index . 0).status.loadBalancer.ingress }}
addresses:
{{- range . }}
- type: IPAddress
  value: {{ .ip | quote }}
{{- end }}
{{- end }}
{{- end }}`},
	}}
}

func BenchmarkRenderGateway(b *testing.B) {
	bp := mustCompile(b, proxySpec())
	values := map[string]any{
		"image":       "docker.io/envoyproxy/envoy:v1.33.0",
		"replicas":    int64(2),
		"service":     map[string]any{"type": "LoadBalancer", "annotations": map[string]any{"example.com/lb": "internal, fast"}},
		"resources":   map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "128Mi"}},
		"autoscaling": map[string]any{"minReplicas": int64(2), "maxReplicas": int64(10)},
	}
	in := input(values)
	in.Gateway["spec"].(map[string]any)["listeners"] = []any{
		map[string]any{"name": "http", "port": int64(80), "protocol": "HTTP"},
		map[string]any{"name": "https", "port": int64(443), "protocol": "HTTPS", "hostname": "*.example.com"},
	}
	in.Resources = map[string][]map[string]any{"service": {{
		"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web", "namespace": ns},
		"status": map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.1"}}}},
	}}}
	in.Tainted = boundary.TaintedStrings(values, tenant)
	out, err := bp.RenderGateway(in)
	if err != nil {
		b.Fatal(err)
	}
	if len(out.Objects) != 5 || out.Status == nil {
		b.Fatalf("rendered %d objects and status %v, want 5 and addresses", len(out.Objects), out.Status)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bp.RenderGateway(in); err != nil {
			b.Fatal(err)
		}
	}
}
