// Hardening item 10 (issue 23): a job made for a table that was then dropped
// and re-created under the same name does not apply to the new table. The
// worker says so and marks the failure permanent, so floe fails the job
// after its one attempt instead of retrying it three times over minutes.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runJob } from './lib/jobs.mjs';
import * as H from './testutil/harness.mjs';

const B = 'h10';
let h;
before(async () => {
  h = await H.startFloe();
});
after(async () => {
  await h?.stop();
});

async function dropTable(name) {
  const r = await fetch(`${h.lanceURL}/v1/table/${B}$docs$${name}/drop`, {
    method: 'POST', headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ id: [B, 'docs', name] }),
  });
  assert.equal(r.status, 200, await r.text());
}

describe('Hardening10 a job for a dropped and re-created table', () => {
  it('runJob fails it as permanent, naming both table ids', async () => {
    await H.seedTable(h, { bucket: B, name: 'direct', appends: 2, perAppend: 10 });
    const oldID = await H.tableId(h, B, 'docs', 'direct');
    await dropTable('direct');
    await H.seedTable(h, { bucket: B, name: 'direct', appends: 2, perAppend: 10 });
    const newID = await H.tableId(h, B, 'docs', 'direct');
    assert.notEqual(oldID, newID);
    const r = await runJob({
      job_id: 'job-h10', job_type: 'lance_compact', object_id: oldID, attempt: 1, cluster: h.cluster, settings_json: '{}',
      parameters: { bucket: B, namespace: 'docs', table: 'direct' },
    }, { progress: () => {}, defs: (await H.jobParams(h)).lance_compact });
    assert.equal(r.success, false);
    assert.equal(r.permanent, true, 'a job that does not apply is a permanent failure');
    assert.match(r.error, /does not apply/);
    assert.ok(r.error.includes(oldID) && r.error.includes(newID), r.error);
  });

  it('through floe: the task API job ends failed after one attempt', async () => {
    await H.seedTable(h, { bucket: B, name: 'again', appends: 2, perAppend: 10 });
    // A worker describes lance_compact first, so the job gets the job
    // type's retries (2); then it leaves, and the job waits, pending.
    const first = H.startWorker(h);
    await first.waitFor(/msg=connected/);
    const c = await H.consoleClient(h);
    await H.eventually(async () => /data-testid="settings-form"/.test((await c.get('/job-types/lance_compact')).text), 15000);
    await first.stop();
    const sub = await H.taskApi(h, B, 'POST', '/table/docs$again/compact', {});
    assert.equal(sub.status, 200, sub.text);
    await dropTable('again');
    await H.seedTable(h, { bucket: B, name: 'again', appends: 2, perAppend: 10 });
    const w = H.startWorker(h);
    await w.waitFor(/msg=connected/);
    const done = await w.waitFor(/msg="execute done" .*job_type=lance_compact success=false/, 60000);
    assert.match(done, /does not apply/);
    const jobID = /job_id=(\S+)/.exec(done)[1];
    const page = await H.eventually(async () => {
      const p = await c.get(`/jobs/${jobID}`);
      return /data-testid="job-progress"[^>]*data-state="failed"/.test(p.text) ? p : null;
    }, 15000);
    const attempts = /data-testid="job-attempts">([^<]*)</.exec(page.text)[1];
    assert.equal(attempts, '1 of 1', 'a permanent failure leaves no attempt to retry');
    assert.doesNotMatch(page.text, /retrying in/, 'the job was scheduled for a retry');
    assert.equal(w.lines.filter((l) => l.includes(`job_id=${jobID}`) && l.includes('msg=execute ')).length, 1, 'executed once');
  });
});
