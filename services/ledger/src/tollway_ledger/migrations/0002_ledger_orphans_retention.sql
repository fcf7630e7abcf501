-- Ledger schema v2 (issue 5): orphaned calls and retention.
-- Owner: services/ledger. See services/ledger/README.md for the invariants.

-- A call whose `started` was recorded but whose terminal event did not arrive
-- within TOLLWAY_LEDGER_ORPHAN_AFTER_SECONDS is marked 'orphaned' by the
-- reconciler. It is NOT counted in the rollups; a terminal event arriving later
-- still finalises it (completed/failed) and counts it then, once.
-- `orphaned_at` stays set after such a late finalisation (history).
ALTER TABLE ledger.usage_records DROP CONSTRAINT usage_records_status_check;
ALTER TABLE ledger.usage_records ADD CONSTRAINT usage_records_status_check
    CHECK (status IN ('in_flight', 'orphaned', 'completed', 'failed'));
ALTER TABLE ledger.usage_records ADD COLUMN orphaned_at timestamptz;

CREATE INDEX usage_records_orphaned ON ledger.usage_records (ts_start) WHERE status = 'orphaned';

-- Calls currently orphaned, with what admission reserved for them.
-- `reservation` is the per-scope object of the `started` event
-- ({"key": {"tokens": .., "cost_micro_usd": ..}, "team": {...}, ...});
-- `reserved_tokens` / `reserved_cost_micro_usd` are the largest per-scope values
-- (every scope reserves the same amount for one call, so this is "the call's
-- reservation", not a sum over scopes). Both are NULL without a reservation.
CREATE VIEW ledger.orphaned_calls AS
SELECT r.request_id,
       r.tenant_id,
       r.team_id,
       r.user_id,
       r.key_id,
       r.model,
       r.provider,
       r.ts_start,
       r.orphaned_at,
       r.reservation,
       (SELECT max((v ->> 'tokens')::bigint) FROM jsonb_each(r.reservation) AS e(k, v)) AS reserved_tokens,
       (SELECT max((v ->> 'cost_micro_usd')::bigint) FROM jsonb_each(r.reservation) AS e(k, v)) AS reserved_cost_micro_usd,
       r.trace_id
FROM ledger.usage_records r
WHERE r.status = 'orphaned';

COMMENT ON VIEW ledger.orphaned_calls IS
    'Calls started but never finalised within the orphan timeout, with their reservation (services/ledger README).';
