-- Ledger schema v5: the usage event fields added by issues 10, 12, 13 and 15,
-- in one migration because they land in one change of the one event
-- definition (libs/contracts/src/tollway_contracts/events.py).
-- Owner: services/ledger. See services/ledger/README.md.
--
-- deployment          the catalogue deployment id that answered (issue 13).
-- cache_write_tokens  prompt tokens written to the provider's prompt cache,
--                     included in prompt_tokens (Anthropic's
--                     cache_creation_input_tokens; issue 12).
-- usage_estimated     true when the call ended early and the provider's usage
--                     never arrived: tokens and cost are the edge's estimate
--                     (issue 10). Rows before v5 read false.
-- attempt_details     one JSON object per provider attempt: deployment,
--                     provider, upstream_model, status_code, error_type,
--                     tokens, cost_micro_usd, usage_estimated (issue 10).
--                     The row's tokens and cost are their sum.
-- response_cache_hit  the answer came from Tollway's response cache (issue 13).
-- catalogue_version   the catalogue version whose prices billed the call.
-- shadow_refusals     the shadow-mode limits that would have refused the call,
--                     [{"scope": "team:t", "limit": "budget"}] (issue 15).
ALTER TABLE ledger.usage_records
    ADD COLUMN deployment text,
    ADD COLUMN cache_write_tokens bigint,
    ADD COLUMN usage_estimated boolean NOT NULL DEFAULT false,
    ADD COLUMN attempt_details jsonb,
    ADD COLUMN response_cache_hit boolean NOT NULL DEFAULT false,
    ADD COLUMN catalogue_version text,
    ADD COLUMN shadow_refusals jsonb;

-- v_calls gains the columns at its end (CREATE OR REPLACE keeps the grants).
CREATE OR REPLACE VIEW ledger.v_calls AS
SELECT request_id, tenant_id, team_id, user_id, key_id,
       ts_start, ts_end, model, provider, upstream_model, stream,
       status, status_code, error_type, attempts,
       prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, total_tokens,
       cost_micro_usd, latency_ms, ttft_ms, overhead_ms,
       redaction ->> 'mode' AS redaction_mode,
       redaction -> 'entities' AS redaction_entities,
       trace_id,
       redaction_language_policy,
       deployment, cache_write_tokens, usage_estimated, attempt_details,
       response_cache_hit, catalogue_version, shadow_refusals
FROM ledger.usage_records;
COMMENT ON VIEW ledger.v_calls IS
    'One row per call (status in_flight|completed|failed). Money micro-USD, durations ms. usage_estimated rows carry the edge''s estimate.';
