// Writes a Lance table with a history through floe's Lance REST for the
// time-travel journey, with the real LanceDB client:
//   v1 create ids 0-2, v2 add 3-5, v3 add 6-7 (8 rows, titles "first N"),
//   v4 retitle ids 0-3 "changed", v5 delete ids 6-7 (6 rows).
// Usage: node travel.mjs <lance-url> <api-key> <bucket> <namespace> <table>
import * as lancedb from '@lancedb/lancedb';

const [url, key, bucket, ns, name] = process.argv.slice(2);
if (!url || !key || !bucket || !ns || !name) {
  console.error('usage: node travel.mjs <lance-url> <api-key> <bucket> <namespace> <table>');
  process.exit(2);
}
const rows = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => ({ id: from + i, title: `first ${from + i}` }));

const db = await lancedb.connectNamespace('rest', { uri: url, headers: { 'x-api-key': key } });
for (const id of [[bucket], [bucket, ns]]) {
  try {
    await db.createNamespace(id, { mode: 'exist_ok' });
  } catch (e) {
    if (!/exist/i.test(e.message)) throw e;
  }
}
const t = await db.createTable(name, rows(0, 2), [bucket, ns]);
await t.add(rows(3, 5));
await t.add(rows(6, 7));
await t.update({ where: 'id < 4', values: { title: 'changed' } });
await t.delete('id >= 6');
console.log(`version ${await t.version()}, ${await t.countRows()} rows`);
