-- Console sessions on PostgreSQL: the state SQLite reaches after ../0001
-- and ../0002. expiry is Unix microseconds in BIGINT.
CREATE TABLE sessions (
    token   TEXT PRIMARY KEY,
    data    BYTEA NOT NULL,
    expiry  BIGINT NOT NULL
);
CREATE INDEX sessions_by_expiry ON sessions(expiry);
