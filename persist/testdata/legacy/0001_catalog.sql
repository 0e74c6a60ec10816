-- Catalog core: buckets, namespaces, tables. Times are Unix nanoseconds (UTC).

CREATE TABLE buckets (
    name        TEXT PRIMARY KEY,
    format      TEXT NOT NULL DEFAULT '',      -- '' (unset), 'LANCE' or 'ICEBERG'
    arn         TEXT NOT NULL,
    owner       TEXT NOT NULL DEFAULT '',
    tags        TEXT NOT NULL DEFAULT '{}',    -- JSON object of strings
    created_at  INTEGER NOT NULL
);

-- name is the levels joined by '.', parent the same for the parent ('' at the
-- top). Levels cannot contain '.', so the join is unambiguous.
CREATE TABLE namespaces (
    bucket      TEXT NOT NULL REFERENCES buckets(name),
    name        TEXT NOT NULL,
    parent      TEXT NOT NULL,
    properties  TEXT NOT NULL DEFAULT '{}',
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (bucket, name)
);
CREATE INDEX namespaces_by_parent ON namespaces(bucket, parent, name);

-- One identifier space per namespace across formats: (bucket, namespace, name)
-- is unique whatever the format.
CREATE TABLE tables (
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
    created_at         INTEGER NOT NULL,
    modified_at        INTEGER NOT NULL,
    FOREIGN KEY (bucket, namespace) REFERENCES namespaces(bucket, name)
);
CREATE UNIQUE INDEX tables_by_name ON tables(bucket, namespace, name);
CREATE INDEX tables_by_format ON tables(format, bucket, namespace, name);
CREATE INDEX tables_by_location ON tables(location);
-- Declared-only Lance tables are refreshed by a stat on read; find them fast.
CREATE INDEX tables_declared ON tables(bucket, namespace, name) WHERE state = 'declared';
