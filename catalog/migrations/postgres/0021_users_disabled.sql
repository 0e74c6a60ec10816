-- As ../0021_users_disabled.sql, in PostgreSQL's 64-bit integers
-- (microseconds since 1970 do not fit INTEGER).
ALTER TABLE users ADD COLUMN disabled_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN sessions_after BIGINT NOT NULL DEFAULT 0;
