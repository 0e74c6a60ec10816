-- The audit trail and the outbox of change events: one row per audited
-- request (a write or a refusal on any surface, or a CLI command) and per
-- catalog change (a table created, committed or dropped; a job finished).
-- seq orders rows for keyset pages and for delivery to event sinks; id is
-- the event's stable CloudEvents id, which receivers dedupe on. Times are
-- Unix microseconds (persist.Micros).
CREATE TABLE audit_events (
	seq         BIGSERIAL PRIMARY KEY,
	id          TEXT NOT NULL UNIQUE,
	at          BIGINT NOT NULL,
	type        TEXT NOT NULL,
	surface     TEXT NOT NULL DEFAULT '',
	operation   TEXT NOT NULL DEFAULT '',
	writes      INTEGER NOT NULL DEFAULT 0,
	refused     INTEGER NOT NULL DEFAULT 0,
	principal   TEXT NOT NULL DEFAULT '',
	via         TEXT NOT NULL DEFAULT '',
	bucket      TEXT NOT NULL DEFAULT '',
	namespace   TEXT NOT NULL DEFAULT '',
	tbl         TEXT NOT NULL DEFAULT '',
	status      INTEGER NOT NULL DEFAULT 0,
	fault       TEXT NOT NULL DEFAULT '',
	request_id  TEXT NOT NULL DEFAULT '',
	client      TEXT NOT NULL DEFAULT '',
	method      TEXT NOT NULL DEFAULT '',
	path        TEXT NOT NULL DEFAULT '',
	duration_us BIGINT NOT NULL DEFAULT 0,
	data        TEXT NOT NULL DEFAULT ''
);

CREATE INDEX audit_events_at ON audit_events(at);
CREATE INDEX audit_events_resource ON audit_events(bucket, namespace, tbl, seq);
CREATE INDEX audit_events_principal ON audit_events(principal, seq);

-- Each event sink (a webhook, a NATS server) keeps how far it has been
-- delivered, and a lease so replicas sharing a PostgreSQL catalog take
-- turns delivering instead of all sending every event.
CREATE TABLE audit_sinks (
	name        TEXT PRIMARY KEY,
	delivered   BIGINT NOT NULL DEFAULT 0,
	holder      TEXT NOT NULL DEFAULT '',
	lease_until BIGINT NOT NULL DEFAULT 0
);
