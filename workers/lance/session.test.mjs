// The full path: a real floe, the worker as a child process on its plugin
// channel, work triggered from outside (the scheduler's own detection and
// the Lance task API), and what floe shows afterwards.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as H from './testutil/harness.mjs';

let h;
before(async () => {
  h = await H.startFloe();
});
after(async () => {
  await h?.stop();
});

describe('through floe', () => {
  it('detection proposes compaction, the console runs it on the worker, and observations reach the console', async () => {
    const t = await H.seedTable(h, { bucket: 'e2e', name: 'frag', appends: 12, perAppend: 20 });
    await H.seedTable(h, { bucket: 'e2e', name: 'single', appends: 1, perAppend: 240 });
    const sum = await H.checksum(t);
    const w = H.startWorker(h);
    await w.waitFor(/msg=connected/);
    await w.waitFor(/msg=detect job_type=lance_compact table=e2e\$docs\$frag .*decision=propose/);
    await w.waitFor(/msg=detect job_type=lance_compact table=e2e\$docs\$single .*decision=skip/);
    await w.waitFor(/msg="execute done" .*job_type=lance_compact success=true summary="compacted 12 → 1 fragments/);
    const t2 = await H.openTable(h, 'e2e', 'docs', 'frag');
    assert.equal((await t2.stats()).fragmentStats.numFragments, 1);
    assert.deepEqual(await H.checksum(t2), sum);
    // the console shows what the worker observed: rows per table
    const c = await H.consoleClient(h);
    await H.eventually(async () => {
      const page = await c.get('/buckets/e2e/namespaces/docs');
      const m = /data-table="single"[\s\S]*?data-testid="table-rows">([^<]*)</.exec(page.text);
      return m && m[1].replace(/\D/g, '') === '240';
    }, 20000);
    // Browse Data asks this worker for a preview: columns, filter, limit.
    const data = await c.get('/buckets/e2e/namespaces/docs/tables/single/data?limit=100&filter=' + encodeURIComponent('id < 5') + '&col=id&col=title');
    assert.equal(data.status, 200, data.text.slice(0, 500));
    const cols = [...data.text.matchAll(/data-testid="grid-column" data-column="([^"]+)"/g)].map((x) => x[1]);
    assert.deepEqual(cols, ['id', 'title']);
    assert.equal((data.text.match(/data-testid="grid-row"/g) || []).length, 5);
    assert.match(data.text, /document 3/);
    // The console renders this worker's descriptor as the job type's form.
    const jt = await c.get('/job-types/lance_compact');
    assert.equal(jt.status, 200);
    assert.match(jt.text, /data-testid="field-s_min_fragments"/);
    // A job's parameters are floe's (Welcome.job_params), not worker settings.
    assert.doesNotMatch(jt.text, /s_compaction_mode/);
  });

  it('a task submitted through the Lance task API runs on the worker and completes with its result', async () => {
    await H.seedTable(h, { bucket: 'e2e', name: 'tasked', appends: 1, perAppend: 500 });
    if (!h.workers.length) {
      H.startWorker(h);
    }
    await h.workers[0].waitFor(/msg=connected/);
    const sub = await H.taskApi(h, 'e2e', 'POST', '/table/docs$tasked/create_scalar_index', { column: 'category', index_type: 'BITMAP' });
    assert.equal(sub.status, 200, sub.text);
    const id = sub.json.task_id;
    const info = await H.eventually(async () => {
      const g = await H.taskApi(h, 'e2e', 'GET', `/table/docs$tasked/tasks/${id}`);
      const ti = g.json?.task_info;
      return ti && (ti.status === 'completed' || ti.status === 'failed') ? ti : null;
    }, 60000, 500);
    assert.equal(info.status, 'completed', JSON.stringify(info));
    const t = await H.openTable(h, 'e2e', 'docs', 'tasked');
    assert.deepEqual((await t.listIndices()).map((i) => i.name), ['category_idx']);
    assert.match(await t.query().where("category = 'gamma'").explainPlan(), /category_idx/);
  });

  it('a worker killed mid-job: the console retries the job when the worker comes back', async () => {
    for (const w of h.workers) await w.stop();
    h.workers.length = 0;
    await H.seedTable(h, { bucket: 'e2e', name: 'big', appends: 1, perAppend: 10000, dims: 32 });
    const w1 = H.startWorker(h, { FLOE_WORKER_ID: 'killed-worker' });
    await w1.waitFor(/msg=connected/);
    const sub = await H.taskApi(h, 'e2e', 'POST', '/table/docs$big/create_vector_index', {
      column: 'vector', index_type: 'IVF_PQ', num_partitions: 32, num_sub_vectors: 8, max_iterations: 50, // a few seconds of building
    });
    assert.equal(sub.status, 200, sub.text);
    const line = await w1.waitFor(/msg=execute job_id=\S+ job_type=lance_vector_index table=e2e\$docs\$big attempt=1/);
    const jobId = /job_id=(\S+)/.exec(line)[1];
    await H.sleep(1000);
    const e = await w1.stop('SIGKILL');
    assert.equal(e.sig, 'SIGKILL');
    const w2 = H.startWorker(h, { FLOE_WORKER_ID: 'killed-worker' });
    await w2.waitFor(/msg=connected/);
    // The console failed attempt 1 ("reconnected without this job") and
    // hands the same job out again once the retry backoff passes.
    await w2.waitFor(new RegExp(`msg=execute job_id=${jobId} job_type=lance_vector_index .*attempt=2`), 60000);
    // ...and the retry runs to the end on the worker that came back.
    await w2.waitFor(new RegExp(`msg="execute done" job_id=${jobId} .*success=true`), 60000);
    const t = await H.openTable(h, 'e2e', 'docs', 'big');
    assert.equal((await t.listIndices()).length, 1);
  });

  it('a console that crashes mid-job: the worker keeps building, and the restarted console adopts the job and gets its result', async () => {
    for (const w of h.workers) await w.stop();
    h.workers.length = 0;
    await H.seedTable(h, { bucket: 'e2e', name: 'survivor', appends: 1, perAppend: 10000, dims: 32 });
    const w = H.startWorker(h, { FLOE_WORKER_ID: 'steady-worker' });
    await w.waitFor(/msg=connected/);
    const sub = await H.taskApi(h, 'e2e', 'POST', '/table/docs$survivor/create_vector_index', {
      column: 'vector', index_type: 'IVF_PQ', num_partitions: 32, num_sub_vectors: 8, max_iterations: 50, name: 'survivor_idx',
    });
    assert.equal(sub.status, 200, sub.text);
    const line = await w.waitFor(/msg=execute job_id=\S+ job_type=lance_vector_index table=e2e\$docs\$survivor attempt=1/);
    const jobId = /job_id=(\S+)/.exec(line)[1];
    await H.sleep(500);
    await h.crashAndRestart();
    await w.waitFor(/executions keep running until the console is back/);
    await w.waitFor(new RegExp(`msg="execute done" job_id=${jobId} .*success=true`), 60000);
    // The restarted console adopted the job (the first heartbeat listed it)
    // and took its result: the job page shows it succeeded on attempt 1.
    const c = await H.consoleClient(h);
    const page = await H.eventually(async () => {
      const p = await c.get(`/jobs/${jobId}`);
      return /data-testid="job-result-summary">[^<]*built IVF_PQ index survivor_idx/.test(p.text) ? p.text : null;
    }, 20000);
    assert.match(page, /data-testid="job-attempts">1 of/);
    assert.ok(!w.lines.some((l) => new RegExp(`execute job_id=${jobId} .*attempt=2`).test(l)), 'the job was adopted, not retried');
    const t = await H.openTable(h, 'e2e', 'docs', 'survivor');
    assert.deepEqual((await t.listIndices()).map((i) => i.name), ['survivor_idx']);
  });

  it('cancel from the console stops a running index build and the job ends canceled', async () => {
    for (const w of h.workers) await w.stop();
    h.workers.length = 0;
    // Large enough that the build is still running when the cancel lands
    // (10,000 rows built in about a second on an idle machine).
    await H.seedTable(h, { bucket: 'e2e', name: 'tocancel', appends: 1, perAppend: 60000, dims: 32 });
    const w = H.startWorker(h);
    await w.waitFor(/msg=connected/);
    const sub = await H.taskApi(h, 'e2e', 'POST', '/table/docs$tocancel/create_vector_index', {
      column: 'vector', index_type: 'IVF_PQ', num_partitions: 64, num_sub_vectors: 8, max_iterations: 50,
    });
    assert.equal(sub.status, 200, sub.text);
    const line = await w.waitFor(/msg=execute job_id=\S+ job_type=lance_vector_index table=e2e\$docs\$tocancel/);
    const jobId = /job_id=(\S+)/.exec(line)[1];
    await H.sleep(500);
    const c = await H.consoleClient(h);
    const started = Date.now();
    const r = await c.post(`/jobs/${jobId}/cancel`);
    assert.ok(r.status < 400, `cancel answered ${r.status}: ${r.text.slice(0, 200)}`);
    await w.waitFor(new RegExp(`msg=cancel job_id=${jobId}`));
    const done = await w.waitFor(new RegExp(`msg="execute done" job_id=${jobId} .*success=false`), 20000);
    assert.match(done, /error="canceled: /);
    assert.ok(Date.now() - started < 15000, 'the build was stopped, not waited for');
    const page = await c.get(`/jobs/${jobId}`);
    assert.match(page.text, /canceled/i);
    const t = await H.openTable(h, 'e2e', 'docs', 'tocancel');
    assert.deepEqual(await t.listIndices(), []);
  });
});
