-- 0005_catalog_response_cache: the exact response cache's opt-in (issue 13)
-- and the `response_cache_ttl_seconds` column of catalog.edge_principals.
-- after: 0004_catalog_residency (files apply in name order)

-- How long the edge keeps a key's (or a team's keys') answers in its exact
-- response cache, seconds; NULL = not cached (the default: no cache, no
-- Valkey round trip). Set through PUT/DELETE
-- /admin/v1/{keys,teams}/{id}/cache-policy.
ALTER TABLE catalog.api_keys ADD COLUMN response_cache_ttl_seconds integer
    CHECK (response_cache_ttl_seconds IS NULL OR response_cache_ttl_seconds BETWEEN 1 AND 2592000);
ALTER TABLE catalog.teams ADD COLUMN response_cache_ttl_seconds integer
    CHECK (response_cache_ttl_seconds IS NULL OR response_cache_ttl_seconds BETWEEN 1 AND 2592000);

-- `response_cache_ttl_seconds`: the key's policy, else its team's (as
-- redaction_policy). Appended last, as CREATE OR REPLACE VIEW requires;
-- every other column is 0004's.
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
       END                                             AS allowed_regions,
       COALESCE(k.response_cache_ttl_seconds, t.response_cache_ttl_seconds)
                                                       AS response_cache_ttl_seconds
FROM catalog.api_keys k
JOIN catalog.tenants tn ON tn.id = k.tenant_id
LEFT JOIN catalog.teams t ON t.id = k.team_id;
