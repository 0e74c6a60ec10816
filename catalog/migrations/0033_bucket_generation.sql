-- bucket_generation counts changes to the buckets table, from any process:
-- the read cache (catalog/table_cache.go) serves a bucket row read before
-- a write that changed no bucket and no table (observations, sessions,
-- jobs) once this number and table_generation are where they were. (Here
-- a table change, rewriting its bucket's counters, moves it too;
-- PostgreSQL's version leaves those to table_generation.)
CREATE TABLE bucket_generation (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    gen INTEGER NOT NULL
);
INSERT INTO bucket_generation(id, gen) VALUES (1, 0);

CREATE TRIGGER buckets_gen_insert AFTER INSERT ON buckets
BEGIN
    UPDATE bucket_generation SET gen = gen + 1 WHERE id = 1;
END;

CREATE TRIGGER buckets_gen_delete AFTER DELETE ON buckets
BEGIN
    UPDATE bucket_generation SET gen = gen + 1 WHERE id = 1;
END;

CREATE TRIGGER buckets_gen_update AFTER UPDATE ON buckets
BEGIN
    UPDATE bucket_generation SET gen = gen + 1 WHERE id = 1;
END;
