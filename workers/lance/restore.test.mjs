// RestoreTable through floe's Lance REST runs as a lance_restore job on the
// real worker: restoring version 2 makes a new version with version 2's rows,
// which LanceDB then reads.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as H from './testutil/harness.mjs';

const B = 'restore';
let h;
before(async () => {
  h = await H.startFloe();
  const w = H.startWorker(h);
  await w.waitFor(/msg=connected/);
});
after(async () => {
  await h?.stop();
});

async function restore(name, body) {
  const r = await fetch(`${h.lanceURL}/v1/table/${encodeURIComponent(`${B}$docs$${name}`)}/restore`, {
    method: 'POST', headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, text, json: text ? JSON.parse(text) : null };
}

describe('RestoreTable on the real worker', () => {
  it('restores version 2 as a new version LanceDB reads', async () => {
    const t = await H.seedTable(h, { bucket: B, name: 'hist', appends: 3, perAppend: 40 }); // versions 1, 2, 3
    assert.equal(await t.version(), 3);
    const v2 = await H.openTable(h, B, 'docs', 'hist');
    await v2.checkout(2);
    const want = await H.checksum(v2);
    assert.equal(want.rows, 80);

    const r = await restore('hist', { version: 2 });
    assert.equal(r.status, 200, r.text);
    assert.ok(r.json.transaction_id, r.text);

    const reopened = await H.openTable(h, B, 'docs', 'hist');
    assert.equal(await reopened.version(), 4, 'a restore makes a new version');
    assert.deepEqual(await H.checksum(reopened), want, 'the new version holds version 2\'s rows');
  });

  it('refuses a version the table does not have, and a missing version, without a job', async () => {
    await H.seedTable(h, { bucket: B, name: 'short', appends: 1, perAppend: 10 });
    let r = await restore('short', { version: 9 });
    assert.equal(r.status, 404, r.text);
    assert.equal(r.json.code, 11);
    r = await restore('short', {});
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.code, 13);
    const t = await H.openTable(h, B, 'docs', 'short');
    assert.equal(await t.version(), 1);
  });
});
