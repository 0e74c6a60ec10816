-- S3 Tables resource policies, as ../0017_resource_policies.sql says, in
-- PostgreSQL's dialect (times in BIGINT, names compared byte by byte).
CREATE TABLE resource_policies (
    bucket       TEXT COLLATE "C" NOT NULL,
    namespace    TEXT COLLATE "C" NOT NULL DEFAULT '',
    table_name   TEXT COLLATE "C" NOT NULL DEFAULT '',
    document     TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    updated_at   BIGINT NOT NULL,
    PRIMARY KEY (bucket, namespace, table_name)
);
