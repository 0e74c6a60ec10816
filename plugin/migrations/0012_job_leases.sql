-- Replicas: a job belongs to the floe process (replica) that holds its
-- lease. owner is that replica's id ('' = released: any replica with a
-- capable worker may claim it); lease_until (Unix µs) is renewed by the
-- owner's heartbeat, and once it passes another replica may take the job.
ALTER TABLE plugin_jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE plugin_jobs ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
-- finish_request ('canceled' or 'expired') asks the holder to end the
-- job: an operator pressed Cancel on a replica that does not hold it.
ALTER TABLE plugin_jobs ADD COLUMN finish_request TEXT NOT NULL DEFAULT '';
ALTER TABLE plugin_jobs ADD COLUMN finish_reason TEXT NOT NULL DEFAULT '';
CREATE INDEX plugin_jobs_lease ON plugin_jobs(state, lease_until);
CREATE INDEX plugin_jobs_dedupe ON plugin_jobs(dedupe_key);

-- One row per job type: when a replica last started its scheduled
-- detection. A replica starts one only after winning a conditional update
-- of this row, so detection runs once per interval across the group.
CREATE TABLE plugin_detection_runs (
	job_type   TEXT PRIMARY KEY,
	started_at BIGINT NOT NULL,
	owner      TEXT NOT NULL DEFAULT ''
);
