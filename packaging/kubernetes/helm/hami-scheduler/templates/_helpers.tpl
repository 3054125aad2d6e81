{{/* Labels every object of the release carries. */}}
{{- define "hami-scheduler.labels" -}}
app.kubernetes.io/name: hami-scheduler
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}

{{/* The pod selector. */}}
{{- define "hami-scheduler.selector" -}}
app.kubernetes.io/name: hami-scheduler
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
