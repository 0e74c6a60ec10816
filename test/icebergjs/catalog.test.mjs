// iceberg-js 1.0.0 against floe's Iceberg REST catalog. The Go test
// TestIcebergJS (icebergrest/icebergjs_test.go) starts the server on a real
// catalog and runs this file with FLOE_ICEBERG_URL, FLOE_WAREHOUSE (a
// bucket), FLOE_CLIENT_ID and FLOE_CLIENT_SECRET (an API key's access key
// pair, exchanged at /v1/oauth/tokens for a bearer).
import { test } from "node:test";
import assert from "node:assert/strict";
import { IcebergRestCatalog, IcebergError } from "iceberg-js";

const url = process.env.FLOE_ICEBERG_URL ?? "";
const warehouse = process.env.FLOE_WAREHOUSE ?? "";
const clientId = process.env.FLOE_CLIENT_ID ?? "";
const clientSecret = process.env.FLOE_CLIENT_SECRET ?? "";
const skip = url === "" ? "set FLOE_ICEBERG_URL (go test ./icebergrest -run TestIcebergJS does)" : false;

// token does the OAuth2 client-credentials exchange, as a client configured
// with credential=<id>:<secret> does.
async function token(id, secret) {
  const res = await fetch(url + "/v1/oauth/tokens", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: id, client_secret: secret, scope: "catalog" }),
  });
  return { status: res.status, body: await res.json() };
}

async function catalog() {
  const t = await token(clientId, clientSecret);
  assert.equal(t.status, 200, JSON.stringify(t.body));
  assert.equal(t.body.token_type, "bearer");
  return new IcebergRestCatalog({ baseUrl: url, warehouse, auth: { type: "bearer", token: t.body.access_token } });
}

const schema = {
  type: "struct",
  "schema-id": 0,
  fields: [
    { id: 1, name: "id", type: "long", required: true },
    { id: 2, name: "name", type: "string", required: false },
  ],
};

test("token endpoint refuses a wrong secret with the spec's OAuthError", { skip }, async () => {
  const t = await token(clientId, "wrong");
  assert.equal(t.status, 401);
  assert.equal(t.body.error, "invalid_client");
  assert.ok(t.body.error_description);
});

test("namespaces, tables, commits and ETags", { skip }, async () => {
  const cat = await catalog();
  await cat.createNamespace({ namespace: ["js"] }, { properties: { owner: "js" } });
  assert.ok(await cat.namespaceExists({ namespace: ["js"] }));
  const nss = await cat.listNamespaces();
  assert.ok(nss.namespaces.some((n) => n.namespace.join(".") === "js"), JSON.stringify(nss));
  const ns = await cat.loadNamespaceMetadata({ namespace: ["js"] });
  assert.equal(ns.properties.owner, "js");

  const md = await cat.createTable({ namespace: ["js"] }, { name: "events", schema });
  assert.equal(md["format-version"], 2);
  const id = { namespace: ["js"], name: "events" };
  assert.ok(await cat.tableExists(id));
  const tables = await cat.listTables({ namespace: ["js"] });
  assert.deepEqual(tables.identifiers.map((t) => t.name), ["events"]);

  const first = await cat.loadTableResult(id);
  assert.ok(first.etag, "LoadTable sent no ETag");
  assert.equal(await cat.loadTable(id, { ifNoneMatch: first.etag }), null, "current ETag did not answer 304");

  await cat.commitTable(id, {
    requirements: [{ type: "assert-table-uuid", uuid: md["table-uuid"] }],
    updates: [{ action: "set-properties", updates: { "comment": "from iceberg-js" } }],
  });
  const after = await cat.loadTableResult(id, { ifNoneMatch: first.etag });
  assert.ok(after, "a stale ETag answered 304");
  assert.equal(after.metadata.properties.comment, "from iceberg-js");
  assert.notEqual(after.etag, first.etag);

  await assert.rejects(
    cat.commitTable(id, { requirements: [{ type: "assert-table-uuid", uuid: "00000000-0000-0000-0000-000000000000" }], updates: [] }),
    (e) => e instanceof IcebergError && e.status === 409,
  );

  // iceberg-js 0.8.1's documented updateTable(id, {properties}) sends the
  // body as given: not a CommitTableRequest, so floe refuses it (it used to
  // answer 200 and set nothing); {} is refused for the same reason.
  for (const body of [{ properties: { owner: "js" } }, {}]) {
    await assert.rejects(cat.updateTable(id, body), (e) => e instanceof IcebergError && e.status === 400);
  }
  const unchanged = await cat.loadTable(id);
  assert.equal(unchanged.properties?.owner, undefined);

  await cat.renameTable({ source: id, destination: { namespace: ["js"], name: "events2" } });
  assert.equal(await cat.tableExists(id), false);
  await cat.dropTable({ namespace: ["js"], name: "events2" });
  await cat.dropNamespace({ namespace: ["js"] });
  assert.equal(await cat.namespaceExists({ namespace: ["js"] }), false);
});

test("v3 types only in v3 tables", { skip }, async () => {
  const cat = await catalog();
  await cat.createNamespace({ namespace: ["v3"] });
  const ns = { type: "struct", "schema-id": 0, fields: [{ id: 1, name: "at", type: "timestamp_ns", required: false }] };
  await assert.rejects(cat.createTable({ namespace: ["v3"] }, { name: "t2", schema: ns }), (e) => e instanceof IcebergError && e.status === 400);
  const md = await cat.createTable({ namespace: ["v3"] }, { name: "t3", schema: ns, properties: { "format-version": "3" } });
  assert.equal(md["format-version"], 3);
});
