-- PostgreSQL: ../0018_soft_delete.sql with BIGINT where a column holds
-- microseconds, a size or a version (INTEGER is 32 bits here).
-- Nothing deleted by accident (issue 24): protection, soft delete with a
-- hold, undrop and purge. Tables and namespaces are protected by their
-- floe.protected property (it travels with the format's own properties);
-- a bucket has no properties, so it gets a column.
ALTER TABLE buckets ADD COLUMN protected INTEGER NOT NULL DEFAULT 0;
-- The bucket's soft-delete hold in microseconds; -1 = the server's default
-- (catalog_settings soft_delete_hold, else the store's option).
ALTER TABLE buckets ADD COLUMN soft_delete_hold BIGINT NOT NULL DEFAULT -1;
-- 0 for a live bucket. A deleted bucket that still holds recently deleted
-- tables keeps its row (its name stays taken) with the time it was deleted
-- and the drop id its cascade gave its tables, until the last one is
-- purged; every reader but the recently-deleted ones skips it.
ALTER TABLE buckets ADD COLUMN deleted_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE buckets ADD COLUMN deleted_drop_id TEXT NOT NULL DEFAULT '';

-- A recently deleted table: the entry as it was (the same columns as
-- tables), moved here by a drop so its name is free and no listing of
-- tables sees it, while its data stays where it is until purge_at.
CREATE TABLE deleted_tables (
    id                 TEXT PRIMARY KEY,
    bucket             TEXT NOT NULL,
    namespace          TEXT NOT NULL,
    name               TEXT NOT NULL,
    format             TEXT NOT NULL,
    location           TEXT NOT NULL,
    metadata_location  TEXT NOT NULL DEFAULT '',
    version_token      TEXT NOT NULL,
    state              TEXT NOT NULL DEFAULT '',
    properties         TEXT NOT NULL DEFAULT '{}',
    created_at         BIGINT NOT NULL,
    modified_at        BIGINT NOT NULL,
    tags               TEXT NOT NULL DEFAULT '{}',
    deleted_at         BIGINT NOT NULL,           -- Unix microseconds
    purge_at           BIGINT NOT NULL,           -- when the hold ends
    -- 1: the hold's end deletes the data (a drop, a purge, a cascade);
    -- 0: it forgets the entry and keeps every file (an Iceberg drop
    -- without purge).
    purge_data         INTEGER NOT NULL,
    deleted_by         TEXT NOT NULL DEFAULT '',   -- who dropped it: "apikey:k1", "user:admin", "cli"
    forced             INTEGER NOT NULL DEFAULT 0, -- 1: the drop overrode protection
    reason             TEXT NOT NULL DEFAULT '',   -- drop, cascade, overwrite, bucket
    drop_id            TEXT NOT NULL DEFAULT '',   -- shared by what one operation dropped
    -- A purge in progress: the replica holding it until claimed_until, so
    -- two replicas never delete one table's data at once.
    claimed_by         TEXT NOT NULL DEFAULT '',
    claimed_until      BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX deleted_tables_by_bucket ON deleted_tables(bucket, deleted_at);
CREATE INDEX deleted_tables_by_purge ON deleted_tables(purge_at);
CREATE INDEX deleted_tables_by_location ON deleted_tables(location);
CREATE INDEX deleted_tables_by_name ON deleted_tables(bucket, namespace, name);

-- The managed-versioning record of a recently deleted table, kept so an
-- undrop brings the record back with the entry (lance_versions rows go
-- with their table's row).
CREATE TABLE deleted_lance_versions (
    table_id       TEXT NOT NULL,
    version        BIGINT NOT NULL,
    manifest_path  TEXT NOT NULL,
    manifest_size  BIGINT NOT NULL,
    e_tag          TEXT NOT NULL DEFAULT '',
    created_at     BIGINT NOT NULL,
    key_id         TEXT NOT NULL DEFAULT '',
    principal      TEXT NOT NULL DEFAULT '',
    finalized      INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (table_id, version)
);

-- Namespaces a cascade (or a drop) removed while recently deleted tables
-- lived in them, so an undrop into a namespace that is gone brings back
-- its properties too. Kept while a recently deleted table of the bucket
-- names the namespace.
CREATE TABLE deleted_namespaces (
    bucket      TEXT NOT NULL,
    name        TEXT NOT NULL,
    parent      TEXT NOT NULL,
    properties  TEXT NOT NULL DEFAULT '{}',
    created_at  BIGINT NOT NULL,
    deleted_at  BIGINT NOT NULL,
    PRIMARY KEY (bucket, name, deleted_at)
);

-- Settings of the whole catalog: soft_delete_hold (microseconds), written
-- by floe serve from --soft-delete-hold so the CLI applies the same hold.
CREATE TABLE catalog_settings (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);
