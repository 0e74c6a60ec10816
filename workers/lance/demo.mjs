// Demo data, through floe's Lance REST only: bucket `demo` (LANCE),
// namespace `docs`, table `docs` with 20,000 rows (id, title, category,
// 64-dim float32 vector) written in 12 appends, so the console has
// fragments to compact and versions to show. Idempotent: a table that is
// already there is left alone.
//   FLOE_LANCE_URL (http://127.0.0.1:9101), FLOE_API_KEY

import * as lancedb from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Int32, Schema, Utf8 } from 'apache-arrow';

const url = process.env.FLOE_LANCE_URL || 'http://127.0.0.1:9101';
const key = process.env.FLOE_API_KEY || '';
const BUCKET = 'demo';
const NS = 'docs';
const TABLE = 'docs';
const ROWS = 20000;
const APPENDS = 12;
const DIMS = 64;

const schema = new Schema([
  new Field('id', new Int32(), false),
  new Field('title', new Utf8(), true),
  new Field('category', new Utf8(), true),
  new Field('vector', new FixedSizeList(DIMS, new Field('item', new Float32(), true)), true),
]);

const categories = ['news', 'science', 'sports', 'travel', 'food', 'tech'];
const words = ['lance', 'table', 'vector', 'river', 'bucket', 'index', 'fragment', 'version', 'search', 'query', 'stream', 'column'];

function batch(start, n) {
  let x = (start + 7) >>> 0;
  const rnd = () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 4294967296);
  return Array.from({ length: n }, (_, i) => {
    const id = start + i;
    return {
      id,
      title: `${words[id % words.length]} ${words[(id * 7) % words.length]} #${id}`,
      category: categories[id % categories.length],
      vector: Float32Array.from({ length: DIMS }, rnd),
    };
  });
}

function log(msg) {
  process.stderr.write(`level=info msg=${JSON.stringify(msg)}\n`);
}

const db = await lancedb.connectNamespace('rest', { uri: url, headers: key ? { 'x-api-key': key } : {} });
for (const id of [[BUCKET], [BUCKET, NS]]) {
  try {
    await db.createNamespace(id, { mode: 'exist_ok' });
  } catch (e) {
    if (!/exist/i.test(e.message)) throw e;
  }
}
const existing = await db.tableNames([BUCKET, NS]);
if (existing.includes(TABLE)) {
  const t = await db.openTable(TABLE, [BUCKET, NS]);
  log(`demo table ${BUCKET}$${NS}$${TABLE} already exists with ${await t.countRows()} rows; nothing to do`);
  process.exit(0);
}
const per = Math.ceil(ROWS / APPENDS);
const first = batch(0, per);
const table = await db.createTable(TABLE, lancedb.makeArrowTable(first, { schema }), [BUCKET, NS]);
let written = first.length;
for (let i = 1; i < APPENDS; i++) {
  const n = Math.min(per, ROWS - written);
  await table.add(lancedb.makeArrowTable(batch(written, n), { schema }));
  written += n;
}
log(`demo table ${BUCKET}$${NS}$${TABLE} created: ${await table.countRows()} rows in ${APPENDS} appends`);
