-- Console search on PostgreSQL: the search_docs table of ../0023_search.sql,
-- kept by PL/pgSQL triggers, with a pg_trgm GIN index on its names in place
-- of SQLite's FTS5 table, so LIKE '%part%' (and a prefix) is answered from
-- the index. pg_trgm ships with PostgreSQL (contrib) and is a trusted
-- extension since PostgreSQL 13: a role that may create objects in the
-- database may create it; otherwise an administrator runs
-- CREATE EXTENSION pg_trgm once before floe starts.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE search_docs (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind       TEXT NOT NULL,
    bucket     TEXT COLLATE "C" NOT NULL,
    namespace  TEXT COLLATE "C" NOT NULL,
    name       TEXT COLLATE "C" NOT NULL,
    format     TEXT NOT NULL DEFAULT '',
    UNIQUE (kind, bucket, namespace, name)
);
CREATE INDEX search_docs_by_name ON search_docs USING gin (name gin_trgm_ops);

CREATE FUNCTION search_docs_keep() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    k TEXT;
BEGIN
    k := CASE TG_TABLE_NAME WHEN 'buckets' THEN 'bucket' WHEN 'namespaces' THEN 'namespace'
        WHEN 'tables' THEN 'table' ELSE 'view' END;
    -- Nested, as PL/pgSQL need not short-circuit and only tables have a state.
    IF TG_OP = 'UPDATE' AND k = 'table' THEN
        IF OLD.bucket = NEW.bucket AND OLD.namespace = NEW.namespace AND OLD.name = NEW.name
            AND (OLD.state = 'deregistered') = (NEW.state = 'deregistered') THEN
            RETURN NULL; -- declared → created happens on reads and must not churn the index
        END IF;
    END IF;
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        IF k = 'bucket' THEN
            DELETE FROM search_docs WHERE kind = k AND bucket = OLD.name AND namespace = '' AND name = OLD.name;
        ELSIF k = 'namespace' THEN
            DELETE FROM search_docs WHERE kind = k AND bucket = OLD.bucket AND namespace = OLD.name AND name = OLD.name;
        ELSE
            DELETE FROM search_docs WHERE kind = k AND bucket = OLD.bucket AND namespace = OLD.namespace AND name = OLD.name;
        END IF;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        IF k = 'bucket' THEN
            INSERT INTO search_docs(kind, bucket, namespace, name, format) VALUES (k, NEW.name, '', NEW.name, NEW.format);
        ELSIF k = 'namespace' THEN
            INSERT INTO search_docs(kind, bucket, namespace, name) VALUES (k, NEW.bucket, NEW.name, NEW.name);
        ELSIF k = 'view' THEN
            INSERT INTO search_docs(kind, bucket, namespace, name, format) VALUES (k, NEW.bucket, NEW.namespace, NEW.name, 'ICEBERG');
        ELSIF NEW.state <> 'deregistered' THEN
            INSERT INTO search_docs(kind, bucket, namespace, name, format) VALUES (k, NEW.bucket, NEW.namespace, NEW.name, NEW.format);
        END IF;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER search_buckets AFTER INSERT OR DELETE OR UPDATE OF name, format ON buckets
    FOR EACH ROW EXECUTE FUNCTION search_docs_keep();
CREATE TRIGGER search_namespaces AFTER INSERT OR DELETE OR UPDATE OF bucket, name ON namespaces
    FOR EACH ROW EXECUTE FUNCTION search_docs_keep();
CREATE TRIGGER search_tables AFTER INSERT OR DELETE OR UPDATE OF bucket, namespace, name, state ON tables
    FOR EACH ROW EXECUTE FUNCTION search_docs_keep();
CREATE TRIGGER search_views AFTER INSERT OR DELETE OR UPDATE OF bucket, namespace, name ON views
    FOR EACH ROW EXECUTE FUNCTION search_docs_keep();

INSERT INTO search_docs(kind, bucket, namespace, name, format) SELECT 'bucket', name, '', name, format FROM buckets;
INSERT INTO search_docs(kind, bucket, namespace, name) SELECT 'namespace', bucket, name, name FROM namespaces;
INSERT INTO search_docs(kind, bucket, namespace, name, format)
    SELECT 'table', bucket, namespace, name, format FROM tables WHERE state <> 'deregistered';
INSERT INTO search_docs(kind, bucket, namespace, name, format) SELECT 'view', bucket, namespace, name, 'ICEBERG' FROM views;
