// Appends to a table seed.mjs made, through floe's Lance REST, the way a
// client writes while floe runs: one fragment and one version per append.
// Usage: node append.mjs <lance-url> <api-key> <bucket> <namespace> <table> <appends>
import * as lancedb from '@lancedb/lancedb';

const [url, key, bucket, ns, name, appendsArg] = process.argv.slice(2);
const appends = Number(appendsArg);
if (!url || !key || !bucket || !ns || !name || !(appends >= 1)) {
  console.error('usage: node append.mjs <lance-url> <api-key> <bucket> <namespace> <table> <appends>');
  process.exit(2);
}
const perAppend = 100;
const db = await lancedb.connectNamespace('rest', { uri: url, headers: { 'x-api-key': key } });
const t = await db.openTable(name, [bucket, ns]);
const start = await t.countRows();
for (let i = 0; i < appends; i++) {
  const base = start + i * perAppend;
  await t.add(Array.from({ length: perAppend }, (_, j) => ({
    id: base + j,
    title: `document ${base + j}`,
    vector: Array.from({ length: 8 }, (_, d) => ((base + j) * (d + 1)) % 97 / 97),
  })));
}
console.log(`${await t.countRows()}`);
