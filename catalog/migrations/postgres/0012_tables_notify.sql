-- Every change to a table entry, from any process (a replica, the CLI),
-- also notifies the floe_bus channel at commit, so each replica's read
-- cache of table entries (catalog/table_cache.go) drops what it holds.
-- PostgreSQL folds identical notifications of one transaction into one, so
-- a bulk change costs one message. The payload is the persist/notify
-- envelope: replica "" (the database itself), topic catalog.tables.
CREATE OR REPLACE FUNCTION tables_generation_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE table_generation SET gen = gen + 1 WHERE id = 1;
    PERFORM pg_notify('floe_bus', '{"r":"","t":"catalog.tables"}');
    RETURN NULL;
END $$;
