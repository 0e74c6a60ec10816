-- Iceberg views (see ../0008_views.sql): a second kind of catalog entry,
-- sharing the name space of tables in each namespace.
CREATE TABLE views (
    id                 TEXT PRIMARY KEY,
    bucket             TEXT COLLATE "C" NOT NULL,
    namespace          TEXT COLLATE "C" NOT NULL,
    name               TEXT COLLATE "C" NOT NULL,
    location           TEXT NOT NULL,
    metadata_location  TEXT NOT NULL,
    version_token      TEXT NOT NULL,
    created_at         BIGINT NOT NULL,
    modified_at        BIGINT NOT NULL,
    FOREIGN KEY (bucket, namespace) REFERENCES namespaces(bucket, name)
);
CREATE UNIQUE INDEX views_by_name ON views(bucket, namespace, name);
