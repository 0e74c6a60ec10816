// LanceDB's own REST namespace client against floe: namespaces, tables,
// storage layout, deregister/drop semantics.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { KEEP, connect, env, listing, rest, rows, skipUnless, tableId } from "./helpers.mjs";

const B = "floe-js";

test("LanceDB REST namespace client against floe", { skip: skipUnless("online") }, async (t) => {
  const db = await connect();

  await t.test("creates a bucket and nested namespaces", async () => {
    await db.createNamespace([B]);
    await db.createNamespace([B, "sales"], { properties: { owner: "ann" } });
    await db.createNamespace([B, "sales", "eu"]);
    await db.createNamespace([B, KEEP.namespace]);
    await assert.rejects(db.createNamespace([B, "sales"]), /already exists/i);
    await db.createNamespace([B, "sales"], { mode: "exist_ok" });
    await assert.rejects(db.createNamespace([B, "nope", "child"]), /not found|does not exist/i);
    const d = await db.describeNamespace([B, "sales"]);
    assert.equal(d.properties?.owner, "ann");
  });

  await t.test("lists namespaces", async () => {
    const root = await db.listNamespaces();
    assert.ok(root.namespaces.includes(B), `root lists ${root.namespaces}`);
    assert.deepEqual((await db.listNamespaces([B])).namespaces.sort(), [KEEP.namespace, "sales"]);
    assert.deepEqual((await db.listNamespaces([B, "sales"])).namespaces, ["eu"]);
    assert.deepEqual((await db.listNamespaces([B, "sales", "eu"])).namespaces, []);
  });

  const ns = [B, "sales"];
  const expectedDir = path.join(env.warehouse, B, "sales", "items.lance");
  // floe answers locations in canonical form, file:///abs/path.
  const expectedLocation = pathToFileURL(expectedDir).href;

  await t.test("createTable writes the dataset at the declared location", async () => {
    const table = await db.createTable("items", rows(10), ns);
    assert.equal(await table.countRows(), 10);
    const schema = await table.schema();
    const vector = schema.fields.find((f) => f.name === "vector");
    assert.match(String(vector.type), /FixedSizeList\[3\]/);
    const d = await rest("POST", `/v1/table/${tableId(B, "sales", "items")}/describe?load_detailed_metadata=true`, {
      id: [B, "sales", "items"],
    });
    assert.equal(d.status, 200);
    assert.equal(d.body.location, expectedLocation);
    assert.equal(d.body.version, 1);
    assert.equal(d.body.is_only_declared, false);
    assert.ok(fs.existsSync(path.join(expectedDir, "_versions")), "dataset _versions/ at the location");
    assert.ok(fs.existsSync(path.join(expectedDir, ".lance-reserved")), ".lance-reserved marker");
  });

  await t.test("reopens, counts and appends", async () => {
    let table = await db.openTable("items", ns);
    assert.equal(await table.countRows(), 10);
    await table.add(rows(5, 10));
    assert.equal(await table.countRows(), 15);
    table = await (await connect()).openTable("items", ns);
    assert.equal(await table.countRows(), 15);
    const d = await rest("POST", `/v1/table/${tableId(B, "sales", "items")}/describe?load_detailed_metadata=true`);
    assert.equal(d.body.version, 2);
  });

  await t.test("tableNames lists the namespace's tables", async () => {
    assert.deepEqual(await db.tableNames(ns), ["items"]);
    assert.deepEqual(await db.tableNames([B, "sales", "eu"]), []);
  });

  await t.test("renameTable moves the entry, not the data", async () => {
    await db.renameTable("items", "renamed", { namespacePath: ns });
    assert.deepEqual(await db.tableNames(ns), ["renamed"]);
    const table = await db.openTable("renamed", ns);
    assert.equal(await table.countRows(), 15);
    const d = await rest("POST", `/v1/table/${tableId(B, "sales", "renamed")}/describe`);
    assert.equal(d.body.location, expectedLocation);
    await assert.rejects(db.openTable("items", ns), /was not found/);
  });

  await t.test("deregister keeps every byte; declare brings the table back", async () => {
    const ghost = await db.createTable("ghost", rows(4), ns);
    await ghost.add(rows(4, 4));
    const d = await rest("POST", `/v1/table/${tableId(B, "sales", "ghost")}/describe`);
    const dir = fileURLToPath(d.body.location);
    const before = listing(dir);
    const r = await rest("POST", `/v1/table/${tableId(B, "sales", "ghost")}/deregister`, { id: [B, "sales", "ghost"] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const after = listing(dir);
    for (const [file, size] of before) assert.equal(after.get(file), size, `${file} kept with its size`);
    assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort(), "deregister adds no file, not even a marker");
    assert.ok(!(await db.tableNames(ns)).includes("ghost"));
    await assert.rejects(db.openTable("ghost", ns), /was not found/);
    const e = await rest("POST", `/v1/table/${tableId(B, "sales", "ghost")}/exists`);
    assert.equal(e.status, 404);
    const back = await rest("POST", `/v1/table/${tableId(B, "sales", "ghost")}/declare`, { id: [B, "sales", "ghost"] });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.equal(back.body.location, d.body.location);
    assert.equal(await (await db.openTable("ghost", ns)).countRows(), 8);
  });

  await t.test("dropTable removes entry and data", async () => {
    assert.ok(fs.existsSync(expectedDir));
    await db.dropTable("renamed", ns);
    assert.ok(!fs.existsSync(expectedDir), "data directory deleted");
    assert.deepEqual(await db.tableNames(ns), ["ghost"]);
    await assert.rejects(db.dropTable("renamed", ns), /not found/i);
  });

  await t.test("dropNamespace: restrict, skip and cascade", async () => {
    await db.dropNamespace([B, "sales", "eu"]);
    await assert.rejects(db.dropNamespace([B, "sales"]), /not empty/i);
    await db.dropNamespace([B, "never-made"], { mode: "skip" });
    await assert.rejects(db.dropNamespace([B, "never-made"]), /not found|does not exist/i);
    const ghostDir = path.join(env.warehouse, B, "sales", "ghost.lance");
    assert.ok(fs.existsSync(ghostDir));
    await db.dropNamespace([B, "sales"], { mode: "skip", behavior: "cascade" });
    assert.ok(!fs.existsSync(ghostDir), "cascade deleted the table's data");
    assert.deepEqual((await db.listNamespaces([B])).namespaces, [KEEP.namespace]);
  });

  await t.test("leaves a table for the offline phase", async () => {
    const kept = await db.createTable(KEEP.table, rows(KEEP.rows), [B, KEEP.namespace]);
    assert.equal(await kept.countRows(), KEEP.rows);
  });
});
