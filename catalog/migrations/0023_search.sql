-- Console search over buckets, namespaces, tables and views by any part of
-- their names. search_docs holds one row per visible entry (deregistered
-- tables are left out), kept by triggers in the changing transaction, so
-- every writer — Lance REST, Iceberg REST, S3 Tables, the CLI, a replica —
-- keeps it whole. search_fts indexes its names by trigram (FTS5's trigram
-- tokenizer): a substring of three or more characters is found through the
-- index, not a scan of 100,000 names; shorter queries match name prefixes
-- through search_docs_by_name. PostgreSQL's postgres/0023_search.sql has
-- the same table with a pg_trgm index in place of the FTS5 table.
CREATE TABLE search_docs (
    id         INTEGER PRIMARY KEY, -- stable across VACUUM: the FTS rows point at it
    kind       TEXT NOT NULL,       -- 'bucket', 'namespace', 'table' or 'view'
    bucket     TEXT NOT NULL,
    namespace  TEXT NOT NULL,       -- '' for a bucket; the namespace itself for a namespace
    name       TEXT NOT NULL,       -- what the query matches: the bucket's, namespace's, table's or view's name
    format     TEXT NOT NULL DEFAULT '',
    UNIQUE (kind, bucket, namespace, name)
);
CREATE INDEX search_docs_by_name ON search_docs(name);

CREATE VIRTUAL TABLE search_fts USING fts5(name, content = 'search_docs', content_rowid = 'id', tokenize = 'trigram');

CREATE TRIGGER search_docs_insert AFTER INSERT ON search_docs
BEGIN
    INSERT INTO search_fts(rowid, name) VALUES (NEW.id, NEW.name);
END;
CREATE TRIGGER search_docs_delete AFTER DELETE ON search_docs
BEGIN
    INSERT INTO search_fts(search_fts, rowid, name) VALUES ('delete', OLD.id, OLD.name);
END;

CREATE TRIGGER search_buckets_insert AFTER INSERT ON buckets
BEGIN
    INSERT INTO search_docs(kind, bucket, namespace, name, format) VALUES ('bucket', NEW.name, '', NEW.name, NEW.format);
END;
CREATE TRIGGER search_buckets_delete AFTER DELETE ON buckets
BEGIN
    DELETE FROM search_docs WHERE kind = 'bucket' AND bucket = OLD.name AND namespace = '' AND name = OLD.name;
END;
CREATE TRIGGER search_buckets_update AFTER UPDATE OF name, format ON buckets
BEGIN
    DELETE FROM search_docs WHERE kind = 'bucket' AND bucket = OLD.name AND namespace = '' AND name = OLD.name;
    INSERT INTO search_docs(kind, bucket, namespace, name, format) VALUES ('bucket', NEW.name, '', NEW.name, NEW.format);
END;

CREATE TRIGGER search_namespaces_insert AFTER INSERT ON namespaces
BEGIN
    INSERT INTO search_docs(kind, bucket, namespace, name) VALUES ('namespace', NEW.bucket, NEW.name, NEW.name);
END;
CREATE TRIGGER search_namespaces_delete AFTER DELETE ON namespaces
BEGIN
    DELETE FROM search_docs WHERE kind = 'namespace' AND bucket = OLD.bucket AND namespace = OLD.name AND name = OLD.name;
END;
CREATE TRIGGER search_namespaces_update AFTER UPDATE OF bucket, name ON namespaces
BEGIN
    DELETE FROM search_docs WHERE kind = 'namespace' AND bucket = OLD.bucket AND namespace = OLD.name AND name = OLD.name;
    INSERT INTO search_docs(kind, bucket, namespace, name) VALUES ('namespace', NEW.bucket, NEW.name, NEW.name);
END;

CREATE TRIGGER search_tables_insert AFTER INSERT ON tables WHEN NEW.state <> 'deregistered'
BEGIN
    INSERT INTO search_docs(kind, bucket, namespace, name, format) VALUES ('table', NEW.bucket, NEW.namespace, NEW.name, NEW.format);
END;
CREATE TRIGGER search_tables_delete AFTER DELETE ON tables
BEGIN
    DELETE FROM search_docs WHERE kind = 'table' AND bucket = OLD.bucket AND namespace = OLD.namespace AND name = OLD.name;
END;
-- A state change other than to or from deregistered leaves the row alone
-- (declared → created happens on reads and must not churn the index).
CREATE TRIGGER search_tables_update AFTER UPDATE OF bucket, namespace, name, state ON tables
    WHEN OLD.bucket <> NEW.bucket OR OLD.namespace <> NEW.namespace OR OLD.name <> NEW.name
        OR (OLD.state = 'deregistered') <> (NEW.state = 'deregistered')
BEGIN
    DELETE FROM search_docs WHERE kind = 'table' AND bucket = OLD.bucket AND namespace = OLD.namespace AND name = OLD.name;
    INSERT INTO search_docs(kind, bucket, namespace, name, format)
        SELECT 'table', NEW.bucket, NEW.namespace, NEW.name, NEW.format WHERE NEW.state <> 'deregistered';
END;

CREATE TRIGGER search_views_insert AFTER INSERT ON views
BEGIN
    INSERT INTO search_docs(kind, bucket, namespace, name, format) VALUES ('view', NEW.bucket, NEW.namespace, NEW.name, 'ICEBERG');
END;
CREATE TRIGGER search_views_delete AFTER DELETE ON views
BEGIN
    DELETE FROM search_docs WHERE kind = 'view' AND bucket = OLD.bucket AND namespace = OLD.namespace AND name = OLD.name;
END;
CREATE TRIGGER search_views_update AFTER UPDATE OF bucket, namespace, name ON views
BEGIN
    DELETE FROM search_docs WHERE kind = 'view' AND bucket = OLD.bucket AND namespace = OLD.namespace AND name = OLD.name;
    INSERT INTO search_docs(kind, bucket, namespace, name, format) VALUES ('view', NEW.bucket, NEW.namespace, NEW.name, 'ICEBERG');
END;

INSERT INTO search_docs(kind, bucket, namespace, name, format) SELECT 'bucket', name, '', name, format FROM buckets;
INSERT INTO search_docs(kind, bucket, namespace, name) SELECT 'namespace', bucket, name, name FROM namespaces;
INSERT INTO search_docs(kind, bucket, namespace, name, format)
    SELECT 'table', bucket, namespace, name, format FROM tables WHERE state <> 'deregistered';
INSERT INTO search_docs(kind, bucket, namespace, name, format) SELECT 'view', bucket, namespace, name, 'ICEBERG' FROM views;
