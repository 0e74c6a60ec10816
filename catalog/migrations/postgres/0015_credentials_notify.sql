-- Revocations reach every replica through floe_bus, from whichever process
-- made them. A statement that deleted API keys (a revoke, a worker token's
-- minted keys, the sweep of expired ones) notifies catalog.api_keys once;
-- each replica's key caches and OAuth bearers then re-check their keys
-- (catalog/revocations.go). Each deleted worker token notifies
-- catalog.worker_tokens with its id, so the replica holding a worker's
-- stream under it closes the stream and forgets the keys minted for it.
-- The payload is the persist/notify envelope, replica "" (the database).
CREATE OR REPLACE FUNCTION api_keys_deleted_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM gone) THEN
        PERFORM pg_notify('floe_bus', '{"r":"","t":"catalog.api_keys"}');
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION api_keys_deleted_notify();

CREATE OR REPLACE FUNCTION worker_tokens_deleted_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('floe_bus', json_build_object('r', '', 't', 'catalog.worker_tokens',
        'd', json_build_object('id', OLD.id))::text);
    RETURN NULL;
END $$;

CREATE TRIGGER worker_tokens_deleted AFTER DELETE ON worker_tokens
    FOR EACH ROW EXECUTE FUNCTION worker_tokens_deleted_notify();
