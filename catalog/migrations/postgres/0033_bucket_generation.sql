-- As ../0033_bucket_generation.sql: a number that changes with a bucket's
-- row. Once per statement, and only for a statement on buckets itself: a
-- table change rewrites its bucket's counters from inside the tables'
-- triggers (depth 2 here), and the table generation already moves for
-- it, which the read cache checks beside this one; bumping here too
-- would rewrite this single row twice more per table created.
CREATE TABLE bucket_generation (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    gen BIGINT NOT NULL
);
INSERT INTO bucket_generation(id, gen) VALUES (1, 0);

CREATE FUNCTION bucket_generation_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pg_trigger_depth() = 1 THEN
        UPDATE bucket_generation SET gen = gen + 1 WHERE id = 1;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER buckets_gen AFTER INSERT OR UPDATE OR DELETE ON buckets
    FOR EACH STATEMENT EXECUTE FUNCTION bucket_generation_bump();
