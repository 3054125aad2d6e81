{{/* The chart name (nameOverride). */}}
{{- define "hami-scheduler.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The prefix of every object name: fullnameOverride, else the release name when
it contains the chart name, else "<release>-<chart>" (63 characters at most,
leaving room for the suffixes below within Kubernetes' 63-character labels).
*/}}
{{- define "hami-scheduler.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The webhook's Service; the serving certificate names it. */}}
{{- define "hami-scheduler.serviceName" -}}
{{- printf "%s-admission" (include "hami-scheduler.fullname" .) -}}
{{- end -}}

{{/* The Secret cert-manager writes the serving certificate to. */}}
{{- define "hami-scheduler.tlsSecret" -}}
{{- printf "%s-tls" (include "hami-scheduler.fullname" .) -}}
{{- end -}}

{{/*
certificates.mode selfManaged: the in-memory folder (emptyDir) the host
writes tls.crt, tls.key and ca.crt to, mounted read-only in kube-scheduler.
*/}}
{{- define "hami-scheduler.runtimeTlsDir" -}}
/run/hami-scheduler/tls
{{- end -}}

{{/* Labels every object of the release carries. */}}
{{- define "hami-scheduler.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "hami-scheduler.selector" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/*
The label the leader writes on the scheduler pods (HAMi's role label):
<key>=leader on its own pod, follower on the others.
*/}}
{{- define "hami-scheduler.roleLabel" -}}
hami.io/scheduler-role
{{- end -}}

{{/* The scheduler pods the leader labels: the pod selector as a label selector. */}}
{{- define "hami-scheduler.roleSelector" -}}
{{- printf "app.kubernetes.io/name=%s,app.kubernetes.io/instance=%s" (include "hami-scheduler.name" .) .Release.Name -}}
{{- end -}}

{{/*
Whether the Service selects the leader only: several replicas following
kube-scheduler's lease.
*/}}
{{- define "hami-scheduler.leaderService" -}}
{{- if and (eq .Values.leaderElection.mode "follow") (gt (int .Values.replicas) 1) -}}
true
{{- end -}}
{{- end -}}

{{/* The pod selector. */}}
{{- define "hami-scheduler.selector" -}}
app.kubernetes.io/name: {{ include "hami-scheduler.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
kube-scheduler's image: the tag set, else the cluster's version without its
distribution suffix (v1.31.1+k3s1 -> v1.31.1, v1.30.8-eks-2d5f260 -> v1.30.8).
*/}}
{{- define "hami-scheduler.kubeSchedulerImage" -}}
{{- $tag := .Values.kubeScheduler.image.tag | toString | trim -}}
{{- if not $tag -}}
{{- $tag = regexReplaceAll "^(v[0-9]+\\.[0-9]+\\.[0-9]+).*$" .Capabilities.KubeVersion.Version "${1}" -}}
{{- end -}}
{{- printf "%s:%s" .Values.kubeScheduler.image.repository $tag -}}
{{- end -}}

{{/* The host's image: the tag set, else the chart's appVersion. */}}
{{- define "hami-scheduler.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion (.Values.image.tag | toString)) -}}
{{- end -}}

{{/*
The device configuration as a dict: files/device-config.yaml with
.Values.deviceConfig merged over it (maps key by key; lists and scalars
replace).
*/}}
{{- define "hami-scheduler.deviceConfig" -}}
{{- $defaults := .Files.Get "files/device-config.yaml" | fromYaml -}}
{{- toYaml (mergeOverwrite $defaults (deepCopy .Values.deviceConfig)) -}}
{{- end -}}
