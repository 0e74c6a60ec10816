-- Managed versioning (Lance commits coordinated through floe). A bucket opts
-- in with lance_managed_versioning; each version a client commits through
-- CreateTableVersion is one row here, and the primary key is what makes two
-- writers (two replicas) unable to accept the same version of one table.
ALTER TABLE buckets ADD COLUMN lance_managed_versioning INTEGER NOT NULL DEFAULT 0;

CREATE TABLE lance_versions (
    table_id       TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    version        INTEGER NOT NULL,
    manifest_path  TEXT NOT NULL,               -- canonical location of the final manifest
    manifest_size  INTEGER NOT NULL,
    e_tag          TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,            -- Unix microseconds
    -- Who committed it: the API key's id and name; '' for versions floe
    -- found in _versions/ (written before the table was managed).
    key_id         TEXT NOT NULL DEFAULT '',
    principal      TEXT NOT NULL DEFAULT '',
    -- 0 while the commit is being finalized (the row reserves the number;
    -- the manifest is being written to its final name), 1 once it is there.
    finalized      INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (table_id, version)
);

-- A table repointed at another dataset (RegisterTable with overwrite)
-- forgets the versions it recorded for the old one.
CREATE TRIGGER lance_versions_repointed AFTER UPDATE OF location ON tables
    WHEN NEW.location <> OLD.location
BEGIN
    DELETE FROM lance_versions WHERE table_id = NEW.id;
END;
