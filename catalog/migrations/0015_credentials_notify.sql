-- PostgreSQL replicas hear of revoked API keys and worker tokens through
-- NOTIFY (see migrations/postgres/0015_credentials_notify.sql); SQLite
-- serves one process, which revokes in its own memory too, so it needs
-- nothing. This file keeps the two folders' version lists equal.
SELECT 1;
