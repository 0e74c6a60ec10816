-- Kept observations (observe/history.go): the figures of a table each
-- time a worker's observation changed them, so trend charts have a past.
-- One row per (object, format, time); the latest observation itself stays
-- in observations. Bounded by a retention age and a per-object cap,
-- pruned hourly. observed_at is Unix microseconds; a figure the
-- observation did not carry is NULL.
CREATE TABLE observation_points (
    object_id    TEXT NOT NULL,
    format       TEXT NOT NULL,
    observed_at  BIGINT NOT NULL,
    row_count    BIGINT,
    bytes        BIGINT,
    version      BIGINT,
    PRIMARY KEY (object_id, format, observed_at)
);
CREATE INDEX observation_points_by_time ON observation_points(observed_at);
