-- One time encoding across floe (persist.Micros): Unix microseconds, 0 for
-- "not set". The catalog stored nanoseconds until now; integer division
-- keeps 0 as 0. The sessions table is converted by its own owner.
UPDATE buckets SET created_at = created_at / 1000;
UPDATE namespaces SET created_at = created_at / 1000;
UPDATE tables SET created_at = created_at / 1000, modified_at = modified_at / 1000;
UPDATE users SET created_at = created_at / 1000;
UPDATE api_keys SET created_at = created_at / 1000, last_used_at = last_used_at / 1000,
    expires_at = expires_at / 1000;
UPDATE worker_tokens SET created_at = created_at / 1000, last_used_at = last_used_at / 1000;
