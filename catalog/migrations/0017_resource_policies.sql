-- S3 Tables resource policies (PutTableBucketPolicy, PutTablePolicy): a
-- policy is translated into grants on its place (grants.origin 'policy');
-- the document the client sent is kept beside them so GetPolicy answers it
-- unchanged (Terraform compares what it put with what it reads) while the
-- grants it made are still exactly those (fingerprint); once someone
-- changed them elsewhere, GetPolicy writes the policy from the grants.
CREATE TABLE resource_policies (
    bucket       TEXT NOT NULL,
    namespace    TEXT NOT NULL DEFAULT '',   -- '' for a table bucket's policy
    table_name   TEXT NOT NULL DEFAULT '',
    document     TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,              -- SHA-256 of the grants it made
    updated_at   INTEGER NOT NULL,           -- Unix microseconds
    PRIMARY KEY (bucket, namespace, table_name)
);
