-- Ledger schema v4 (issue 11): the usage event's `redaction_language_policy`.
-- Owner: services/ledger. See services/ledger/README.md.
--
-- The strictest language policy the redactor applied to the call's texts:
-- 'block' > 'patterns_only' > 'pass' > 'supported'; NULL when redaction was
-- off, nothing was analysed, the redactor did not answer, or the row predates
-- this column. Filled from the event like every other column (the ledger
-- derives its staging columns from the contract's UsageEvent Struct).
ALTER TABLE ledger.usage_records ADD COLUMN redaction_language_policy text;

-- v_calls gains the column at its end (CREATE OR REPLACE keeps the grants).
CREATE OR REPLACE VIEW ledger.v_calls AS
SELECT request_id, tenant_id, team_id, user_id, key_id,
       ts_start, ts_end, model, provider, upstream_model, stream,
       status, status_code, error_type, attempts,
       prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, total_tokens,
       cost_micro_usd, latency_ms, ttft_ms, overhead_ms,
       redaction ->> 'mode' AS redaction_mode,
       redaction -> 'entities' AS redaction_entities,
       trace_id,
       redaction_language_policy
FROM ledger.usage_records;
COMMENT ON VIEW ledger.v_calls IS
    'One row per call (status in_flight|completed|failed). Money micro-USD, durations ms.';
