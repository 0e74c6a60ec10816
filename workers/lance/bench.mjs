// Worker benchmarks against a real floe: `node workers/lance/bench.mjs`.
//   1. detection sweep over BENCH_TABLES (1,000) small tables  (target ≤ 10 s)
//   2. preview of 200 rows from a BENCH_PREVIEW_ROWS (1,000,000)-row table: worker-side p50
//   3. compaction throughput (rows/s) on BENCH_COMPACT_ROWS (1,000,000) rows in 20 appends
// Prints one line per figure. FLOE_TEST_BIN / FLOE_TEST_SERVE_BIN as in the tests.

import * as lancedb from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Int32, Schema, Utf8 } from 'apache-arrow';
import { detect } from './lib/detect.mjs';
import { runJob } from './lib/jobs.mjs';
import { runPreview } from './lib/preview.mjs';
import * as H from './testutil/harness.mjs';

const TABLES = Number(process.env.BENCH_TABLES || 1000);
const PREVIEW_ROWS = Number(process.env.BENCH_PREVIEW_ROWS || 1_000_000);
const COMPACT_ROWS = Number(process.env.BENCH_COMPACT_ROWS || 1_000_000);
const DIMS = 16;

const schema = new Schema([
  new Field('id', new Int32(), false),
  new Field('title', new Utf8(), true),
  new Field('category', new Utf8(), true),
  new Field('vector', new FixedSizeList(DIMS, new Field('item', new Float32(), true)), true),
]);
function batch(start, n) {
  return lancedb.makeArrowTable(Array.from({ length: n }, (_, i) => ({
    id: start + i, title: `row ${start + i}`, category: ['a', 'b', 'c', 'd'][(start + i) % 4],
    vector: Float32Array.from({ length: DIMS }, (_, j) => ((start + i) * 31 + j) % 97 / 97),
  })), { schema });
}
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const say = (k, v) => console.log(`${k.padEnd(44)} ${v}`);

const h = await H.startFloe();
try {
  const db = await H.connect(h);

  // 1. detection sweep
  await H.ensureNamespace(db, 'bench', 'many');
  let t0 = Date.now();
  const small = batch(0, 10);
  for (let i = 0; i < TABLES; i += 8) {
    await Promise.all(Array.from({ length: Math.min(8, TABLES - i) }, (_, k) => db.createTable(`t${String(i + k).padStart(4, '0')}`, small, ['bench', 'many'])));
  }
  say('setup: small tables created', `${TABLES} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const sweep = async () => {
    let obs = 0, props = 0;
    const s = Date.now();
    const r = await detect({ job_type: 'lance_compact', settings_json: '{"min_fragments": 2}', cluster: h.cluster, max_proposals: 0 },
      { proposals: (l) => (props += l.length), observations: (l) => (obs += l.length) });
    return { ms: Date.now() - s, obs, props, error: r.error };
  };
  process.env.FLOE_LOG_LEVEL = 'warn';
  const cold = await sweep();
  say('detection sweep, cold (tables observed)', `${(cold.ms / 1000).toFixed(2)} s (${cold.obs} observed, ${cold.props} proposed${cold.error ? ', ' + cold.error : ''})`);
  const warm = await sweep();
  say('detection sweep, second within cache TTL', `${(warm.ms / 1000).toFixed(2)} s (${warm.obs} observed)`);
  say('detection per table, cold', `${(cold.ms / Math.max(1, cold.obs)).toFixed(2)} ms`);

  // 2. preview on a 1M-row table
  await H.ensureNamespace(db, 'bench', 'big');
  t0 = Date.now();
  const per = 100_000;
  const big = await db.createTable('million', batch(0, Math.min(per, PREVIEW_ROWS)), ['bench', 'big']);
  for (let off = per; off < PREVIEW_ROWS; off += per) await big.add(batch(off, Math.min(per, PREVIEW_ROWS - off)));
  say('setup: preview table', `${await big.countRows()} rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const ref = { bucket: 'bench', namespace: ['big'], name: 'million' };
  const times = [];
  for (let i = 0; i < 25; i++) {
    const s = performance.now();
    const out = await runPreview({ row_limit: 200, columns: [], filter: i % 2 ? "category = 'b'" : '', cluster: h.cluster }, ref);
    times.push(performance.now() - s);
    if (out.rows_sent !== 200) throw new Error(`preview sent ${out.rows_sent} rows`);
  }
  say(`preview 200 rows of ${PREVIEW_ROWS.toLocaleString('en')}, worker side p50`, `${pct(times, 0.5).toFixed(1)} ms (p90 ${pct(times, 0.9).toFixed(1)} ms, 25 runs incl. open + count)`);

  // 3. compaction throughput
  await H.ensureNamespace(db, 'bench', 'compact');
  const cper = Math.ceil(COMPACT_ROWS / 20);
  const ct = await db.createTable('c', batch(0, cper), ['bench', 'compact']);
  for (let i = 1; i < 20; i++) await ct.add(batch(i * cper, cper));
  const s = Date.now();
  const r = await runJob({ job_id: 'bench', job_type: 'lance_compact', object_id: '', parameters: {}, cluster: h.cluster, object: { bucket: 'bench', namespace: ['compact'], name: 'c' } }, {});
  const ms = Date.now() - s;
  if (!r.success) throw new Error(r.error);
  say(`compaction (${r.result.fragments_before} → ${r.result.fragments_after} fragments), whole job`, `${Number(r.result.rows_after).toLocaleString('en')} rows in ${(ms / 1000).toFixed(2)} s = ${Math.round(Number(r.result.rows_after) / (ms / 1000)).toLocaleString('en')} rows/s`);
} finally {
  await h.stop();
}
