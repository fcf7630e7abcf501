-- 0003_ledger_views: the documented, read-only surface of the ledger for
-- reporting, analysts and quota's counter seeding (docs/analytics.md), and the
-- read-only group role `tollway_reader`.
--
-- Readers use ONLY these views (and ledger.latency_quantile); the tables behind
-- them may change. Units: money in integer micro-USD (1 USD = 1,000,000),
-- tokens as counts, durations in ms, every timestamp UTC (timestamptz).
-- team_id is NULL when the call had no team (the rollups store '').

-- Estimate the q-quantile (0..1) of latency, in ms, from the rollups'
-- NON-cumulative histogram counts, in bucket order
-- [le_50, le_100, le_250, le_500, le_1000, le_2500, le_5000, le_10000,
--  le_30000, le_60000, le_inf]. Linear interpolation inside the bucket that
-- holds the rank (as Prometheus' histogram_quantile does); the first bucket's
-- lower bound is 0; a rank in the +inf bucket answers 60000 (the highest
-- finite bound). NULL when there are no counts or q is outside 0..1.
CREATE FUNCTION ledger.latency_quantile(q double precision, counts bigint[])
RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    bounds double precision[] := ARRAY[50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000];
    total numeric := 0;
    rank numeric;
    cum numeric := 0;
    lo double precision := 0;
    c numeric;
    i integer;
BEGIN
    IF q IS NULL OR counts IS NULL OR q < 0 OR q > 1 THEN
        RETURN NULL;
    END IF;
    FOR i IN 1..11 LOOP
        total := total + coalesce(counts[i], 0);
    END LOOP;
    IF total = 0 THEN
        RETURN NULL;
    END IF;
    rank := q * total;
    FOR i IN 1..11 LOOP
        c := coalesce(counts[i], 0);
        IF c > 0 AND cum + c >= rank THEN
            IF i = 11 THEN
                RETURN bounds[10];
            END IF;
            RETURN lo + (bounds[i] - lo) * ((rank - cum) / c);
        END IF;
        cum := cum + c;
        IF i <= 10 THEN
            lo := bounds[i];
        END IF;
    END LOOP;
    RETURN bounds[10];
END
$$;

-- ledger.v_usage_{hourly,daily,monthly}: one row per (bucket_start, tenant,
-- team, key, model) and UTC hour/day/month, counting each finished call
-- (completed or failed) once, in the bucket of its ts_start.
DO $$
DECLARE
    grain text;
    buckets text := 'latency_le_50, latency_le_100, latency_le_250, latency_le_500, '
                    'latency_le_1000, latency_le_2500, latency_le_5000, latency_le_10000, '
                    'latency_le_30000, latency_le_60000, latency_le_inf';
BEGIN
    FOREACH grain IN ARRAY ARRAY['hourly', 'daily', 'monthly'] LOOP
        EXECUTE format($f$
            CREATE VIEW ledger.%I AS
            SELECT bucket_start,
                   tenant_id,
                   NULLIF(team_id, '') AS team_id,
                   key_id,
                   model,
                   requests,
                   errors,
                   prompt_tokens,
                   completion_tokens,
                   cached_tokens,
                   reasoning_tokens,
                   total_tokens,
                   cost_micro_usd,
                   latency_ms_sum,
                   (%s) AS latency_count,
                   %s,
                   ledger.latency_quantile(0.50, ARRAY[%s]) AS latency_p50_ms,
                   ledger.latency_quantile(0.95, ARRAY[%s]) AS latency_p95_ms,
                   ledger.latency_quantile(0.99, ARRAY[%s]) AS latency_p99_ms
            FROM ledger.%I
        $f$, 'v_usage_' || grain, replace(buckets, ',', ' +'), buckets, buckets, buckets, buckets,
             'usage_rollup_' || grain);
    END LOOP;
END
$$;

COMMENT ON VIEW ledger.v_usage_hourly IS
    'Usage and spend per UTC hour, tenant, team (NULL = none), key, model. Money micro-USD, latency ms. See docs/analytics.md.';
COMMENT ON VIEW ledger.v_usage_daily IS
    'Usage and spend per UTC day, tenant, team (NULL = none), key, model. Money micro-USD, latency ms. See docs/analytics.md.';
COMMENT ON VIEW ledger.v_usage_monthly IS
    'Usage and spend per UTC month, tenant, team (NULL = none), key, model. Money micro-USD, latency ms. See docs/analytics.md.';

-- Spend per tenant/team/key/model per UTC day and per UTC month: what quota
-- reads to seed budget counters (sum over the rows of one tenant/team/key for
-- the current period).
CREATE VIEW ledger.v_spend_daily AS
SELECT bucket_start AS day_start, tenant_id, NULLIF(team_id, '') AS team_id, key_id, model,
       requests, total_tokens, cost_micro_usd
FROM ledger.usage_rollup_daily;
COMMENT ON VIEW ledger.v_spend_daily IS
    'Spend (micro-USD), tokens and requests per UTC day, tenant, team, key, model.';

CREATE VIEW ledger.v_spend_monthly AS
SELECT bucket_start AS month_start, tenant_id, NULLIF(team_id, '') AS team_id, key_id, model,
       requests, total_tokens, cost_micro_usd
FROM ledger.usage_rollup_monthly;
COMMENT ON VIEW ledger.v_spend_monthly IS
    'Spend (micro-USD), tokens and requests per UTC month, tenant, team, key, model.';

-- One row per call, without the ledger's bookkeeping (event ids, reservation).
-- Nothing here is secret: no prompt or completion text ever reaches the
-- ledger, key ids are public, and redaction is reported as counts only.
CREATE VIEW ledger.v_calls AS
SELECT request_id, tenant_id, team_id, user_id, key_id,
       ts_start, ts_end, model, provider, upstream_model, stream,
       status, status_code, error_type, attempts,
       prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, total_tokens,
       cost_micro_usd, latency_ms, ttft_ms, overhead_ms,
       redaction ->> 'mode' AS redaction_mode,
       redaction -> 'entities' AS redaction_entities,
       trace_id
FROM ledger.usage_records;
COMMENT ON VIEW ledger.v_calls IS
    'One row per call (status in_flight|completed|failed). Money micro-USD, durations ms.';

-- The read-only group role. Roles are cluster-wide: it is created here when
-- the migrating user may create roles, else infra/ops creates it beforehand
-- (`CREATE ROLE tollway_reader NOLOGIN`); without it the grants are skipped
-- with a NOTICE. A login role for the reporting service (e.g.
-- `tollway_reporting LOGIN PASSWORD ... IN ROLE tollway_reader`) is ops' job.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tollway_reader') THEN
        BEGIN
            CREATE ROLE tollway_reader NOLOGIN;
        EXCEPTION
            WHEN insufficient_privilege THEN
                RAISE NOTICE 'role tollway_reader absent and not creatable by %: grants skipped', current_user;
                RETURN;
            WHEN duplicate_object OR unique_violation THEN
                NULL;  -- created concurrently by another database's migration
        END;
    END IF;
    GRANT USAGE ON SCHEMA ledger TO tollway_reader;
    GRANT SELECT ON ledger.v_usage_hourly, ledger.v_usage_daily, ledger.v_usage_monthly,
                    ledger.v_spend_daily, ledger.v_spend_monthly, ledger.v_calls
        TO tollway_reader;
    GRANT EXECUTE ON FUNCTION ledger.latency_quantile(double precision, bigint[]) TO tollway_reader;
END
$$;
