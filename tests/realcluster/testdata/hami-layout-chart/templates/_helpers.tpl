{{/*
An image reference from a block {registry, repository, tag}:
global.imageRegistry, when set, stands for the block's registry, and an
empty tag becomes global.imageTag (or .fallbackTag when given).
*/}}
{{- define "layout.image" -}}
{{- $registry := .image.registry | default "" -}}
{{- if .global.imageRegistry -}}
{{- $registry = .global.imageRegistry -}}
{{- end -}}
{{- $tag := toString (.image.tag | default (.fallbackTag | default .global.imageTag)) -}}
{{- if $registry -}}
{{- printf "%s/%s:%s" $registry .image.repository $tag -}}
{{- else -}}
{{- printf "%s:%s" .image.repository $tag -}}
{{- end -}}
{{- end -}}

{{/* Labels of an object of the release: .root is the chart's context. */}}
{{- define "layout.labels" -}}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end -}}

{{- define "layout.scheduler" -}}
{{ .Release.Name }}-scheduler
{{- end -}}

{{- define "layout.devicePlugin" -}}
{{ .Release.Name }}-device-plugin
{{- end -}}
