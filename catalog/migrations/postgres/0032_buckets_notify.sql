-- Every change to a bucket's row, from any process (a replica, the CLI:
-- protection, the soft-delete hold, managed versioning, a delete), notifies
-- the floe_bus channel at commit on the tables topic, so each replica's
-- read cache (catalog/table_cache.go), which keeps buckets beside table
-- entries, drops what it holds. Once per statement: a table change also
-- rewrites its bucket's counters, and PostgreSQL folds the identical
-- notifications of one transaction into one.
CREATE FUNCTION buckets_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('floe_bus', '{"r":"","t":"catalog.tables"}');
    RETURN NULL;
END $$;

CREATE TRIGGER buckets_notify AFTER INSERT OR UPDATE OR DELETE ON buckets
    FOR EACH STATEMENT EXECUTE FUNCTION buckets_changed_notify();
