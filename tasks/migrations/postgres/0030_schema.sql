-- On PostgreSQL: the same table as ../0030_tasks.sql with times in BIGINT
-- (INTEGER is 32 bits here). A later change adds a root file, overridden
-- here by name where PostgreSQL needs other SQL.

-- Lance maintenance tasks (the /lance/oss/v1 task API). A task belongs to a
-- table id, never a name, so a re-created table starts with none. Times are
-- Unix microseconds (UTC): the API shows microseconds, and pagination compares
-- the stored value, so nothing finer may hide in it. 0 = not reached yet.

CREATE TABLE lance_tasks (
    id             TEXT PRIMARY KEY,            -- 32 lower-case hex
    table_id       TEXT NOT NULL,
    task_type      TEXT NOT NULL,               -- lance_compact, lance_cleanup, ...
    params         TEXT NOT NULL DEFAULT '{}',  -- JSON object, defaults filled
    status         TEXT NOT NULL,               -- submitted, running, completed, failed
    job_id         TEXT NOT NULL DEFAULT '',    -- plugin job; '' until a runner took it
    created_at     BIGINT NOT NULL,
    started_at     BIGINT NOT NULL DEFAULT 0,
    completed_at   BIGINT NOT NULL DEFAULT 0,
    result         TEXT NOT NULL DEFAULT '{}',  -- JSON object
    error_code     TEXT NOT NULL DEFAULT '',
    error_message  TEXT NOT NULL DEFAULT ''
);
-- Listing (newest first) and the per-(table, type) quota count.
CREATE INDEX lance_tasks_by_table ON lance_tasks(table_id, task_type, created_at, id);
-- Job events find their task by job id.
CREATE INDEX lance_tasks_by_job ON lance_tasks(job_id) WHERE job_id <> '';
-- Startup finds unfinished tasks without a scan.
CREATE INDEX lance_tasks_open ON lance_tasks(status) WHERE status IN ('submitted', 'running');
