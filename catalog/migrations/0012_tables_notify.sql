-- PostgreSQL replicas hear of every change to tables through NOTIFY (see
-- migrations/postgres/0012_tables_notify.sql); SQLite serves one process
-- and keeps no table cache, so it needs nothing. This file keeps the two
-- folders' version lists equal.
SELECT 1;
