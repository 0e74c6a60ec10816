-- Browse Data across replicas (preview/relay.go): a replica whose page
-- asks for rows no worker connected to it can read writes the request here
-- and announces it on the bus; the replica whose worker can read it claims
-- the row, fetches and writes the rendered reply, and announces that. The
-- asking replica reads the reply and deletes the row. Rows left by a replica
-- that died mid-wait are deleted after an hour by the next relay.
CREATE TABLE preview_relay (
    id          TEXT PRIMARY KEY,
    request_json TEXT NOT NULL,
    claimed_by  TEXT NOT NULL DEFAULT '',
    reply_json  TEXT,
    created_at  BIGINT NOT NULL
);
CREATE INDEX preview_relay_by_created ON preview_relay(created_at);
