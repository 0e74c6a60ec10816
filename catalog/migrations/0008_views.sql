-- Iceberg views: a second kind of catalog entry beside tables. A view owns
-- no data, only a chain of view-metadata files under its location; the
-- entry points at the current one. Names are shared with tables: the
-- catalog refuses a view named like a table of its namespace and the other
-- way round (checked in the same write transaction as the insert).
CREATE TABLE views (
    id                 TEXT PRIMARY KEY,
    bucket             TEXT NOT NULL,
    namespace          TEXT NOT NULL,
    name               TEXT NOT NULL,
    location           TEXT NOT NULL,
    metadata_location  TEXT NOT NULL,
    version_token      TEXT NOT NULL,
    created_at         INTEGER NOT NULL,
    modified_at        INTEGER NOT NULL,
    FOREIGN KEY (bucket, namespace) REFERENCES namespaces(bucket, name)
);
CREATE UNIQUE INDEX views_by_name ON views(bucket, namespace, name);
