-- 0003_catalog_reporting_tokens: tenant-scoped read tokens for the reporting
-- service (issue 5). Only HMAC-SHA256(pepper, id:secret) is stored, as for API
-- keys (tollway_contracts.keys). A revoked token stays revoked.
CREATE TABLE catalog.reporting_tokens (
    id           text PRIMARY KEY CHECK (id ~ '^[a-z0-9]{12}$'),
    secret_hash  text NOT NULL CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
    tenant_id    text NOT NULL REFERENCES catalog.tenants (id),
    name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    created_at   timestamptz NOT NULL DEFAULT now(),
    revoked_at   timestamptz            -- set once, never cleared
);
CREATE INDEX reporting_tokens_tenant_idx ON catalog.reporting_tokens (tenant_id);

-- The reporting service verifies tokens by reading this table. Its login role
-- (ops: `tollway_reporting ... IN ROLE tollway_reader, tollway_token_verifier`)
-- gets that through the NOLOGIN group role `tollway_token_verifier`, created
-- here when the migrating user may create roles (else by ops beforehand;
-- without it the grant is skipped with a NOTICE). Analysts' `tollway_reader`
-- does NOT get it.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tollway_token_verifier') THEN
        BEGIN
            CREATE ROLE tollway_token_verifier NOLOGIN;
        EXCEPTION
            WHEN insufficient_privilege THEN
                RAISE NOTICE 'role tollway_token_verifier absent and not creatable by %: grant skipped', current_user;
                RETURN;
            WHEN duplicate_object OR unique_violation THEN
                NULL;
        END;
    END IF;
    GRANT USAGE ON SCHEMA catalog TO tollway_token_verifier;
    GRANT SELECT (id, secret_hash, tenant_id, revoked_at) ON catalog.reporting_tokens TO tollway_token_verifier;
END
$$;
