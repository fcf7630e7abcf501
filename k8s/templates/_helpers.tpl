{{/*
Shared helpers. Every service is rendered by the same helpers from
`.Values.services.<name>`: "tollway.workload" (a Deployment, or the edge's
StatefulSet), "tollway.service", "tollway.hpa", "tollway.pdb" and
"tollway.networkpolicy". A service template is one `include` per object.
*/}}

{{- define "tollway.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tollway.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* "<fullname>-<component>", e.g. tollway-edge. Args: root, name. */}}
{{- define "tollway.componentName" -}}
{{- printf "%s-%s" (include "tollway.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tollway.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "tollway.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: tollway
{{- end -}}

{{/* Selector labels of one component. Args: root, name. */}}
{{- define "tollway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tollway.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "tollway.componentLabels" -}}
{{ include "tollway.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "tollway.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "tollway.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "tollway.secretName" -}}
{{- default (include "tollway.fullname" .) .Values.secrets.existingSecret -}}
{{- end -}}

{{- define "tollway.image" -}}
{{- $svc := index .root.Values.services .name -}}
{{- if $svc.image -}}
{{- $svc.image -}}
{{- else -}}
{{- printf "%s/tollway-%s:%s" .root.Values.image.registry .name (default .root.Chart.AppVersion .root.Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/*
What each component talks to: DESIGN.md's "talks to" column, the one source
of the NetworkPolicies' egress rules and of the connection settings each
component gets. `redactor` and `quota` (budget seeding) are the edge's calls
inside the release.
Every component also reaches the OTLP collector when tracing is on.
*/}}
{{- define "tollway.talksTo" -}}
edge: [valkey, redactor, quota, kafka, providers, postgres]
redactor: [valkey]
quota: [postgres, valkey, kafka, webhooks]
ledger: [kafka, postgres]
reporting: [postgres]
migrate: [postgres]
{{- end -}}

{{/* True ("true") when component .name talks to .peer. */}}
{{- define "tollway.talks" -}}
{{- $map := include "tollway.talksTo" . | fromYaml -}}
{{- if has .peer (index $map .name) -}}true{{- end -}}
{{- end -}}

{{/*
The drain sum of a service: preStop pause + accept grace + drain deadline +
flush, s; and the terminationGracePeriodSeconds the pod gets (the sum plus the
margin, or a larger explicit value; a smaller one fails the render).
*/}}
{{- define "tollway.drainSum" -}}
{{- $d := .drain -}}
{{- add $d.preStopSeconds $d.acceptGraceSeconds $d.drainDeadlineSeconds $d.flushSeconds -}}
{{- end -}}

{{- define "tollway.terminationGrace" -}}
{{- $svc := index .root.Values.services .name -}}
{{- $sum := include "tollway.drainSum" $svc | int -}}
{{- $computed := add $sum $svc.drain.marginSeconds -}}
{{- $explicit := $svc.drain.terminationGracePeriodSeconds | int -}}
{{- if eq $explicit 0 -}}
{{- $computed -}}
{{- else if lt $explicit $sum -}}
{{- fail (printf "services.%s.drain.terminationGracePeriodSeconds (%d) is below preStop + accept grace + drain deadline + flush (%d)" .name $explicit $sum) -}}
{{- else -}}
{{- $explicit -}}
{{- end -}}
{{- end -}}

{{/* An env entry from an inline value or a Secret key. Args: name, value, secret, key. */}}
{{- define "tollway.envFrom" -}}
- name: {{ .name }}
{{- if .secret }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ .key }}
{{- else }}
  value: {{ .value | quote }}
{{- end }}
{{- end -}}

{{- define "tollway.connectionsSecret" -}}
{{- printf "%s-connections" (include "tollway.fullname" .) -}}
{{- end -}}

{{/* TOLLWAY_POSTGRES_DSN for the main role: the existing Secret or the chart's connections Secret. */}}
{{- define "tollway.env.postgres" -}}
{{- $pg := .Values.postgres -}}
{{- if $pg.existingSecret -}}
{{ include "tollway.envFrom" (dict "name" "TOLLWAY_POSTGRES_DSN" "secret" $pg.existingSecret "key" $pg.existingSecretKey) }}
{{- else if $pg.dsn -}}
{{ include "tollway.envFrom" (dict "name" "TOLLWAY_POSTGRES_DSN" "secret" (include "tollway.connectionsSecret" .) "key" "postgres-dsn") }}
{{- else -}}
{{- fail "set postgres.existingSecret (e.g. CloudNativePG's <cluster>-app) or postgres.dsn" -}}
{{- end -}}
{{- end -}}

{{/* The environment of one component. Args: root, name. */}}
{{- define "tollway.env" -}}
{{- $root := .root -}}
{{- $name := .name -}}
{{- $svc := index $root.Values.services $name -}}
{{- $up := upper $name -}}
{{- $t := $root.Values.kafka.topics -}}
- name: TOLLWAY_{{ $up }}_HOST
  value: "0.0.0.0"
{{- if eq $name "ledger" }}
- name: TOLLWAY_LEDGER_HEALTH_PORT
{{- else }}
- name: TOLLWAY_{{ $up }}_PORT
{{- end }}
  value: {{ $svc.port | quote }}
{{- if include "tollway.talks" (dict "name" $name "peer" "postgres") }}
{{- if and (eq $name "reporting") (or $root.Values.postgres.reporting.existingSecret $root.Values.postgres.reporting.dsn) }}
{{- $r := $root.Values.postgres.reporting }}
{{ include "tollway.envFrom" (dict "name" "TOLLWAY_POSTGRES_DSN" "secret" (ternary $r.existingSecret (include "tollway.connectionsSecret" $root) (ne $r.existingSecret "")) "key" (ternary $r.existingSecretKey "reporting-dsn" (ne $r.existingSecret ""))) }}
{{- else }}
{{ include "tollway.env.postgres" $root }}
{{- end }}
{{- end }}
{{- if include "tollway.talks" (dict "name" $name "peer" "valkey") }}
{{- $v := $root.Values.valkey }}
{{ include "tollway.envFrom" (dict "name" "TOLLWAY_VALKEY_URL" "secret" $v.existingSecret "key" $v.existingSecretKey "value" $v.url) }}
{{- end }}
{{- if has $name (list "edge" "quota" "reporting") }}
- name: TOLLWAY_KEY_PEPPER
  valueFrom:
    secretKeyRef:
      name: {{ include "tollway.secretName" $root }}
      key: key-pepper
{{- end }}
{{- if has $name (list "quota" "reporting") }}
- name: TOLLWAY_ADMIN_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "tollway.secretName" $root }}
      key: admin-token
{{- end }}
{{- if has $name (list "edge" "quota") }}
# Cold budget counters: the edge asks quota to seed them (POST /internal/v1/budget-seeds) with this token.
- name: TOLLWAY_QUOTA_SEED_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "tollway.secretName" $root }}
      key: seed-token
{{- end }}
{{- if eq $name "edge" }}
- name: TOLLWAY_CATALOGUE_PATH
  value: /etc/tollway/catalogue/catalogue.yaml
- name: TOLLWAY_EDGE_WORKERS
  value: {{ $svc.workers | quote }}
# While Valkey is unreachable each process serves limit // expected processes:
# count the most edge processes there can be, so the sum never exceeds a limit.
- name: TOLLWAY_EDGE_EXPECTED_PROCESSES
  value: {{ mul $svc.workers (ternary $svc.autoscaling.maxReplicas $svc.replicas $svc.autoscaling.enabled) | quote }}
- name: TOLLWAY_EDGE_USAGE_TOPIC
  value: {{ $t.usage.name | quote }}
- name: TOLLWAY_EDGE_QUOTA_URL
  value: {{ if $root.Values.services.quota.enabled }}{{ printf "http://%s:%v" (include "tollway.componentName" (dict "root" $root "name" "quota")) $root.Values.services.quota.port | quote }}{{ else }}""{{ end }}
- name: TOLLWAY_EDGE_REDACTOR_URLS
  value: {{ if $root.Values.services.redactor.enabled }}{{ printf "http://%s:%v" (include "tollway.componentName" (dict "root" $root "name" "redactor")) $root.Values.services.redactor.port | quote }}{{ else }}""{{ end }}
# The stop sequence (DESIGN.md "Nothing lost, ever"); terminationGracePeriodSeconds covers their sum.
- name: TOLLWAY_EDGE_ACCEPT_GRACE_SECONDS
  value: {{ $svc.drain.acceptGraceSeconds | quote }}
- name: TOLLWAY_EDGE_DRAIN_DEADLINE_SECONDS
  value: {{ $svc.drain.drainDeadlineSeconds | quote }}
- name: TOLLWAY_EDGE_JOURNAL_FLUSH_SECONDS
  value: {{ $svc.drain.flushSeconds | quote }}
- name: TOLLWAY_EDGE_JOURNAL_DIR
  value: {{ $svc.journal.mountPath | quote }}
- name: TOLLWAY_EDGE_KAFKA_LINGER_MS
  value: {{ $svc.kafka.lingerMs | quote }}
{{- end }}
{{- if eq $name "redactor" }}
- name: TOLLWAY_REDACTOR_WORKERS
  value: {{ $svc.workers | quote }}
{{- end }}
{{- if eq $name "quota" }}
- name: TOLLWAY_QUOTA_MIGRATE_ON_START
  value: {{ not $root.Values.migrations.job | quote }}
- name: TOLLWAY_QUOTA_SHUTDOWN_TIMEOUT_SECONDS
  value: {{ $svc.drain.drainDeadlineSeconds | quote }}
# Batch size against latency (docs/edge-performance.md "Whole-stack CPU per call").
- name: TOLLWAY_QUOTA_FETCH_MIN_BYTES
  value: {{ $svc.kafka.fetchMinBytes | quote }}
- name: TOLLWAY_QUOTA_FETCH_MAX_WAIT_MS
  value: {{ $svc.kafka.fetchMaxWaitMs | quote }}
- name: TOLLWAY_QUOTA_BATCH_MAX_RECORDS
  value: {{ $svc.kafka.batchMaxRecords | quote }}
- name: TOLLWAY_QUOTA_USAGE_TOPIC
  value: {{ $t.usage.name | quote }}
- name: TOLLWAY_QUOTA_DLQ_TOPIC
  value: {{ $t.dlq.name | quote }}
- name: TOLLWAY_QUOTA_ALERTS_TOPIC
  value: {{ $t.alerts.name | quote }}
{{- end }}
{{- if eq $name "ledger" }}
- name: TOLLWAY_LEDGER_MIGRATE_ON_START
  value: {{ not $root.Values.migrations.job | quote }}
- name: TOLLWAY_LEDGER_SHUTDOWN_TIMEOUT_SECONDS
  value: {{ $svc.drain.drainDeadlineSeconds | quote }}
# Batch size against latency (docs/edge-performance.md "Whole-stack CPU per call").
- name: TOLLWAY_LEDGER_FETCH_MIN_BYTES
  value: {{ $svc.kafka.fetchMinBytes | quote }}
- name: TOLLWAY_LEDGER_FETCH_MAX_WAIT_MS
  value: {{ $svc.kafka.fetchMaxWaitMs | quote }}
- name: TOLLWAY_LEDGER_BATCH_MAX_RECORDS
  value: {{ $svc.kafka.batchMaxRecords | quote }}
- name: TOLLWAY_LEDGER_TOPIC
  value: {{ $t.usage.name | quote }}
- name: TOLLWAY_LEDGER_DLQ_TOPIC
  value: {{ $t.dlq.name | quote }}
{{- end }}
{{- if $root.Values.tracing.enabled }}
- name: OTEL_SERVICE_NAME
  value: tollway-{{ $name }}
{{- end }}
{{- range $k, $v := $svc.env }}
- name: {{ $k }}
  value: {{ $v | quote }}
{{- end }}
{{- end -}}

{{/* A probe on the service's own port. Args: path, p (probe values). */}}
{{- define "tollway.probe" -}}
httpGet:
  path: {{ .path }}
  port: http
periodSeconds: {{ .p.periodSeconds }}
failureThreshold: {{ .p.failureThreshold }}
timeoutSeconds: 2
{{- end -}}

{{/*
The workload of one service: a Deployment, or (edge) a StatefulSet with a
usage-journal volume per pod. Args: root, name, kind.
*/}}
{{- define "tollway.workload" -}}
{{- $root := .root -}}
{{- $name := .name -}}
{{- $svc := index $root.Values.services $name -}}
{{- if $svc.enabled -}}
{{- $ctx := dict "root" $root "name" $name -}}
{{- $fullname := include "tollway.componentName" $ctx -}}
apiVersion: apps/v1
kind: {{ .kind }}
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "tollway.componentLabels" $ctx | nindent 4 }}
spec:
  {{- if not $svc.autoscaling.enabled }}
  replicas: {{ $svc.replicas }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "tollway.selectorLabels" $ctx | nindent 6 }}
  {{- if eq .kind "StatefulSet" }}
  serviceName: {{ $fullname }}-headless
  # Pods start and stop in parallel; each keeps its ordinal's journal volume.
  podManagementPolicy: Parallel
  updateStrategy:
    type: RollingUpdate
  # A scaled-down ordinal's journal stays until the ordinal returns and replays it.
  persistentVolumeClaimRetentionPolicy:
    whenScaled: Retain
    whenDeleted: Retain
  {{- else }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 1
  {{- end }}
  template:
    metadata:
      labels:
        {{- include "tollway.selectorLabels" $ctx | nindent 8 }}
        app.kubernetes.io/part-of: tollway
      annotations:
        checksum/settings: {{ include (print $root.Template.BasePath "/settings.yaml") $root | sha256sum }}
        {{- if and (eq $name "edge") (not $root.Values.catalogueReload.inPlace) }}
        checksum/catalogue: {{ toYaml $root.Values.catalogue | sha256sum }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "tollway.serviceAccountName" $root }}
      automountServiceAccountToken: false
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      terminationGracePeriodSeconds: {{ include "tollway.terminationGrace" $ctx }}
      {{- if $root.Values.spreadOverNodes }}
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "tollway.selectorLabels" $ctx | nindent 14 }}
      {{- end }}
      {{- with $root.Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $root.Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ $name }}
          image: {{ include "tollway.image" $ctx | quote }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          ports:
            - name: http
              containerPort: {{ $svc.port }}
              protocol: TCP
          envFrom:
            - configMapRef:
                name: {{ include "tollway.fullname" $root }}-settings
            {{- if and (eq $name "edge") $root.Values.secrets.providerCredentialsSecret }}
            - secretRef:
                name: {{ $root.Values.secrets.providerCredentialsSecret }}
            {{- end }}
          env:
            {{- include "tollway.env" $ctx | nindent 12 }}
          startupProbe:
            {{- include "tollway.probe" (dict "path" "/healthz" "p" $root.Values.probes.startup) | nindent 12 }}
          livenessProbe:
            {{- include "tollway.probe" (dict "path" "/healthz" "p" $root.Values.probes.liveness) | nindent 12 }}
          readinessProbe:
            {{- include "tollway.probe" (dict "path" "/readyz" "p" $root.Values.probes.readiness) | nindent 12 }}
          {{- if gt (int $svc.drain.preStopSeconds) 0 }}
          lifecycle:
            # Leave the Service's endpoints before SIGTERM (kube-proxy and
            # load balancers need a moment to stop sending new connections).
            preStop:
              sleep:
                seconds: {{ $svc.drain.preStopSeconds }}
          {{- end }}
          resources:
            {{- toYaml $svc.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- if eq $name "edge" }}
            - name: catalogue
              mountPath: /etc/tollway/catalogue
              readOnly: true
            - name: journal
              mountPath: {{ $svc.journal.mountPath }}
            {{- end }}
      volumes:
        # The root filesystem is read-only; /tmp is the one scratch space
        # (XDG_CACHE_HOME points there; the redactor's workers use it).
        - name: tmp
          emptyDir:
            sizeLimit: 256Mi
        {{- if eq $name "edge" }}
        # A directory mount (no subPath), so a changed ConfigMap reaches the
        # file once the edge reloads it in place.
        - name: catalogue
          configMap:
            name: {{ include "tollway.fullname" $root }}-catalogue
        {{- end }}
  {{- if eq .kind "StatefulSet" }}
  volumeClaimTemplates:
    - metadata:
        name: journal
        labels:
          {{- include "tollway.selectorLabels" $ctx | nindent 10 }}
      spec:
        accessModes: [ReadWriteOnce]
        {{- with $svc.journal.storageClassName }}
        storageClassName: {{ . }}
        {{- end }}
        resources:
          requests:
            storage: {{ $svc.journal.size }}
  {{- end }}
{{- end -}}
{{- end -}}

{{/* The Service of one component (and the edge's headless Service). Args: root, name. */}}
{{- define "tollway.service" -}}
{{- $svc := index .root.Values.services .name -}}
{{- if $svc.enabled -}}
{{- $ctx := dict "root" .root "name" .name -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "tollway.componentName" $ctx }}
  labels:
    {{- include "tollway.componentLabels" $ctx | nindent 4 }}
  {{- with $svc.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ $svc.service.type }}
  selector:
    {{- include "tollway.selectorLabels" $ctx | nindent 4 }}
  ports:
    - name: http
      port: {{ $svc.port }}
      targetPort: http
      protocol: TCP
{{- if eq .name "edge" }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ include "tollway.componentName" $ctx }}-headless
  labels:
    {{- include "tollway.componentLabels" $ctx | nindent 4 }}
spec:
  clusterIP: None
  publishNotReadyAddresses: true
  selector:
    {{- include "tollway.selectorLabels" $ctx | nindent 4 }}
  ports:
    - name: http
      port: {{ $svc.port }}
      targetPort: http
      protocol: TCP
{{- end }}
{{- end -}}
{{- end -}}

{{/* HorizontalPodAutoscaler on CPU. Args: root, name, kind. */}}
{{- define "tollway.hpa" -}}
{{- $svc := index .root.Values.services .name -}}
{{- if and $svc.enabled $svc.autoscaling.enabled -}}
{{- $ctx := dict "root" .root "name" .name -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "tollway.componentName" $ctx }}
  labels:
    {{- include "tollway.componentLabels" $ctx | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: {{ .kind }}
    name: {{ include "tollway.componentName" $ctx }}
  minReplicas: {{ $svc.autoscaling.minReplicas }}
  maxReplicas: {{ $svc.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $svc.autoscaling.targetCPUUtilizationPercentage }}
  behavior:
    scaleDown:
      # Scale down slowly: each edge pod removed must drain (and its journal waits).
      stabilizationWindowSeconds: 300
      policies:
        - type: Pods
          value: 1
          periodSeconds: 60
{{- end -}}
{{- end -}}

{{/* PodDisruptionBudget. Args: root, name. */}}
{{- define "tollway.pdb" -}}
{{- $svc := index .root.Values.services .name -}}
{{- if $svc.enabled -}}
{{- $ctx := dict "root" .root "name" .name -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "tollway.componentName" $ctx }}
  labels:
    {{- include "tollway.componentLabels" $ctx | nindent 4 }}
spec:
  maxUnavailable: {{ $svc.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "tollway.selectorLabels" $ctx | nindent 6 }}
{{- end -}}
{{- end -}}

{{/* Egress rules for one component from "tollway.talksTo". Args: root, name. */}}
{{- define "tollway.egress" -}}
{{- $root := .root -}}
{{- $np := $root.Values.networkPolicy -}}
{{- $map := include "tollway.talksTo" . | fromYaml -}}
- to:
    {{- toYaml $np.dns | nindent 4 }}
  ports:
    - {port: 53, protocol: UDP}
    - {port: 53, protocol: TCP}
{{- range $peer := index $map .name }}
{{- if has $peer (list "redactor" "quota") }}
{{- $inner := index $root.Values.services $peer }}
{{- if $inner.enabled }}
- to:
    - podSelector:
        matchLabels:
          {{- include "tollway.selectorLabels" (dict "root" $root "name" $peer) | nindent 10 }}
  ports:
    - {port: {{ $inner.port }}, protocol: TCP}
{{- end }}
{{- else }}
{{- $p := index $np.peers $peer }}
- to:
    {{- toYaml $p.to | nindent 4 }}
  ports:
    {{- range $p.ports }}
    - {port: {{ . }}, protocol: TCP}
    {{- end }}
{{- end }}
{{- end }}
{{- if $root.Values.tracing.enabled }}
- to:
    {{- toYaml $np.peers.otlp.to | nindent 4 }}
  ports:
    {{- range $np.peers.otlp.ports }}
    - {port: {{ . }}, protocol: TCP}
    {{- end }}
{{- end }}
{{- end -}}

{{/* NetworkPolicy of one component. Args: root, name. */}}
{{- define "tollway.networkpolicy" -}}
{{- $root := .root -}}
{{- $svc := index $root.Values.services .name -}}
{{- if and $svc.enabled $root.Values.networkPolicy.enabled -}}
{{- $ctx := dict "root" $root "name" .name -}}
{{- $np := $root.Values.networkPolicy -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "tollway.componentName" $ctx }}
  labels:
    {{- include "tollway.componentLabels" $ctx | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "tollway.selectorLabels" $ctx | nindent 6 }}
  policyTypes: [Ingress, Egress]
  ingress:
    {{- if eq .name "redactor" }}
    # Only the edge calls the redactor.
    - from:
        - podSelector:
            matchLabels:
              {{- include "tollway.selectorLabels" (dict "root" $root "name" "edge") | nindent 14 }}
      ports:
        - {port: {{ $svc.port }}, protocol: TCP}
    {{- else if eq .name "ledger" }}
    {{- /* The ledger serves only its health port: scrapers (kubelet probes are not subject to NetworkPolicy on common CNIs). */}}
    {{- else }}
    {{- $from := index (dict "edge" $np.edgeIngressFrom "quota" $np.quotaIngressFrom "reporting" $np.reportingIngressFrom) .name }}
    - ports:
        - {port: {{ $svc.port }}, protocol: TCP}
      {{- with $from }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- if and (eq .name "quota") $from }}
    # The edges ask quota to seed cold budget counters (POST /internal/v1/budget-seeds).
    - from:
        - podSelector:
            matchLabels:
              {{- include "tollway.selectorLabels" (dict "root" $root "name" "edge") | nindent 14 }}
      ports:
        - {port: {{ $svc.port }}, protocol: TCP}
    {{- end }}
    {{- end }}
    {{- if or $svc.metrics (eq .name "ledger") }}
    - from:
        {{- toYaml $np.metricsFrom | nindent 8 }}
      ports:
        - {port: {{ $svc.port }}, protocol: TCP}
    {{- end }}
  egress:
    {{- include "tollway.egress" $ctx | nindent 4 }}
{{- end -}}
{{- end -}}

{{/* The migration Job's environment: the DSN only (the connections Secret does not exist yet at pre-install). */}}
{{- define "tollway.migrateEnv" -}}
{{- $pg := .Values.postgres -}}
- name: TOLLWAY_LOG_FORMAT
  value: {{ .Values.logFormat | quote }}
- name: TOLLWAY_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- if $pg.existingSecret }}
{{ include "tollway.envFrom" (dict "name" "TOLLWAY_POSTGRES_DSN" "secret" $pg.existingSecret "key" $pg.existingSecretKey) }}
{{- else if $pg.dsn }}
{{ include "tollway.envFrom" (dict "name" "TOLLWAY_POSTGRES_DSN" "value" $pg.dsn) }}
{{- else }}
{{- fail "set postgres.existingSecret (e.g. CloudNativePG's <cluster>-app) or postgres.dsn" }}
{{- end }}
{{- end -}}
