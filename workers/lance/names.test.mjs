// Names as the formats allow, through LanceDB 0.39's own REST namespace
// client against a real floe and the real worker: a namespace and tables
// whose names hold upper case, spaces and a + are created, listed,
// described (opened and counted), renamed, browsed in the console and
// dropped; names differing only in case are two tables, and no two of the
// table directories in the warehouse are the same without case.

import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import * as H from './testutil/harness.mjs';

const B = 'names';
const NS = 'Sales EU';
let h;
before(async () => {
  h = await H.startFloe();
  const w = H.startWorker(h);
  await w.waitFor(/msg=connected/);
});
after(async () => {
  await h?.stop();
});

async function rest(id, op, body) {
  const r = await fetch(`${h.lanceURL}/v1/table/${encodeURIComponent(id.join('$'))}/${op}`, {
    method: 'POST', headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}),
  });
  const text = await r.text();
  return { status: r.status, text, json: text ? JSON.parse(text) : null };
}

describe('mixed-case and spaced names from LanceDB 0.39', () => {
  it('round-trip through create, list, describe, rename, Browse Data and drop', async () => {
    const db = await H.connect(h);
    await db.createNamespace([B]);
    await db.createNamespace([B, NS]);
    assert.deepEqual((await db.listNamespaces([B])).namespaces, [NS]);

    const ns = [B, NS];
    const tables = { MyTable: 10, mytable: 20, 'My Table': 30, 'a+b': 5 };
    let start = 0;
    for (const [name, n] of Object.entries(tables)) {
      await db.createTable(name, H.rows(start, n, 8), ns);
      start += 1000;
    }
    assert.deepEqual(await db.tableNames(ns), Object.keys(tables).sort());

    // Describe: each name opens its own table, with its own rows.
    const locations = {};
    for (const [name, n] of Object.entries(tables)) {
      const t = await db.openTable(name, ns);
      assert.equal(await t.countRows(), n, name);
      const d = await rest([...ns, name], 'describe');
      assert.equal(d.status, 200, d.text);
      locations[name] = d.json.location;
    }
    await assert.rejects(db.openTable('MYTABLE', ns), /not found|does not exist/i);

    // The layout: every table its own directory, none holding upper case,
    // and no two alike without case (a case-insensitive disk or listing).
    const dirs = Object.values(locations).map((l) => fileURLToPath(l));
    for (const d of dirs) assert.ok(existsSync(`${d}/_versions`), `${d} holds the dataset`);
    const nsDir = dirname(dirs[0]);
    assert.ok(dirs.every((d) => dirname(d) === nsDir), `one namespace directory: ${dirs}`);
    const listed = readdirSync(nsDir);
    assert.equal(listed.length, 4, `${listed}`);
    assert.equal(new Set(listed.map((x) => x.toLowerCase())).size, 4, `${listed}`);
    assert.ok(listed.every((x) => /^[a-z0-9_.-]+$/.test(x)), `${listed}`);
    assert.ok(!/[A-Z ]/.test(nsDir.slice(nsDir.lastIndexOf('/'))), nsDir);

    // Rename through the namespace (LanceDB's JS client has no rename): the
    // new name opens the same rows, the old one is gone.
    const r = await rest([...ns, 'My Table'], 'rename', { new_table_name: 'Your Table' });
    assert.equal(r.status, 200, r.text);
    assert.equal(await (await db.openTable('Your Table', ns)).countRows(), 30);
    await assert.rejects(db.openTable('My Table', ns), /not found|does not exist/i);
    assert.deepEqual(await db.tableNames(ns), ['MyTable', 'Your Table', 'a+b', 'mytable']);

    // Browse Data in the console: the worker reads each table by its name.
    const con = await H.consoleClient(h);
    for (const [name, n] of [['Your Table', 30], ['MyTable', 10], ['a+b', 5]]) {
      const page = await con.get(`/buckets/${B}/namespaces/${encodeURIComponent(NS)}/tables/${encodeURIComponent(name)}/data?limit=50`);
      assert.equal(page.status, 200, `${name}: ${page.text.slice(0, 500)}`);
      assert.equal((page.text.match(/data-testid="grid-row"/g) || []).length, n, `${name}: ${page.text.slice(0, 800)}`);
    }

    // Drop: one name goes, its case-twin stays.
    await db.dropTable('MyTable', ns);
    assert.deepEqual(await db.tableNames(ns), ['Your Table', 'a+b', 'mytable']);
    assert.equal(await (await db.openTable('mytable', ns)).countRows(), 20);
  });
});
