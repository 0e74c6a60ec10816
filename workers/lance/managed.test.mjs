// The worker's jobs on a managed table (its bucket has managed versioning,
// so floe is the commit authority): compaction, an index build, restore and
// cleanup all commit through floe, and afterwards floe's version record is
// exactly the table's _versions/ manifests.

import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runJob } from './lib/jobs.mjs';
import { versionRanges } from './lib/catalog.mjs';
import * as H from './testutil/harness.mjs';

const B = 'managed';
let h;
let defs;
before(async () => {
  h = await H.startFloe();
  defs = await H.jobParams(h);
  const db = await H.connect(h);
  await db.createNamespace([B], { properties: { 'floe.managed_versioning': 'true' } });
});
after(async () => {
  await h?.stop();
});

const spec = (job_type, name, parameters = {}) => ({
  job_id: `job-${name}-${job_type}`, job_type, object_id: `${B}$docs$${name}`, parameters, attempt: 1,
  cluster: h.cluster, settings_json: '{}', object: { bucket: B, namespace: ['docs'], name },
});
const run = (s) => runJob(s, { progress: () => {}, defs: defs[s.job_type] });

async function rest(name, op, body = {}) {
  const r = await fetch(`${h.lanceURL}/v1/table/${encodeURIComponent(`${B}$docs$${name}`)}/${op}`, {
    method: 'POST', headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null, text };
}

/** floe's version record of a table, and the versions its _versions/ holds on disk. */
async function recordAndStorage(name) {
  const listed = await rest(name, 'version/list');
  assert.equal(listed.status, 200, listed.text);
  const recorded = listed.json.versions.map((v) => v.version);
  const dir = join(h.dir, 'warehouse', B, 'docs', `${name}.lance`, '_versions');
  const stored = readdirSync(dir).filter((f) => f.endsWith('.manifest'))
    .map((f) => (f.length === 29 ? Number(18446744073709551615n - BigInt(f.slice(0, 20))) : Number(f.slice(0, -9))))
    .sort((a, b) => a - b);
  return { recorded, stored };
}

describe('jobs on a managed table commit through floe', () => {
  it('compaction appears in floe\'s version list', async () => {
    await H.seedTable(h, { bucket: B, name: 'compact', appends: 6, perAppend: 30 }); // versions 1..6, through floe
    const d = await rest('compact', 'describe');
    assert.equal(d.json.managed_versioning, true, d.text);
    const r = await run(spec('lance_compact', 'compact'));
    assert.equal(r.success, true, r.error);
    assert.match(r.result.commits, /through floe/);
    const after = Number(r.result.version_after);
    assert.ok(after > 6, `compaction made version ${after}`);
    const latest = await rest('compact', 'version/list?limit=1&descending=true');
    assert.equal(latest.json.versions[0].version, after, 'the compaction is the latest version floe recorded');
    const { recorded, stored } = await recordAndStorage('compact');
    assert.deepEqual(recorded, stored);
    assert.equal(r.result.rows_after, '180');
  });

  it('an index build and a restore are versions floe recorded', async () => {
    await H.seedTable(h, { bucket: B, name: 'idx', appends: 3, perAppend: 40 });
    let r = await run(spec('lance_scalar_index', 'idx', { column: 'id', index_type: 'BTREE' }));
    assert.equal(r.success, true, r.error);
    const built = Number(r.result.version_after);
    assert.equal((await rest('idx', 'describe')).json.version, built);
    // The job RestoreTable hands a worker, run here in-process.
    r = await run({ ...spec('lance_restore', 'idx', { version: '2' }), job_id: 'restore-idx' });
    assert.equal(r.success, true, r.error);
    const table = await H.openTable(h, B, 'docs', 'idx');
    assert.equal(await table.countRows(), 80, 'the restored version holds version 2\'s rows');
    const { recorded, stored } = await recordAndStorage('idx');
    assert.deepEqual(recorded, stored);
    assert.equal(recorded[recorded.length - 1], await table.version());
  });

  it('cleanup forgets the versions it pruned, so the record still equals _versions/', async () => {
    await H.seedTable(h, { bucket: B, name: 'clean', appends: 6, perAppend: 10 });
    const r = await run(spec('lance_cleanup', 'clean', { retain_versions: '2' }));
    assert.equal(r.success, true, r.error);
    const removed = JSON.parse(r.result.versions_removed);
    assert.ok(removed.length >= 4, `removed ${removed}`);
    assert.equal(Number(r.result.catalog_records_forgotten), removed.length);
    const { recorded, stored } = await recordAndStorage('clean');
    assert.deepEqual(recorded, stored);
    assert.equal(stored.length, 2);
  });

  it('versionRanges covers version numbers with the fewest ranges', () => {
    assert.deepEqual(versionRanges([5, 1, 2, 3, 7, 6]), [{ start_version: 1, end_version: 4 }, { start_version: 5, end_version: 8 }]);
    assert.deepEqual(versionRanges([]), []);
  });
});
