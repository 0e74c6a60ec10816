-- scs console sessions. Databases from before per-owner migrations already
-- hold this table (created by the catalog's 0002_auth), hence IF NOT EXISTS.
CREATE TABLE IF NOT EXISTS sessions (
    token   TEXT PRIMARY KEY,
    data    BLOB NOT NULL,
    expiry  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_expiry ON sessions(expiry);
