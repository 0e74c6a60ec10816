-- As ../0029_bucket_table_gen.sql: a change counter per bucket's tables.
ALTER TABLE buckets ADD COLUMN table_gen BIGINT NOT NULL DEFAULT 0;

CREATE FUNCTION tables_bucket_gen_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE buckets SET table_gen = table_gen + 1 WHERE name = OLD.bucket;
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.bucket <> OLD.bucket) THEN
        UPDATE buckets SET table_gen = table_gen + 1 WHERE name = NEW.bucket;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER tables_bucket_gen AFTER INSERT OR UPDATE OR DELETE ON tables
    FOR EACH ROW EXECUTE FUNCTION tables_bucket_gen_bump();
