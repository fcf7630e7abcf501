-- 0001_catalog_init: the `catalog` schema, owned by the quota service.
-- The edge reads only the two views at the bottom (contract:
-- tollway_contracts.principals); everything else may change freely.
CREATE SCHEMA IF NOT EXISTS catalog;

CREATE TABLE catalog.tenants (
    id          text PRIMARY KEY CHECK (id ~ '^tn_[a-z0-9]{12}$'),
    name        text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
    time_zone   text NOT NULL DEFAULT 'UTC',
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE catalog.teams (
    id                text PRIMARY KEY CHECK (id ~ '^tm_[a-z0-9]{12}$'),
    tenant_id         text NOT NULL REFERENCES catalog.tenants (id),
    name              text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    redaction_policy  jsonb,
    created_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, name),
    UNIQUE (tenant_id, id)
);

CREATE TABLE catalog.users (
    id          text PRIMARY KEY CHECK (id ~ '^us_[a-z0-9]{12}$'),
    tenant_id   text NOT NULL REFERENCES catalog.tenants (id),
    team_id     text,
    name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    email       text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, name),
    UNIQUE (tenant_id, email),
    UNIQUE (tenant_id, id),
    -- a user's team belongs to the user's tenant (MATCH SIMPLE: null team = none)
    FOREIGN KEY (tenant_id, team_id) REFERENCES catalog.teams (tenant_id, id)
);

CREATE TABLE catalog.api_keys (
    key_id            text PRIMARY KEY CHECK (key_id ~ '^[a-z0-9]{12}$'),
    -- hex HMAC-SHA256(pepper, key_id:secret); the secret itself is never stored
    secret_hash       text NOT NULL CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
    tenant_id         text NOT NULL REFERENCES catalog.tenants (id),
    team_id           text,
    user_id           text,
    name              text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    allowed_models    text[],            -- null = every catalogue model
    redaction_policy  jsonb,             -- null = inherit the team's
    created_at        timestamptz NOT NULL DEFAULT now(),
    expires_at        timestamptz,
    revoked_at        timestamptz,       -- set once, never cleared
    version           bigint NOT NULL,   -- principals version of the last change that affects this row
    FOREIGN KEY (tenant_id, team_id) REFERENCES catalog.teams (tenant_id, id),
    FOREIGN KEY (tenant_id, user_id) REFERENCES catalog.users (tenant_id, id)
);
CREATE INDEX api_keys_version_idx ON catalog.api_keys (version);
CREATE INDEX api_keys_tenant_idx ON catalog.api_keys (tenant_id);
CREATE INDEX api_keys_team_idx ON catalog.api_keys (team_id);

-- The principals version: a one-row table rather than a sequence on purpose.
-- A sequence's nextval is visible before the transaction that took it commits,
-- so an edge could read version N, then miss the row stamped N when it commits
-- later. Bumping this row takes a row lock held to commit, so versions become
-- visible in order.
CREATE TABLE catalog.principals_version_state (
    only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    version   bigint NOT NULL
);
INSERT INTO catalog.principals_version_state (only_row, version) VALUES (true, 0);

-- Issue 3 (limits and budgets) adds its tables here and fills `limits` below.

CREATE VIEW catalog.edge_principals AS
SELECT k.key_id,
       k.secret_hash,
       k.tenant_id,
       k.team_id,
       k.user_id,
       k.allowed_models,
       (k.revoked_at IS NOT NULL)                      AS revoked,
       k.expires_at,
       COALESCE(k.redaction_policy, t.redaction_policy) AS redaction_policy,
       NULL::jsonb                                     AS limits,
       k.version
FROM catalog.api_keys k
LEFT JOIN catalog.teams t ON t.id = k.team_id;

CREATE VIEW catalog.principals_version AS
SELECT version FROM catalog.principals_version_state;
