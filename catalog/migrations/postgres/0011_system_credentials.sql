-- What floe itself made a credential for ('' = made by a person), so the
-- console can mark system credentials and warn before they are revoked.
ALTER TABLE api_keys ADD COLUMN system_role TEXT NOT NULL DEFAULT '';
ALTER TABLE worker_tokens ADD COLUMN system_role TEXT NOT NULL DEFAULT '';
