-- A console user can be disabled (kept, but refused at sign-in and on every
-- request) and have every session signed in before a moment refused
-- (a password reset or a disable signs them out). Microseconds; 0 = never.
ALTER TABLE users ADD COLUMN disabled_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN sessions_after INTEGER NOT NULL DEFAULT 0;
