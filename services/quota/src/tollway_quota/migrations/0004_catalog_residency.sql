-- 0004_catalog_residency: data-residency policies (issue 13) and the
-- `allowed_regions` column of catalog.edge_principals.
-- after: 0003_catalog_reporting_tokens (files apply in name order)

-- The catalogue region tags a tenant's (or a team's) calls may reach;
-- NULL = no policy. Set through PUT/DELETE /admin/v1/{tenants,teams}/{id}/residency-policy.
ALTER TABLE catalog.tenants ADD COLUMN allowed_regions text[]
    CHECK (allowed_regions IS NULL OR cardinality(allowed_regions) > 0);
ALTER TABLE catalog.teams ADD COLUMN allowed_regions text[]
    CHECK (allowed_regions IS NULL OR cardinality(allowed_regions) > 0);

-- `allowed_regions`: the key's effective policy. A team narrows its
-- tenant's policy, never widens it: both set = their intersection (possibly
-- empty: the key then reaches no deployment, the edge answers 403); one set
-- = that one; neither = NULL (no policy). Appended last, as CREATE OR
-- REPLACE VIEW requires; every other column is 0002's.
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
       k.version,
       CASE
           WHEN t.allowed_regions IS NULL THEN tn.allowed_regions
           WHEN tn.allowed_regions IS NULL THEN t.allowed_regions
           ELSE ARRAY(SELECT unnest(t.allowed_regions) INTERSECT SELECT unnest(tn.allowed_regions) ORDER BY 1)
       END                                             AS allowed_regions
FROM catalog.api_keys k
JOIN catalog.tenants tn ON tn.id = k.tenant_id
LEFT JOIN catalog.teams t ON t.id = k.team_id;
