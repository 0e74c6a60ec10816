-- Console users, scs sessions, API keys and worker tokens.

CREATE TABLE users (
    name           TEXT PRIMARY KEY,
    password_hash  TEXT NOT NULL,             -- bcrypt
    role           TEXT NOT NULL,
    created_at     INTEGER NOT NULL
);

CREATE TABLE sessions (
    token   TEXT PRIMARY KEY,
    data    BLOB NOT NULL,
    expiry  INTEGER NOT NULL                  -- Unix nanoseconds
);
CREATE INDEX sessions_by_expiry ON sessions(expiry);

-- secret_hash is SHA-256 of the secret: the secrets are 238-bit random, so a
-- slow hash buys nothing and would cost every API call.
CREATE TABLE api_keys (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    role          TEXT NOT NULL,
    bucket        TEXT NOT NULL DEFAULT '',   -- '' = every bucket
    secret_hash   BLOB NOT NULL,
    created_at    INTEGER NOT NULL,
    last_used_at  INTEGER NOT NULL DEFAULT 0,
    expires_at    INTEGER NOT NULL DEFAULT 0  -- 0 = never
);
CREATE UNIQUE INDEX api_keys_by_hash ON api_keys(secret_hash);
CREATE INDEX api_keys_by_created ON api_keys(created_at);

CREATE TABLE worker_tokens (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    secret_hash   BLOB NOT NULL,
    created_at    INTEGER NOT NULL,
    last_used_at  INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX worker_tokens_by_hash ON worker_tokens(secret_hash);
