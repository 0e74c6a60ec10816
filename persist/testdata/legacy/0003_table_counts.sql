-- Covering index for counts and filtered listings: CountTables reads only
-- the index, never the rows.
CREATE INDEX tables_listing ON tables(bucket, namespace, name, format, state);

-- buckets.table_count is the number of visible (not deregistered) tables,
-- kept by triggers inside the same transaction as the change, so listing
-- buckets never counts tables (a bucket may hold 10,000) and cannot drift,
-- whoever writes the tables table.
ALTER TABLE buckets ADD COLUMN table_count INTEGER NOT NULL DEFAULT 0;
UPDATE buckets SET table_count =
    (SELECT COUNT(*) FROM tables t WHERE t.bucket = buckets.name AND t.state <> 'deregistered');

CREATE TRIGGER tables_count_insert AFTER INSERT ON tables WHEN NEW.state <> 'deregistered'
BEGIN
    UPDATE buckets SET table_count = table_count + 1 WHERE name = NEW.bucket;
END;

CREATE TRIGGER tables_count_delete AFTER DELETE ON tables WHEN OLD.state <> 'deregistered'
BEGIN
    UPDATE buckets SET table_count = table_count - 1 WHERE name = OLD.bucket;
END;

CREATE TRIGGER tables_count_update AFTER UPDATE OF state, bucket ON tables
BEGIN
    UPDATE buckets SET table_count = table_count - 1 WHERE name = OLD.bucket AND OLD.state <> 'deregistered';
    UPDATE buckets SET table_count = table_count + 1 WHERE name = NEW.bucket AND NEW.state <> 'deregistered';
END;
