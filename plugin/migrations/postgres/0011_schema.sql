-- The plugin's schema on PostgreSQL: the state SQLite reaches after
-- ../0010 and ../0011, in one file. Times are Unix microseconds in BIGINT.
-- A later change adds a root file, overridden here by name where
-- PostgreSQL needs other SQL.

CREATE TABLE plugin_job_types (
	job_type           TEXT PRIMARY KEY,
	descriptor_version TEXT NOT NULL DEFAULT '',
	descriptor_json    TEXT NOT NULL,
	updated_at         BIGINT NOT NULL
);

CREATE TABLE plugin_job_settings (
	job_type     TEXT PRIMARY KEY,
	values_json  TEXT NOT NULL DEFAULT '{}',
	runtime_json TEXT NOT NULL DEFAULT '{}',
	updated_at   BIGINT NOT NULL
);

CREATE TABLE plugin_jobs (
	id               TEXT PRIMARY KEY,
	job_type         TEXT NOT NULL,
	lane             TEXT NOT NULL,
	object_id        TEXT NOT NULL DEFAULT '',
	dedupe_key       TEXT NOT NULL DEFAULT '',
	parameters_json  TEXT NOT NULL DEFAULT '{}',
	summary          TEXT NOT NULL DEFAULT '',
	source           TEXT NOT NULL DEFAULT '',
	state            TEXT NOT NULL,
	attempts         BIGINT NOT NULL DEFAULT 0,
	max_attempts     BIGINT NOT NULL DEFAULT 1,
	worker_id        TEXT NOT NULL DEFAULT '',
	percent          DOUBLE PRECISION NOT NULL DEFAULT 0,
	stage            TEXT NOT NULL DEFAULT '',
	message          TEXT NOT NULL DEFAULT '',
	metrics_json     TEXT NOT NULL DEFAULT '{}',
	result_json      TEXT NOT NULL DEFAULT '{}',
	result_summary   TEXT NOT NULL DEFAULT '',
	error            TEXT NOT NULL DEFAULT '',
	created_at       BIGINT NOT NULL,
	updated_at       BIGINT NOT NULL,
	started_at       BIGINT NOT NULL DEFAULT 0,
	finished_at      BIGINT NOT NULL DEFAULT 0,
	next_attempt_at  BIGINT NOT NULL DEFAULT 0,
	deadline_at      BIGINT NOT NULL DEFAULT 0,
	last_progress_at BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX plugin_jobs_state ON plugin_jobs(state, lane);
CREATE INDEX plugin_jobs_created ON plugin_jobs(created_at DESC, id DESC);
CREATE INDEX plugin_jobs_type ON plugin_jobs(job_type, created_at DESC);

CREATE TABLE plugin_job_events (
	job_id  TEXT NOT NULL,
	seq     BIGINT NOT NULL,
	at      BIGINT NOT NULL,
	message TEXT NOT NULL,
	PRIMARY KEY (job_id, seq)
);
