-- 0002_catalog_limits: limits and budgets per scope (issue 3), the tenant's
-- alert webhook, and the `limits` column of catalog.edge_principals.
-- depends: 0001_catalog_init

ALTER TABLE catalog.tenants ADD COLUMN alert_webhook_url text
    CHECK (alert_webhook_url IS NULL OR alert_webhook_url ~ '^https?://');

-- One row per (scope, scope id, model); model NULL = all models. The admin
-- API checks that scope_id names a key/user/team of tenant_id (or is
-- tenant_id itself); there is no foreign key because the target table
-- depends on `scope`.
CREATE TABLE catalog.limits (
    id                   text PRIMARY KEY CHECK (id ~ '^lm_[a-z0-9]{12}$'),
    tenant_id            text NOT NULL REFERENCES catalog.tenants (id),
    scope                text NOT NULL CHECK (scope IN ('key', 'user', 'team', 'tenant')),
    scope_id             text NOT NULL,
    model                text,
    requests_per_minute  bigint CHECK (requests_per_minute >= 0),
    tokens_per_minute    bigint CHECK (tokens_per_minute >= 0),
    max_concurrent       bigint CHECK (max_concurrent >= 0),
    budget_micro_usd     bigint CHECK (budget_micro_usd >= 0),   -- integer micro-USD per budget_period
    budget_period        text CHECK (budget_period IN ('day', 'week', 'month')),
    thresholds_percent   integer[] NOT NULL DEFAULT '{50,80,100}',
    shadow               boolean NOT NULL DEFAULT false,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    CHECK ((budget_micro_usd IS NULL) = (budget_period IS NULL)),
    CHECK (scope <> 'tenant' OR scope_id = tenant_id),
    CONSTRAINT limits_scope_model_key UNIQUE NULLS NOT DISTINCT (scope, scope_id, model)
);
CREATE INDEX limits_tenant_idx ON catalog.limits (tenant_id);

-- `limits`: a JSON array of tollway_contracts.limits.Limit, every limit of
-- the key's key, user, team and tenant scopes (key first, then user, team,
-- tenant; all-model limits before model-narrowed ones), each with the
-- tenant's time_zone; NULL when none applies.
-- `expires_at` is not applied here: the edge compares it with its own clock
-- at every authentication (a view cannot bump a version when time passes).
CREATE OR REPLACE VIEW catalog.edge_principals AS
SELECT k.key_id,
       k.secret_hash,
       k.tenant_id,
       k.team_id,
       k.user_id,
       k.allowed_models,
       (k.revoked_at IS NOT NULL)                      AS revoked,
       k.expires_at,
       COALESCE(k.redaction_policy, t.redaction_policy) AS redaction_policy,
       (SELECT jsonb_agg(
                   jsonb_build_object(
                       'scope', l.scope,
                       'scope_id', l.scope_id,
                       'model', l.model,
                       'requests_per_minute', l.requests_per_minute,
                       'tokens_per_minute', l.tokens_per_minute,
                       'max_concurrent', l.max_concurrent,
                       'budget_micro_usd', l.budget_micro_usd,
                       'budget_period', l.budget_period,
                       'time_zone', tn.time_zone,
                       'thresholds_percent', to_jsonb(l.thresholds_percent),
                       'shadow', l.shadow)
                   ORDER BY array_position(ARRAY['key', 'user', 'team', 'tenant'], l.scope),
                            l.model NULLS FIRST, l.id)
          FROM catalog.limits l
         WHERE (l.scope = 'key' AND l.scope_id = k.key_id)
            OR (l.scope = 'user' AND l.scope_id = k.user_id)
            OR (l.scope = 'team' AND l.scope_id = k.team_id)
            OR (l.scope = 'tenant' AND l.scope_id = k.tenant_id)
       )                                               AS limits,
       k.version
FROM catalog.api_keys k
JOIN catalog.tenants tn ON tn.id = k.tenant_id
LEFT JOIN catalog.teams t ON t.id = k.team_id;
