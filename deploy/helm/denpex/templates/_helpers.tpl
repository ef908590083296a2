{{/* Names, labels and shared container settings of the Denpex chart. */}}

{{- define "denpex.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "denpex.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "denpex.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "denpex.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "denpex.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "denpex.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* selector labels of one component: include "denpex.selector" (list . "server") */}}
{{- define "denpex.selector" -}}
app.kubernetes.io/name: {{ include "denpex.name" (index . 0) }}
app.kubernetes.io/instance: {{ (index . 0).Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{- define "denpex.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "denpex.secretName" -}}
{{- .Values.secrets.existingSecret | default (include "denpex.fullname" .) -}}
{{- end -}}

{{- define "denpex.serviceAccountName" -}}
{{- .Values.serviceAccount.name | default (include "denpex.fullname" .) -}}
{{- end -}}

{{- define "denpex.redisUrl" -}}
{{- .Values.redis.url | default (printf "redis://%s-redis:6379/0" (include "denpex.fullname" .)) -}}
{{- end -}}

{{/* one env var from the chart's Secret: include "denpex.secretEnv" (list . "SLACK_BOT_TOKEN") */}}
{{- define "denpex.secretEnv" -}}
- name: {{ index . 1 }}
  valueFrom:
    secretKeyRef:
      name: {{ include "denpex.secretName" (index . 0) }}
      key: {{ index . 1 }}
      optional: true
{{- end -}}

{{- define "denpex.commonEnv" -}}
- name: DENPEX_CLUSTER
  value: {{ .Values.cluster | quote }}
- name: DENPEX_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- if .Values.redis.sentinels }}
- name: DENPEX_REDIS_SENTINELS
  value: {{ join "," .Values.redis.sentinels | quote }}
- name: DENPEX_REDIS_SENTINEL_MASTER
  value: {{ .Values.redis.sentinelMaster | default "mymaster" | quote }}
{{- with .Values.redis.sentinelPassword.existingSecret }}
- name: DENPEX_REDIS_SENTINEL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.redis.sentinelPassword.key | default "sentinel-password" }}
{{- end }}
{{- with .Values.redis.url }}
- name: REDIS_URL
  value: {{ . | quote }}
{{- end }}
{{- else }}
- name: REDIS_URL
  value: {{ include "denpex.redisUrl" . | quote }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* the restricted container security context shared by server, worker, watcher */}}
{{- define "denpex.securityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}
