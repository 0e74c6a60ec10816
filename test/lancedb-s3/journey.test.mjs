// The LanceDB REST-client journey on an S3 warehouse. The Go test
// TestLanceDBOnS3 (lancerest/s3client_test.go) starts a real SeaweedFS
// store, floe's Lance REST on a catalog whose warehouse is on it, and runs
// this file with FLOE_LANCE_URL and FLOE_API_KEY; it checks the objects
// left in the store afterwards. LanceDB opens every table with nothing but
// what DescribeTable/DeclareTable answer: location and storage_options.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connectNamespace } from "@lancedb/lancedb";

const url = process.env.FLOE_LANCE_URL ?? "";
const key = process.env.FLOE_API_KEY ?? "";
const skip = url === "" || key === "" ? "set FLOE_LANCE_URL and FLOE_API_KEY (go test ./lancerest -run TestLanceDBOnS3 does)" : false;

const B = "s3b";
const NS = [B, "ns"];
const WRITERS = 8;
const BATCHES = 4;
const PER_BATCH = 25;

const connect = () => connectNamespace("rest", { uri: url, headers: { "x-api-key": key } });

function rows(n, start = 0) {
  return Array.from({ length: n }, (_, i) => ({ id: start + i, label: `row-${start + i}`, vector: [start + i, (start + i) / 2, 1] }));
}

async function rest(method, route, body) {
  const res = await fetch(url + route, {
    method,
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? null : JSON.parse(text) };
}

const id = (...names) => encodeURIComponent(names.join("$"));

test("LanceDB on an S3 warehouse", { skip }, async (t) => {
  const db = await connect();
  await db.createNamespace([B]);
  await db.createNamespace(NS);

  await t.test("create writes 200 rows to s3:// and DescribeTable says how to reach them", async () => {
    await db.createTable("items", rows(200), NS);
    const d = await rest("POST", `/v1/table/${id(...NS, "items")}/describe`, { id: [...NS, "items"] });
    assert.equal(d.status, 200);
    assert.match(d.body.location, /^s3:\/\/[^/]+\/.+\/s3b\/ns\/items\.lance$/);
    assert.ok(d.body.storage_options.aws_endpoint?.startsWith("http://127.0.0.1:"), JSON.stringify(d.body.storage_options));
    assert.equal(d.body.storage_options.allow_http, "true");
    if (process.env.FLOE_VEND === "sts") {
      // Temporary keys scoped to this table: a session token and when it ends.
      assert.ok(d.body.storage_options.aws_session_token, "no session token vended");
      assert.ok(Number(d.body.storage_options.expires_at_millis) > Date.now(), "expires_at_millis missing or past");
    }
  });

  await t.test("a new connection reopens and counts them", async () => {
    const table = await (await connect()).openTable("items", NS);
    assert.equal(await table.countRows(), 200);
  });

  await t.test("detailed describe reads the manifest from S3", async () => {
    const d = await rest("POST", `/v1/table/${id(...NS, "items")}/describe`, { id: [...NS, "items"], load_detailed_metadata: true });
    assert.equal(d.status, 200, JSON.stringify(d.body));
    assert.equal(d.body.properties["floe.stats_source"], "manifest");
    assert.equal(d.body.stats.num_rows, 200);
    const table = await (await connect()).openTable("items", NS);
    assert.deepEqual(d.body.schema.fields.map((f) => f.name), (await table.schema()).fields.map((f) => f.name));
  });

  await t.test("eight concurrent writers lose no rows", async () => {
    await db.createTable("log", rows(1), NS);
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        const table = await (await connect()).openTable("log", NS);
        for (let b = 0; b < BATCHES; b++) await table.add(rows(PER_BATCH, 1 + (w * BATCHES + b) * PER_BATCH));
      }),
    );
    const table = await (await connect()).openTable("log", NS);
    assert.equal(await table.countRows(), 1 + WRITERS * BATCHES * PER_BATCH);
  });

  await t.test("drop and deregister", async () => {
    await db.createTable("gone", rows(10), NS);
    await db.createTable("kept", rows(10), NS);
    await db.dropTable("gone", NS);
    const r = await rest("POST", `/v1/table/${id(...NS, "kept")}/deregister`, { id: [...NS, "kept"] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // The Go test checks the store: gone has no objects left, kept has all.
  });

  await t.test("names differing only in case, and spaced names, are tables of their own on S3", async () => {
    const ns = [B, "Sales EU"];
    await db.createNamespace(ns);
    const tables = { MyTable: 3, mytable: 4, "My Table": 5 };
    for (const [name, n] of Object.entries(tables)) await db.createTable(name, rows(n), ns);
    assert.deepEqual(await db.tableNames(ns), Object.keys(tables).sort());
    const where = new Set();
    for (const [name, n] of Object.entries(tables)) {
      // Each opens with its own (vended, when STS: scoped) keys.
      assert.equal(await (await connect()).openTable(name, ns).then((t) => t.countRows()), n, name);
      const d = await rest("POST", `/v1/table/${id(...ns, name)}/describe`, { id: [...ns, name] });
      assert.equal(d.status, 200, JSON.stringify(d.body));
      where.add(d.body.location.toLowerCase());
    }
    assert.equal(where.size, 3, [...where].join(" "));
    // The Go test lists the store: three table prefixes, none alike without case.
  });
});
