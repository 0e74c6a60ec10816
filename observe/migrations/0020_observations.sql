-- Observations: the last description of each object a worker looked at,
-- one row per (object id, format); newest observed_at wins. Times are Unix
-- milliseconds.

CREATE TABLE observations (
	object_id       TEXT NOT NULL,
	format          TEXT NOT NULL,
	observed_at     INTEGER NOT NULL,
	worker_id       TEXT NOT NULL DEFAULT '',
	attributes_json TEXT NOT NULL DEFAULT '{}',
	PRIMARY KEY (object_id, format)
);

CREATE INDEX observations_observed_at ON observations(observed_at);
