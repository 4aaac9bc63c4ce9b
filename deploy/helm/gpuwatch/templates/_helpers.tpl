{{- define "gpuwatch.labels" -}}
app.kubernetes.io/name: gpuwatch
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{- define "gpuwatch.selectorLabels" -}}
app.kubernetes.io/name: gpuwatch
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
