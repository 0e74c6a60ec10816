// LanceDB 0.39 committing through floe (managed versioning) on an S3
// warehouse. The Go test TestLanceDBManagedOnS3 (lancerest/s3managed_test.go)
// starts a real SeaweedFS store and floe's Lance REST on a catalog whose
// warehouse is on it, runs this file with FLOE_LANCE_URL and FLOE_API_KEY,
// then compares the catalog's version record with the table's _versions/
// and commits a version that exists itself. Every commit here goes through
// CreateTableVersion: floe answers managed_versioning true for the bucket.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connectNamespace } from "@lancedb/lancedb";

const url = process.env.FLOE_LANCE_URL ?? "";
const key = process.env.FLOE_API_KEY ?? "";
const skip = url === "" || key === "" ? "set FLOE_LANCE_URL and FLOE_API_KEY (go test ./lancerest -run TestLanceDBManagedOnS3 does)" : false;

const B = "mvs3";
const NS = [B, "ns"];
const WRITERS = 8;
const APPENDS = 5;
const PER_APPEND = 10;

const connect = () => connectNamespace("rest", { uri: url, headers: { "x-api-key": key } });

const rows = (n, start) => Array.from({ length: n }, (_, i) => ({ id: start + i, writer: Math.floor((start + i) / 1000) }));

async function rest(method, route, body) {
  const res = await fetch(url + route, {
    method,
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? null : JSON.parse(text) };
}

const route = (table, op) => `/v1/table/${encodeURIComponent([...NS, table].join("$"))}/${op}?delimiter=%24`;

test("LanceDB 0.39 commits through floe on an S3 warehouse", { skip }, async (t) => {
  const db = await connect();
  await db.createNamespace([B], { properties: { "floe.managed_versioning": "true" } });
  await db.createNamespace(NS);

  await t.test("createTable commits version 1 through floe", async () => {
    await db.createTable("log", rows(1, 0), NS);
    const d = await rest("POST", route("log", "describe"), {});
    assert.equal(d.status, 200, JSON.stringify(d.body));
    assert.equal(d.body.managed_versioning, true);
    assert.equal(d.body.version, 1);
  });

  await t.test(`${WRITERS} concurrent writers appending through floe lose nothing`, async () => {
    let acknowledged = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        const table = await (await connect()).openTable("log", NS);
        for (let a = 0; a < APPENDS; a++) {
          await table.add(rows(PER_APPEND, (w + 1) * 1000 + a * PER_APPEND));
          acknowledged++;
        }
      }),
    );
    assert.equal(acknowledged, WRITERS * APPENDS);
    const table = await (await connect()).openTable("log", NS);
    assert.equal(await table.countRows(), 1 + WRITERS * APPENDS * PER_APPEND);
    for (let w = 1; w <= WRITERS; w++) {
      assert.equal(await table.countRows(`writer = ${w}`), APPENDS * PER_APPEND, `writer ${w}'s rows`);
    }
    // Every append is one version, committed once: 1 + 40, no gaps.
    const all = await rest("POST", route("log", "version/list"), {});
    assert.deepEqual(all.body.versions.map((v) => v.version), Array.from({ length: 1 + WRITERS * APPENDS }, (_, i) => i + 1));
  });

  await t.test("?limit=1&descending=true answers only the latest", async () => {
    const r = await rest("POST", route("log", "version/list") + "&limit=1&descending=true");
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.versions.length, 1);
    assert.equal(r.body.versions[0].version, 1 + WRITERS * APPENDS);
    const d = await rest("POST", route("log", "describe"), {});
    assert.equal(d.body.version, 1 + WRITERS * APPENDS, "DescribeTable answers the catalog's latest");
  });

  await t.test("DescribeTable with a tag answers that tag's version", async () => {
    const table = await (await connect()).openTable("log", NS);
    await (await table.tags()).create("before-appends", 1);
    const d = await rest("POST", route("log", "describe"), { tag: "before-appends" });
    assert.equal(d.status, 200, JSON.stringify(d.body));
    assert.equal(d.body.version, 1);
    const missing = await rest("POST", route("log", "describe"), { tag: "never-made" });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 8);
    // LanceDB reads the tagged version through floe's record.
    await table.checkout("before-appends");
    assert.equal(await table.countRows(), 1);
  });

  await t.test("optimize() commits its compaction through floe", async () => {
    const table = await (await connect()).openTable("log", NS);
    const before = await table.version();
    await table.optimize({ cleanupOlderThan: new Date(0) });
    const after = await table.version();
    assert.ok(after > before, `version ${before} → ${after}`);
    const r = await rest("POST", route("log", "version/list") + "&limit=1&descending=true");
    assert.equal(r.body.versions[0].version, after);
    assert.equal(await table.countRows(), 1 + WRITERS * APPENDS * PER_APPEND);
  });
});
