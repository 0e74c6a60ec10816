// Lance task API with the real worker connected: a task the engine refuses
// ends `failed` carrying the engine's reason, and a compaction ends
// `completed` with a result that shows the fragments it merged.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as H from './testutil/harness.mjs';

const B = 'taskfail';
let h;
before(async () => {
  h = await H.startFloe();
  const w = H.startWorker(h);
  await w.waitFor(/msg=connected/);
});
after(async () => {
  await h?.stop();
});

const terminal = new Set(['completed', 'failed', 'canceled', 'cancelled']);

/** Submit a task on docs$<table> and poll its GET until the status is terminal. */
async function runTask(table, op, body) {
  const sub = await H.taskApi(h, B, 'POST', `/table/docs$${table}/${op}`, body);
  assert.equal(sub.status, 200, sub.text);
  const id = sub.json.task_id;
  assert.ok(id, `no task_id in ${sub.text}`);
  return H.eventually(async () => {
    const g = await H.taskApi(h, B, 'GET', `/table/docs$${table}/tasks/${id}`);
    assert.equal(g.status, 200, g.text);
    const ti = g.json?.task_info;
    return ti && terminal.has(ti.status) ? ti : null;
  }, 60000, 300);
}

describe('task API on the real worker', () => {
  it('create_vector_index on a column the table lacks ends failed naming the missing column and the columns the table has', async () => {
    await H.seedTable(h, { bucket: B, name: 'novec', appends: 1, perAppend: 300 });
    const info = await runTask('novec', 'create_vector_index', { column: 'no_such_column', index_type: 'IVF_PQ' });
    assert.equal(info.status, 'failed', JSON.stringify(info));
    if (process.env.FLOE_TEST_VERBOSE) console.error('failed task:', JSON.stringify(info));
    assert.ok(info.error, `failed task without error: ${JSON.stringify(info)}`);
    assert.equal(typeof info.error.message, 'string');
    // The worker checks the column against the schema LanceDB reports before building.
    assert.match(info.error.message, /no_such_column/);
    assert.match(info.error.message, /id, title, category, vector/);
    assert.ok(info.completed_at, 'a failed task has a completion time');
    const t = await H.openTable(h, B, 'docs', 'novec');
    assert.deepEqual(await t.listIndices(), [], 'a failed build leaves no index');
    assert.equal(await t.countRows(), 300);
  });

  it('compact on a 12-fragment table ends completed with the fragments removed in its result', async () => {
    const t = await H.seedTable(h, { bucket: B, name: 'frag12', appends: 12, perAppend: 50 });
    assert.equal((await t.stats()).fragmentStats.numFragments, 12);
    const sum = await H.checksum(t);
    const info = await runTask('frag12', 'compact', {});
    assert.equal(info.status, 'completed', JSON.stringify(info));
    assert.equal(info.error, null);
    const r = info.result;
    assert.ok(r && typeof r === 'object', `no result: ${JSON.stringify(info)}`);
    // Lance's compaction metrics: all 12 old fragments rewritten into 1 new one.
    assert.equal(r.fragments_removed, 12, `result: ${JSON.stringify(r)}`);
    assert.equal(r.fragments_added, 1, `result: ${JSON.stringify(r)}`);
    assert.equal(r.before?.fragments, 12);
    assert.equal(r.after?.fragments, 1);
    assert.equal(r.after?.rows, 600);
    const t2 = await H.openTable(h, B, 'docs', 'frag12');
    assert.equal((await t2.stats()).fragmentStats.numFragments, 1);
    assert.deepEqual(await H.checksum(t2), sum);
  });
});
