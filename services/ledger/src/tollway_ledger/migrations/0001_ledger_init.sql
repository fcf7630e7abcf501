-- Ledger schema v1: usage_records (one row per call, monthly partitions),
-- hourly/daily/monthly rollups, and the partition-maintenance function.
-- Owner: services/ledger. See services/ledger/README.md for the invariants.

CREATE SCHEMA IF NOT EXISTS ledger;

CREATE TABLE ledger.usage_records (
    request_id          uuid        NOT NULL,
    tenant_id           text        NOT NULL,
    team_id             text,
    user_id             text,
    key_id              text        NOT NULL,
    ts_start            timestamptz NOT NULL,
    ts_end              timestamptz,
    model               text        NOT NULL,
    provider            text,
    upstream_model      text,
    stream              boolean     NOT NULL DEFAULT false,
    status              text        NOT NULL
        CHECK (status IN ('in_flight', 'completed', 'failed')),
    status_code         integer,
    error_type          text,
    attempts            integer     NOT NULL DEFAULT 0,
    prompt_tokens       bigint,
    completion_tokens   bigint,
    cached_tokens       bigint,
    reasoning_tokens    bigint,
    total_tokens        bigint,
    cost_micro_usd      bigint,
    reservation         jsonb,
    latency_ms          double precision,
    ttft_ms             double precision,
    overhead_ms         double precision,
    redaction           jsonb,
    trace_id            text,
    started_event_id    uuid,
    terminal_event_id   uuid,
    updated_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (ts_start, request_id)
) PARTITION BY RANGE (ts_start);

-- Reporting and retention/orphan reconciliation (later) read by tenant and time,
-- and find in-flight calls by time.
CREATE INDEX usage_records_tenant_ts ON ledger.usage_records (tenant_id, ts_start);
CREATE INDEX usage_records_in_flight ON ledger.usage_records (ts_start) WHERE status = 'in_flight';

-- Rollups: one row per (bucket_start, tenant, team, key, model). team_id is ''
-- when the call had no team (NULL-safe key). A call is counted once, when its
-- terminal event is first applied. Latency histogram: NON-cumulative counts per
-- bucket with upper bounds (ms) 50, 100, 250, 500, 1000, 2500, 5000, 10000,
-- 30000, 60000, +inf (latency_le_inf); calls without latency_ms are in no bucket.
DO $$
DECLARE
    grain text;
BEGIN
    FOREACH grain IN ARRAY ARRAY['hourly', 'daily', 'monthly'] LOOP
        EXECUTE format($f$
            CREATE TABLE ledger.%I (
                bucket_start        timestamptz NOT NULL,
                tenant_id           text        NOT NULL,
                team_id             text        NOT NULL DEFAULT '',
                key_id              text        NOT NULL,
                model               text        NOT NULL,
                requests            bigint      NOT NULL DEFAULT 0,
                errors              bigint      NOT NULL DEFAULT 0,
                prompt_tokens       bigint      NOT NULL DEFAULT 0,
                completion_tokens   bigint      NOT NULL DEFAULT 0,
                cached_tokens       bigint      NOT NULL DEFAULT 0,
                reasoning_tokens    bigint      NOT NULL DEFAULT 0,
                total_tokens        bigint      NOT NULL DEFAULT 0,
                cost_micro_usd      bigint      NOT NULL DEFAULT 0,
                latency_ms_sum      double precision NOT NULL DEFAULT 0,
                latency_le_50       bigint      NOT NULL DEFAULT 0,
                latency_le_100      bigint      NOT NULL DEFAULT 0,
                latency_le_250      bigint      NOT NULL DEFAULT 0,
                latency_le_500      bigint      NOT NULL DEFAULT 0,
                latency_le_1000     bigint      NOT NULL DEFAULT 0,
                latency_le_2500     bigint      NOT NULL DEFAULT 0,
                latency_le_5000     bigint      NOT NULL DEFAULT 0,
                latency_le_10000    bigint      NOT NULL DEFAULT 0,
                latency_le_30000    bigint      NOT NULL DEFAULT 0,
                latency_le_60000    bigint      NOT NULL DEFAULT 0,
                latency_le_inf      bigint      NOT NULL DEFAULT 0,
                updated_at          timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (bucket_start, tenant_id, team_id, key_id, model)
            )$f$, 'usage_rollup_' || grain);
        EXECUTE format('CREATE INDEX %I ON ledger.%I (tenant_id, bucket_start)',
                       'usage_rollup_' || grain || '_tenant', 'usage_rollup_' || grain);
    END LOOP;
END
$$;

-- Create the monthly partition holding `month_start` (UTC) if it is absent.
-- Idempotent; serialised across replicas by a transaction-scoped advisory lock.
CREATE FUNCTION ledger.ensure_usage_partition(month_start timestamptz)
RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    lo timestamptz := date_trunc('month', month_start AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    hi timestamptz := (date_trunc('month', month_start AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
    part_name text := 'usage_records_' || to_char(lo AT TIME ZONE 'UTC', '"y"YYYY"m"MM');
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('tollway.ledger.partitions'));
    IF to_regclass(format('ledger.%I', part_name)) IS NOT NULL THEN
        RETURN false;
    END IF;
    EXECUTE format(
        'CREATE TABLE ledger.%I PARTITION OF ledger.usage_records FOR VALUES FROM (%L) TO (%L)',
        part_name, lo, hi);
    RETURN true;
END
$$;

-- Create the partitions for the current UTC month and `months_ahead` after it.
-- Returns how many partitions were created now.
CREATE FUNCTION ledger.ensure_usage_partitions(months_ahead integer DEFAULT 2)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    created integer := 0;
    i integer;
BEGIN
    FOR i IN 0..months_ahead LOOP
        IF ledger.ensure_usage_partition(
               (date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => i)) AT TIME ZONE 'UTC') THEN
            created := created + 1;
        END IF;
    END LOOP;
    RETURN created;
END
$$;
