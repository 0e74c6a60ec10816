-- The catalog's schema on PostgreSQL: the state SQLite reaches after
-- ../0001 … ../0007, in one file, because a PostgreSQL catalog starts
-- fresh. Times are Unix microseconds in BIGINT (INTEGER is 32 bits here);
-- the counters SQLite keeps with triggers are kept by PL/pgSQL triggers.
-- Names compare byte by byte (COLLATE "C"), as in SQLite, so listings page
-- in the same order whatever locale the database was created with.
-- A later change to the catalog's schema adds a root file; a file of the
-- same name here overrides it where PostgreSQL needs other SQL.

CREATE TABLE buckets (
    name         TEXT COLLATE "C" PRIMARY KEY,
    format       TEXT NOT NULL DEFAULT '',
    arn          TEXT NOT NULL,
    owner        TEXT NOT NULL DEFAULT '',
    tags         TEXT NOT NULL DEFAULT '{}',
    created_at   BIGINT NOT NULL,
    table_count  BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE namespaces (
    bucket       TEXT COLLATE "C" NOT NULL REFERENCES buckets(name),
    name         TEXT COLLATE "C" NOT NULL,
    parent       TEXT COLLATE "C" NOT NULL,
    properties   TEXT NOT NULL DEFAULT '{}',
    created_at   BIGINT NOT NULL,
    table_count  BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (bucket, name)
);
CREATE INDEX namespaces_by_parent ON namespaces(bucket, parent, name);

CREATE TABLE tables (
    id                 TEXT PRIMARY KEY,
    bucket             TEXT COLLATE "C" NOT NULL,
    namespace          TEXT COLLATE "C" NOT NULL,
    name               TEXT COLLATE "C" NOT NULL,
    format             TEXT NOT NULL,
    location           TEXT NOT NULL,
    metadata_location  TEXT NOT NULL DEFAULT '',
    version_token      TEXT NOT NULL,
    state              TEXT NOT NULL DEFAULT '',
    properties         TEXT NOT NULL DEFAULT '{}',
    created_at         BIGINT NOT NULL,
    modified_at        BIGINT NOT NULL,
    FOREIGN KEY (bucket, namespace) REFERENCES namespaces(bucket, name)
);
CREATE UNIQUE INDEX tables_by_name ON tables(bucket, namespace, name);
CREATE INDEX tables_by_format ON tables(format, bucket, namespace, name);
CREATE INDEX tables_by_location ON tables(location);
CREATE INDEX tables_declared ON tables(bucket, namespace, name) WHERE state = 'declared';
CREATE INDEX tables_listing ON tables(bucket, namespace, name, format, state);

CREATE TABLE users (
    name           TEXT PRIMARY KEY,
    password_hash  TEXT NOT NULL,
    role           TEXT NOT NULL,
    created_at     BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id                 TEXT PRIMARY KEY,
    name               TEXT NOT NULL,
    role               TEXT NOT NULL,
    bucket             TEXT NOT NULL DEFAULT '',
    secret_hash        BYTEA NOT NULL,
    created_at         BIGINT NOT NULL,
    last_used_at       BIGINT NOT NULL DEFAULT 0,
    expires_at         BIGINT NOT NULL DEFAULT 0,
    access_key_id      TEXT NOT NULL DEFAULT '',
    secret_access_key  TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX api_keys_by_hash ON api_keys(secret_hash);
CREATE INDEX api_keys_by_created ON api_keys(created_at);
CREATE UNIQUE INDEX api_keys_by_access_key ON api_keys(access_key_id) WHERE access_key_id <> '';

CREATE TABLE worker_tokens (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    secret_hash   BYTEA NOT NULL,
    created_at    BIGINT NOT NULL,
    last_used_at  BIGINT NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX worker_tokens_by_hash ON worker_tokens(secret_hash);

CREATE TABLE maintenance_configs (
    bucket      TEXT NOT NULL,
    table_id    TEXT NOT NULL DEFAULT '',
    kind        TEXT NOT NULL,
    status      TEXT NOT NULL,
    settings    TEXT NOT NULL DEFAULT '{}',
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (bucket, table_id, kind)
);
CREATE INDEX maintenance_configs_by_table ON maintenance_configs(table_id) WHERE table_id <> '';

CREATE TABLE table_generation (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    gen BIGINT NOT NULL
);
INSERT INTO table_generation(id, gen) VALUES (1, 0);

-- Visible (not deregistered) table counts per bucket and namespace, and the
-- generation of the tables table, kept in the changing transaction.
CREATE FUNCTION tables_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') AND OLD.state <> 'deregistered' THEN
        UPDATE buckets SET table_count = table_count - 1 WHERE name = OLD.bucket;
        UPDATE namespaces SET table_count = table_count - 1 WHERE bucket = OLD.bucket AND name = OLD.namespace;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.state <> 'deregistered' THEN
        UPDATE buckets SET table_count = table_count + 1 WHERE name = NEW.bucket;
        UPDATE namespaces SET table_count = table_count + 1 WHERE bucket = NEW.bucket AND name = NEW.namespace;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER tables_count_insert AFTER INSERT ON tables
    FOR EACH ROW EXECUTE FUNCTION tables_counts();
CREATE TRIGGER tables_count_delete AFTER DELETE ON tables
    FOR EACH ROW EXECUTE FUNCTION tables_counts();
CREATE TRIGGER tables_count_update AFTER UPDATE OF state, bucket, namespace ON tables
    FOR EACH ROW EXECUTE FUNCTION tables_counts();

CREATE FUNCTION tables_generation_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE table_generation SET gen = gen + 1 WHERE id = 1;
    RETURN NULL;
END $$;

CREATE TRIGGER tables_gen AFTER INSERT OR UPDATE OR DELETE ON tables
    FOR EACH ROW EXECUTE FUNCTION tables_generation_bump();

-- A dropped table or bucket takes its maintenance configuration with it.
CREATE FUNCTION maintenance_configs_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'tables' THEN
        DELETE FROM maintenance_configs WHERE table_id = OLD.id;
    ELSE
        DELETE FROM maintenance_configs WHERE bucket = OLD.name;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER maintenance_configs_table_gone AFTER DELETE ON tables
    FOR EACH ROW EXECUTE FUNCTION maintenance_configs_gone();
CREATE TRIGGER maintenance_configs_bucket_gone AFTER DELETE ON buckets
    FOR EACH ROW EXECUTE FUNCTION maintenance_configs_gone();
