-- Grants (#22): who (a user, a group, an API key) holds which privilege
-- (read, write, maintain, manage) on which place (everything, a bucket, a
-- namespace, a table). A grant names a place, not an object: it covers
-- whatever is there now or later, as an API key's bucket scope always has.
-- bucket '' is everything; namespace '' the whole bucket (levels joined by
-- '.', which no level contains); table_name '' the whole namespace.
CREATE TABLE grants (
    grantee_kind  TEXT NOT NULL,                -- user, group, apikey
    grantee_id    TEXT NOT NULL,                -- user name, group name, API key id
    bucket        TEXT NOT NULL DEFAULT '',
    namespace     TEXT NOT NULL DEFAULT '',
    table_name    TEXT NOT NULL DEFAULT '',
    privilege     TEXT NOT NULL,                -- read, write, maintain, manage
    created_at    INTEGER NOT NULL,             -- Unix microseconds
    created_by    TEXT NOT NULL DEFAULT '',     -- the principal that granted, 'migration', 'role'
    origin        TEXT NOT NULL DEFAULT '',     -- 'policy': made by an S3 Tables resource policy (0017)
    PRIMARY KEY (grantee_kind, grantee_id, bucket, namespace, table_name, privilege)
);
CREATE INDEX grants_by_place ON grants(bucket, namespace, table_name);

-- grant_generation counts every change to grants, from any process: the
-- authorizer's in-memory index compares one integer to know it is current.
CREATE TABLE grant_generation (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    gen INTEGER NOT NULL
);
INSERT INTO grant_generation(id, gen) VALUES (1, 0);

CREATE TRIGGER grants_gen_insert AFTER INSERT ON grants
BEGIN
    UPDATE grant_generation SET gen = gen + 1 WHERE id = 1;
END;
CREATE TRIGGER grants_gen_delete AFTER DELETE ON grants
BEGIN
    UPDATE grant_generation SET gen = gen + 1 WHERE id = 1;
END;
CREATE TRIGGER grants_gen_update AFTER UPDATE ON grants
BEGIN
    UPDATE grant_generation SET gen = gen + 1 WHERE id = 1;
END;

-- A principal's grants go with it: a revoked, expired or minted key swept
-- by any statement, a deleted user.
CREATE TRIGGER grants_of_deleted_key AFTER DELETE ON api_keys
BEGIN
    DELETE FROM grants WHERE grantee_kind = 'apikey' AND grantee_id = OLD.id;
END;
CREATE TRIGGER grants_of_deleted_user AFTER DELETE ON users
BEGIN
    DELETE FROM grants WHERE grantee_kind = 'user' AND grantee_id = OLD.name;
END;

-- Today's roles become grants, so nothing anyone holds changes meaning: an
-- admin user manages everything, a read-only user reads everything; a
-- readwrite API key manages (and so writes and maintains) its bucket or
-- everything, a read-only key reads its bucket or everything.
INSERT INTO grants(grantee_kind, grantee_id, bucket, privilege, created_at, created_by)
    SELECT 'user', name, '', CASE role WHEN 'admin' THEN 'manage' ELSE 'read' END, created_at, 'migration'
    FROM users WHERE role IN ('admin', 'readonly');
INSERT INTO grants(grantee_kind, grantee_id, bucket, privilege, created_at, created_by)
    SELECT 'apikey', id, bucket, CASE role WHEN 'readwrite' THEN 'manage' ELSE 'read' END, created_at, 'migration'
    FROM api_keys WHERE role IN ('readwrite', 'readonly');
