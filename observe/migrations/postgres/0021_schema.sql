-- Observations on PostgreSQL: the state SQLite reaches after ../0020 and
-- ../0021. observed_at is Unix microseconds in BIGINT.
CREATE TABLE observations (
	object_id       TEXT NOT NULL,
	format          TEXT NOT NULL,
	observed_at     BIGINT NOT NULL,
	worker_id       TEXT NOT NULL DEFAULT '',
	attributes_json TEXT NOT NULL DEFAULT '{}',
	PRIMARY KEY (object_id, format)
);

CREATE INDEX observations_observed_at ON observations(observed_at);
