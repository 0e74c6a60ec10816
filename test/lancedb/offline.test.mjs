// With floe stopped, LanceDB's plain connect(dir) opens the tables the REST
// client wrote: every namespace directory is a Lance directory catalog.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { KEEP, env, lancedb, skipUnless } from "./helpers.mjs";

test("plain connect(namespaceDir) opens floe's tables with no catalog running", { skip: skipUnless("offline") }, async () => {
  await assert.rejects(fetch(env.url + "/v1/namespace/%24/list"), "the catalog is not running");
  const db = await lancedb.connect(path.join(env.warehouse, KEEP.bucket, KEEP.namespace));
  assert.ok((await db.tableNames()).includes(KEEP.table));
  const table = await db.openTable(KEEP.table);
  assert.equal(await table.countRows(), KEEP.rows);
});
