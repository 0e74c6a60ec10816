-- S3 Tables surface: every API key gains a SigV4 access key pair, and
-- maintenance configuration is stored per bucket and per table.

-- The SigV4 secret is kept as it was issued: verifying a signature means
-- recomputing the HMAC with it, so a hash would not do (AWS, MinIO and
-- SeaweedFS keep theirs the same way). '' = a key made before this migration,
-- which has no SigV4 pair.
ALTER TABLE api_keys ADD COLUMN access_key_id TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN secret_access_key TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX api_keys_by_access_key ON api_keys(access_key_id) WHERE access_key_id <> '';

-- table_id '' is the bucket-level configuration; kind is the S3 Tables
-- maintenance type (icebergCompaction, icebergSnapshotManagement,
-- icebergUnreferencedFileRemoval); settings is the JSON object of its
-- settings as floe stores them.
CREATE TABLE maintenance_configs (
    bucket      TEXT NOT NULL,
    table_id    TEXT NOT NULL DEFAULT '',
    kind        TEXT NOT NULL,
    status      TEXT NOT NULL,             -- 'enabled' or 'disabled'
    settings    TEXT NOT NULL DEFAULT '{}',
    updated_at  INTEGER NOT NULL,              -- Unix microseconds
    PRIMARY KEY (bucket, table_id, kind)
);
CREATE INDEX maintenance_configs_by_table ON maintenance_configs(table_id) WHERE table_id <> '';

-- A dropped table or bucket takes its configuration with it, so a table or
-- bucket re-created under the same name starts from the defaults.
CREATE TRIGGER maintenance_configs_table_gone AFTER DELETE ON tables
BEGIN
    DELETE FROM maintenance_configs WHERE table_id = OLD.id;
END;

CREATE TRIGGER maintenance_configs_bucket_gone AFTER DELETE ON buckets
BEGIN
    DELETE FROM maintenance_configs WHERE bucket = OLD.name;
END;
