-- Grants (#22), as ../0016_grants.sql says, in PostgreSQL's dialect: times
-- in BIGINT, names compared byte by byte, the generation kept by a
-- statement trigger that also notifies floe_bus (topic catalog.grants), so
-- every replica's authorizer index hears another's change at commit.
CREATE TABLE grants (
    grantee_kind  TEXT COLLATE "C" NOT NULL,
    grantee_id    TEXT COLLATE "C" NOT NULL,
    bucket        TEXT COLLATE "C" NOT NULL DEFAULT '',
    namespace     TEXT COLLATE "C" NOT NULL DEFAULT '',
    table_name    TEXT COLLATE "C" NOT NULL DEFAULT '',
    privilege     TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    created_by    TEXT NOT NULL DEFAULT '',
    origin        TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (grantee_kind, grantee_id, bucket, namespace, table_name, privilege)
);
CREATE INDEX grants_by_place ON grants(bucket, namespace, table_name);

CREATE TABLE grant_generation (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    gen BIGINT NOT NULL
);
INSERT INTO grant_generation(id, gen) VALUES (1, 0);

CREATE FUNCTION grants_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE grant_generation SET gen = gen + 1 WHERE id = 1;
    PERFORM pg_notify('floe_bus', '{"r":"","t":"catalog.grants"}');
    RETURN NULL;
END $$;
CREATE TRIGGER grants_changed AFTER INSERT OR UPDATE OR DELETE ON grants
    FOR EACH STATEMENT EXECUTE FUNCTION grants_changed();

CREATE FUNCTION grants_of_deleted_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM grants WHERE grantee_kind = 'apikey' AND grantee_id = OLD.id;
    RETURN NULL;
END $$;
CREATE TRIGGER grants_of_deleted_key AFTER DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION grants_of_deleted_key();

CREATE FUNCTION grants_of_deleted_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM grants WHERE grantee_kind = 'user' AND grantee_id = OLD.name;
    RETURN NULL;
END $$;
CREATE TRIGGER grants_of_deleted_user AFTER DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION grants_of_deleted_user();

INSERT INTO grants(grantee_kind, grantee_id, bucket, privilege, created_at, created_by)
    SELECT 'user', name, '', CASE role WHEN 'admin' THEN 'manage' ELSE 'read' END, created_at, 'migration'
    FROM users WHERE role IN ('admin', 'readonly');
INSERT INTO grants(grantee_kind, grantee_id, bucket, privilege, created_at, created_by)
    SELECT 'apikey', id, bucket, CASE role WHEN 'readwrite' THEN 'manage' ELSE 'read' END, created_at, 'migration'
    FROM api_keys WHERE role IN ('readwrite', 'readonly');
