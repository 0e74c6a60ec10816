// Seeds a Lance table through floe's Lance REST for the Compact now journey:
// one fragment per append. Usage:
//   node seed.mjs <lance-url> <api-key> <bucket> <namespace> <table> <appends>
import * as lancedb from '@lancedb/lancedb';

const [url, key, bucket, ns, name, appendsArg] = process.argv.slice(2);
const appends = Number(appendsArg);
if (!url || !key || !bucket || !ns || !name || !(appends >= 1)) {
  console.error('usage: node seed.mjs <lance-url> <api-key> <bucket> <namespace> <table> <appends>');
  process.exit(2);
}

const perAppend = 200;
const rows = (start) => Array.from({ length: perAppend }, (_, i) => ({
  id: start + i,
  title: `document ${start + i}`,
  vector: Array.from({ length: 8 }, (_, d) => ((start + i) * (d + 1)) % 97 / 97),
}));

const db = await lancedb.connectNamespace('rest', { uri: url, headers: { 'x-api-key': key } });
for (const id of [[bucket], [bucket, ns]]) {
  try {
    await db.createNamespace(id, { mode: 'exist_ok' });
  } catch (e) {
    if (!/exist/i.test(e.message)) throw e;
  }
}
const t = await db.createTable(name, rows(0), [bucket, ns]);
for (let i = 1; i < appends; i++) await t.add(rows(i * perAppend));
console.log(`seeded ${bucket}/${ns}/${name}: ${appends} appends of ${perAppend} rows`);
