-- buckets.table_gen counts every change to the tables of one bucket, from
-- any process, as table_generation counts them for the whole catalog. A
-- summary kept per bucket (the buckets page's sums) rereads only the
-- buckets whose number moved, not every table of the catalog.
ALTER TABLE buckets ADD COLUMN table_gen INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER tables_bucket_gen_insert AFTER INSERT ON tables
BEGIN
    UPDATE buckets SET table_gen = table_gen + 1 WHERE name = NEW.bucket;
END;

CREATE TRIGGER tables_bucket_gen_delete AFTER DELETE ON tables
BEGIN
    UPDATE buckets SET table_gen = table_gen + 1 WHERE name = OLD.bucket;
END;

CREATE TRIGGER tables_bucket_gen_update AFTER UPDATE ON tables
BEGIN
    UPDATE buckets SET table_gen = table_gen + 1 WHERE name = OLD.bucket OR name = NEW.bucket;
END;
