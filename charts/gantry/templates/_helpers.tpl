{{- define "gantry.labels" -}}
app.kubernetes.io/name: gantry
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}
{{- define "gantry.controllerNamespace" -}}
{{ .Values.controllerNamespace | default .Release.Namespace }}
{{- end -}}
