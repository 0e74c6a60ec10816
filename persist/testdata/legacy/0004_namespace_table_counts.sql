-- namespaces.table_count: visible (not deregistered) tables directly in the
-- namespace, kept by triggers like buckets.table_count, so the console's
-- page count for a namespace of 10,000 tables reads one row.
ALTER TABLE namespaces ADD COLUMN table_count INTEGER NOT NULL DEFAULT 0;
UPDATE namespaces SET table_count = (SELECT COUNT(*) FROM tables t
    WHERE t.bucket = namespaces.bucket AND t.namespace = namespaces.name AND t.state <> 'deregistered');

CREATE TRIGGER tables_ns_count_insert AFTER INSERT ON tables WHEN NEW.state <> 'deregistered'
BEGIN
    UPDATE namespaces SET table_count = table_count + 1 WHERE bucket = NEW.bucket AND name = NEW.namespace;
END;

CREATE TRIGGER tables_ns_count_delete AFTER DELETE ON tables WHEN OLD.state <> 'deregistered'
BEGIN
    UPDATE namespaces SET table_count = table_count - 1 WHERE bucket = OLD.bucket AND name = OLD.namespace;
END;

CREATE TRIGGER tables_ns_count_update AFTER UPDATE OF state, bucket, namespace ON tables
BEGIN
    UPDATE namespaces SET table_count = table_count - 1
        WHERE bucket = OLD.bucket AND name = OLD.namespace AND OLD.state <> 'deregistered';
    UPDATE namespaces SET table_count = table_count + 1
        WHERE bucket = NEW.bucket AND name = NEW.namespace AND NEW.state <> 'deregistered';
END;
