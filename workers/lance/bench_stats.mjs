// CountTableRows and GetTableStats read in Go from the manifest against
// asking the Lance worker, in one run on one floe with the real worker
// connected: `node workers/lance/bench_stats.mjs`.
//
// floe: CountTableRows / GetTableStats over HTTP from this process,
// sequential, one client.
// Asking the worker, the ways floe has:
//   job: a worker job, the way the Lance REST has a worker answer
//        (RestoreTable, DropTableIndex): here the task API's
//        optimize_indices on a table with nothing to optimize, whose result
//        carries the worker's figures (rows_before, fragments_before …);
//        submit to completed, polled every 10 ms;
//   preview: the lightest request a worker answers, Browse Data's preview
//        (console → plugin channel → worker → console), whose done message
//        carries the worker's row count;
//   the worker's part alone, in this process, with nothing of a request:
//        cold = resolve through floe's REST and open with LanceDB, as a job
//        does, then countRows() or stats(); warm = a handle kept open,
//        checkoutLatest() then countRows() or stats().
// Rounds alternate the sides; figures are medians of the rounds. Table:
// BENCH_FRAGMENTS (40) appends of BENCH_ROWS (250) rows and a BTREE index;
// LanceDB 0.39's optimize() compacts too, so the first (untimed) job
// leaves it one fragment, which every side then reads.
// Target: floe ≥ 50× the rate of asking the worker.

import { catalogFor } from './lib/catalog.mjs';
import * as H from './testutil/harness.mjs';

const FRAGMENTS = Number(process.env.BENCH_FRAGMENTS || 40);
const ROWS = Number(process.env.BENCH_ROWS || 250);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const REST_N = 400; // requests per round on floe's side
const COLD_N = 10; // opens per round on the worker's side
const WARM_N = 40;
const JOB_N = 5; // worker jobs per round
const PREVIEW_N = 20; // Browse Data previews per round
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const say = (k, v) => console.log(`${k.padEnd(52)} ${v}`);
const step = (s) => process.env.BENCH_VERBOSE && console.error(`[bench] ${s}`);

async function rate(n, fn) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  return n / (Number(process.hrtime.bigint() - t0) / 1e9);
}

const h = await H.startFloe();
try {
  const t = await H.seedTable(h, { bucket: 'bench', name: 'stats', appends: FRAGMENTS, perAppend: ROWS, dims: 16 });
  const lancedb = await import('@lancedb/lancedb');
  await t.createIndex('id', { config: lancedb.Index.btree() });
  const ref = { bucket: 'bench', namespace: ['docs'], name: 'stats' };
  const url = (op) => `${h.lanceURL}/v1/table/${encodeURIComponent('bench$docs$stats')}/${op}`;
  const ask = async (op) => {
    const r = await fetch(url(op), { method: 'POST', headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' }, body: '{}' });
    const body = await r.text();
    if (r.status !== 200) throw new Error(`${op}: ${r.status} ${body}`);
    return body;
  };
  const catalog = catalogFor(h.cluster);
  const warm = await catalog.open(ref);
  // The two sides must agree before they are timed.
  if (Number(await ask('count_rows')) !== await warm.countRows()) throw new Error('floe and LanceDB disagree on the row count');
  const w = H.startWorker(h, { FLOE_LOG_LEVEL: 'info' });
  await w.waitFor(/msg=connected/);
  step('worker connected');
  for (const jt of ['lance_compact', 'lance_cleanup', 'lance_optimize_indices']) await w.waitFor(new RegExp(`msg="detect: sweep done" job_type=${jt} `), 300000);
  step('first sweeps done');
  const job = async () => {
    const r = await H.taskApi(h, 'bench', 'POST', `/table/${encodeURIComponent('docs$stats')}/optimize_indices`, {});
    if (r.status !== 200) throw new Error(`optimize_indices: ${r.status} ${r.text}`);
    for (;;) {
      const g = await H.taskApi(h, 'bench', 'GET', `/table/${encodeURIComponent('docs$stats')}/tasks/${r.json.task_id}`);
      const info = g.json?.task_info;
      if (info?.status === 'completed') return info;
      if (info?.status === 'failed') throw new Error(`task failed: ${g.text}`);
      await H.sleep(10);
    }
  };
  const first = await job();
  step(`first job done: ${JSON.stringify(first).slice(0, 200)}`);
  if (first.result?.before?.rows !== FRAGMENTS * ROWS) throw new Error(`the job's figures: ${JSON.stringify(first.result)}`);
  const con = await H.consoleClient(h);
  const preview = async () => {
    const r = await con.get('/buckets/bench/namespaces/docs/tables/stats/data');
    if (r.status !== 200 || !r.text.includes('data-testid="grid-row"')) throw new Error(`Browse Data: ${r.status} ${r.text.slice(0, 300)}`);
  };
  const cold = async (q) => {
    await catalog.describe(ref);
    const tbl = await catalog.open(ref);
    try {
      await (q === 'count' ? tbl.countRows() : tbl.stats());
    } finally {
      tbl.close();
    }
  };
  const warmAsk = async (q) => {
    await warm.checkoutLatest();
    await (q === 'count' ? warm.countRows() : warm.stats());
  };
  const sides = { floe: {}, job: [], preview: [], cold: {}, warm: {} };
  await rate(3, preview);
  for (let i = 0; i < ROUNDS; i++) {
    for (const [q, op] of [['count', 'count_rows'], ['stats', 'stats']]) {
      (sides.floe[op] ||= []).push(await rate(REST_N, () => ask(op)));
      (sides.cold[op] ||= []).push(await rate(COLD_N, () => cold(q)));
      (sides.warm[op] ||= []).push(await rate(WARM_N, () => warmAsk(q)));
    }
    sides.job.push(await rate(JOB_N, job));
    sides.preview.push(await rate(PREVIEW_N, preview));
  }
  const jobRate = median(sides.job);
  const previewRate = median(sides.preview);
  say('asking the worker: a job (answers/s)', jobRate.toFixed(2));
  say('asking the worker: a Browse Data preview (answers/s)', previewRate.toFixed(1));
  for (const op of ['count_rows', 'stats']) {
    const f = median(sides.floe[op]);
    say(`${op} from the manifest (floe, req/s)`, `${f.toFixed(0)}  → ${(f / jobRate).toFixed(0)}× the job, ${(f / previewRate).toFixed(1)}× the preview (target ≥ 50×: ${f / jobRate >= 50 ? 'met' : 'MISSED'} against the job)`);
    say(`${op}: the worker's part alone, cold / warm (per s)`, `${median(sides.cold[op]).toFixed(0)} / ${median(sides.warm[op]).toFixed(0)}`);
  }
  say('table', `${FRAGMENTS * ROWS} rows, compacted to one fragment, one BTREE index; ${ROUNDS} rounds, medians`);
  warm.close();
} finally {
  await h.stop();
}
