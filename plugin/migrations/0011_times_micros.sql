-- One time encoding across floe (persist.Micros): Unix microseconds, 0 for
-- "not set". The plugin stored milliseconds until now.
UPDATE plugin_job_types SET updated_at = updated_at * 1000;
UPDATE plugin_job_settings SET updated_at = updated_at * 1000;
UPDATE plugin_jobs SET created_at = created_at * 1000, updated_at = updated_at * 1000,
    started_at = started_at * 1000, finished_at = finished_at * 1000,
    next_attempt_at = next_attempt_at * 1000, deadline_at = deadline_at * 1000,
    last_progress_at = last_progress_at * 1000;
UPDATE plugin_job_events SET at = at * 1000;
