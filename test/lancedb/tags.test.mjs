// Tags and versions both ways: a tag made through floe's REST is one
// LanceDB's table.tags() lists, and the other way round; the versions floe
// lists are the ones LanceDB reports.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, rest, rows, skipUnless, tableId } from "./helpers.mjs";

const B = "floe-tags";

test("tags and versions through floe and LanceDB", { skip: skipUnless("online") }, async () => {
  const db = await connect();
  await db.createNamespace([B]);
  await db.createNamespace([B, "ns"]);
  const table = await db.createTable("t", rows(5), [B, "ns"]);
  await table.add(rows(3, 5));
  await table.add(rows(2, 8));
  const id = tableId(B, "ns", "t");

  const listed = await rest("POST", `/v1/table/${id}/version/list`, {});
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  const lanceVersions = (await table.listVersions()).map((v) => v.version);
  assert.deepEqual(listed.body.versions.map((v) => v.version), lanceVersions);
  const latest = await rest("POST", `/v1/table/${id}/version/describe`, {});
  assert.equal(latest.body.version.version, await table.version());

  // floe → LanceDB
  let r = await rest("POST", `/v1/table/${id}/tags/create`, { tag: "from-floe", version: 1 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const tags = await table.tags();
  let seen = await tags.list();
  assert.equal(seen["from-floe"]?.version, 1, JSON.stringify(Object.keys(seen)));
  assert.equal(await tags.getVersion("from-floe"), 1);
  const checkedOut = await db.openTable("t", [B, "ns"]);
  await checkedOut.checkout("from-floe");
  assert.equal(await checkedOut.countRows(), 5);

  r = await rest("POST", `/v1/table/${id}/tags/update`, { tag: "from-floe", version: 2 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(await tags.getVersion("from-floe"), 2);

  // LanceDB → floe
  await tags.create("from-lancedb", 3);
  r = await rest("POST", `/v1/table/${id}/tags/list`, {});
  assert.equal(r.status, 200);
  assert.equal(r.body.tags["from-lancedb"].version, 3);
  assert.equal(r.body.tags["from-floe"].version, 2);
  r = await rest("POST", `/v1/table/${id}/tags/version`, { tag: "from-lancedb" });
  assert.equal(r.body.version, 3);
  r = await rest("POST", `/v1/table/${id}/tags/create`, { tag: "from-lancedb", version: 1 });
  assert.equal(r.status, 409);
  assert.equal(r.body.code, 9);

  r = await rest("POST", `/v1/table/${id}/tags/delete`, { tag: "from-lancedb" });
  assert.equal(r.status, 200);
  seen = await tags.list();
  assert.equal(seen["from-lancedb"], undefined);
  r = await rest("POST", `/v1/table/${id}/tags/version`, { tag: "from-lancedb" });
  assert.equal(r.status, 404);
  assert.equal(r.body.code, 8);
});
