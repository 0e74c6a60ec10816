-- As ../0027_tables_written.sql.
CREATE INDEX tables_written ON tables(bucket, namespace, format, name, state) WHERE state <> 'declared';
-- The declared half, in the shape the listing's filter (format, bucket,
-- namespace, name order) seeks by; it replaces the one without format.
DROP INDEX tables_declared;
CREATE INDEX tables_declared ON tables(format, bucket, namespace, name) WHERE state = 'declared';
