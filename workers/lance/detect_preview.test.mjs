// Detection and preview against real tables seeded through floe's Lance REST.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tableFromIPC } from 'apache-arrow';
import { rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { detect, decide } from './lib/detect.mjs';
import { runPreview } from './lib/preview.mjs';
import { Params, parseDurationSeconds, readSettings } from './lib/params.mjs';
import { descriptors, descriptorMessage, JOB_TYPES } from './lib/descriptors.mjs';
import * as H from './testutil/harness.mjs';

let h;
before(async () => {
  h = await H.startFloe();
});
after(async () => {
  await h?.stop();
});

async function sweep(jobType, settings = {}) {
  const proposals = [];
  const observations = [];
  const res = await detect({ job_type: jobType, settings_json: JSON.stringify(settings), cluster: h.cluster, max_proposals: 0 }, {
    proposals: (l) => proposals.push(...l),
    observations: (l) => observations.push(...l),
  });
  return { ...res, proposals, observations };
}

describe('detection', () => {
  it('a targeted observe-only request reads just the named tables and proposes nothing', async () => {
    await H.seedTable(h, { bucket: 'tgt', name: 'busy', appends: 12, perAppend: 10 });
    await H.seedTable(h, { bucket: 'tgt', name: 'other', appends: 1, perAppend: 10 });
    const busyId = await H.tableId(h, 'tgt', 'docs', 'busy');
    const proposals = [];
    const observations = [];
    const res = await detect({
      job_type: 'lance_compact', settings_json: '{}', cluster: h.cluster, max_proposals: 0, observe_only: true,
      objects: [{ bucket: 'tgt', namespace: ['docs'], name: 'busy' }, { bucket: '', namespace: [], name: 'bad' }],
    }, { proposals: (l) => proposals.push(...l), observations: (l) => observations.push(...l) });
    assert.equal(res.error, '');
    assert.deepEqual(proposals, [], 'observe-only proposes nothing, though 12 fragments pass the threshold');
    assert.deepEqual(observations.map((o) => o.object_id), [busyId], 'only the named table, the nameless ref dropped');
    assert.equal(JSON.parse(observations[0].attributes_json).version, 12);
  });

  it('proposes compaction for a 12-fragment table and not for a 1-fragment one, and observes both', async () => {
    await H.seedTable(h, { bucket: 'det', name: 'many', appends: 12, perAppend: 20 });
    await H.seedTable(h, { bucket: 'det', name: 'one', appends: 1, perAppend: 240 });
    const manyId = await H.tableId(h, 'det', 'docs', 'many');
    const oneId = await H.tableId(h, 'det', 'docs', 'one');
    const s = await sweep('lance_compact');
    assert.equal(s.error, '');
    const mine = s.proposals.filter((p) => p.object_id === manyId || p.object_id === oneId);
    assert.deepEqual(mine.map((p) => p.object_id), [manyId]);
    assert.equal(mine[0].dedupe_key, `lance_compact:${manyId}`);
    assert.match(mine[0].summary, /12 fragments/);
    const obs = Object.fromEntries(s.observations.map((o) => [o.object_id, JSON.parse(o.attributes_json)]));
    assert.equal(obs[manyId].fragments, 12);
    assert.equal(obs[manyId].rows, 240);
    assert.equal(obs[manyId].versions, 12);
    assert.equal(obs[manyId].history.length, 12);
    assert.deepEqual(obs[manyId].history.at(-1), { ...obs[manyId].history.at(-1), version: 12, rows: 240, fragments: 12 });
    assert.deepEqual(obs[manyId].schema.map((f) => f.name), ['id', 'title', 'category', 'vector']);
    assert.equal(obs[manyId].schema[3].children[0].type, 'Float32');
    assert.equal(obs[oneId].fragments, 1);
    assert.equal(s.observations[0].format, 'LANCE');
    // threshold from settings, clamped: 13 > 12 fragments means no proposal
    const s13 = await sweep('lance_compact', { min_fragments: 13 });
    assert.ok(!s13.proposals.some((p) => p.object_id === manyId));
    // and the sweep says why, per table
    const why = Object.fromEntries(s13.skipped.map((x) => [x.object_id, x.summary]));
    assert.equal(why[manyId], '12 fragments (0 small), threshold 13'.replace('(0 small)', `(${obs[manyId].small_fragments} small)`));
    assert.ok(!s.skipped.some((x) => x.object_id === manyId), 'a proposed table is not listed as skipped');
  });

  it('proposes index optimization only past max_unindexed_rows and reports indices', async () => {
    const t = await H.seedTable(h, { bucket: 'det', name: 'idx', appends: 1, perAppend: 300 });
    const { Index } = await import('@lancedb/lancedb');
    await t.createIndex('id', { config: Index.btree() });
    await t.add(H.rows(300, 40));
    const id = await H.tableId(h, 'det', 'docs', 'idx');
    let s = await sweep('lance_optimize_indices', { max_unindexed_rows: 100 });
    assert.ok(!s.proposals.some((p) => p.object_id === id));
    s = await sweep('lance_optimize_indices', { max_unindexed_rows: 0 });
    assert.ok(s.proposals.some((p) => p.object_id === id));
    const o = JSON.parse(s.observations.find((x) => x.object_id === id).attributes_json);
    assert.deepEqual(o.indices, [{ name: 'id_idx', type: 'BTree', columns: ['id'], indexed_rows: 300, unindexed_rows: 40 }]);
  });

  it('skips a table that cannot be opened with one warning naming it', async () => {
    await H.seedTable(h, { bucket: 'det', ns: 'broken', name: 'gone', appends: 1, perAppend: 5 });
    const { Catalog } = await import('./lib/catalog.mjs');
    const d = await new Catalog({ url: h.lanceURL, apiKey: h.apiKey }).describe({ bucket: 'det', namespace: ['broken'], name: 'gone' });
    rmSync(fileURLToPath(d.location.startsWith('file:') ? d.location : pathToFileURL(d.location)), { recursive: true, force: true });
    const lines = [];
    const write = process.stderr.write;
    process.stderr.write = (chunk, ...rest) => {
      lines.push(String(chunk));
      return write.call(process.stderr, chunk, ...rest);
    };
    let s;
    try {
      s = await sweep('lance_compact');
    } finally {
      process.stderr.write = write;
    }
    assert.equal(s.error, '', 'one broken table does not fail the sweep');
    const warnings = lines.filter((l) => /level=warn/.test(l) && /det\$broken\$gone/.test(l));
    assert.equal(warnings.length, 1, lines.join(''));
    assert.match(warnings[0], /skipping table.*reason=/);
    assert.ok(s.observations.length >= 1, 'the other tables are still observed');
  });

  it('cleanup decision counts versions older than the window against the floor', () => {
    const d = descriptors.lance_cleanup;
    const now = Date.now();
    const attrs = { rows: 1, fragments: 1, small_fragments: 1, versions: 15, indices: [], unindexed_rows: 0, _versions: Array.from({ length: 15 }, (_, i) => ({ version: i + 1, ms: now - (20 - i) * 86400_000 })) };
    assert.equal(decide('lance_cleanup', readSettings(d, {}), attrs, now).propose, true);
    const v = decide('lance_cleanup', readSettings(d, { min_versions_to_keep: 15 }), attrs, now);
    assert.equal(v.propose, false);
    assert.deepEqual(decide('lance_cleanup', readSettings(d, {}), attrs, now).parameters, { older_than: '168h', retain_versions: '10' });
  });
});

describe('settings', () => {
  it('clamps out-of-range and garbage values, never trusts them', () => {
    const d = descriptors.lance_compact;
    assert.equal(readSettings(d, { min_fragments: -5 }).min_fragments, 2);
    assert.equal(readSettings(d, { min_fragments: 1e12 }).min_fragments, 100000);
    assert.equal(readSettings(d, { min_fragments: 'many' }).min_fragments, 8);
    // Job parameters are floe's (Welcome.job_params), not settings of this form.
    assert.equal('compaction_mode' in readSettings(d, { compaction_mode: 'reencode' }), false);
    assert.equal(readSettings(descriptors.lance_cleanup, { retain_hours: 1e9 }).retain_hours, 87600);
  });

  it('every job type has a descriptor with defaults inside its ranges; periodic ones are enabled', () => {
    for (const t of JOB_TYPES) {
      const m = descriptorMessage(t);
      for (const sec of m.form.sections) {
        for (const f of sec.fields) {
          if (f.min !== undefined && f.type === 'FIELD_TYPE_INT') {
            const v = Number(f.default_value);
            assert.ok(v >= f.min && v <= f.max, `${t}.${f.name} default ${v} outside [${f.min}, ${f.max}]`);
          }
          assert.ok(f.help, `${t}.${f.name} has help`);
        }
      }
      const periodic = ['lance_compact', 'lance_optimize_indices', 'lance_cleanup'].includes(t);
      assert.equal(m.runtime.enabled, periodic, t);
      if (periodic) assert.ok(m.runtime.detection_interval_seconds >= 300);
    }
  });
});

describe('parameters', () => {
  it('reads task-API durations and lists, and refuses what it cannot read', () => {
    assert.equal(parseDurationSeconds('7d'), 604800);
    assert.equal(parseDurationSeconds('168h'), 604800);
    assert.equal(parseDurationSeconds('30m'), 1800);
    assert.equal(parseDurationSeconds('10s'), 10);
    for (const bad of ['7w', '1.5h', '-1d', '1h30m', '7D', ' ', 'd']) assert.equal(parseDurationSeconds(bad), null, bad);
    const p = new Params({ a: '["x","y"]', b: 'x, y\nz', n: '12', f: 'yes' });
    assert.deepEqual(p.list('a'), ['x', 'y']);
    assert.deepEqual(p.list('b'), ['x', 'y', 'z']);
    assert.deepEqual(p.list('missing'), []);
    assert.equal(p.int('n', 0, { min: 1, max: 20 }), 12);
    assert.throws(() => p.int('n', 0, { max: 5 }), /between/);
    assert.throws(() => p.bool('f', false), /true or false/);
  });
});

describe('preview', () => {
  it('returns the requested columns, respects filter and limit, and counts the table', async () => {
    await H.seedTable(h, { bucket: 'prev', name: 'rows', appends: 3, perAppend: 100 });
    const ref = { bucket: 'prev', namespace: ['docs'], name: 'rows' };
    let out = await runPreview({ row_limit: 7, columns: ['id', 'category'], filter: "category = 'beta'", cluster: h.cluster }, ref);
    let t = tableFromIPC(Buffer.concat(out.chunks));
    assert.deepEqual(t.schema.fields.map((f) => f.name), ['id', 'category']);
    assert.equal(t.numRows, 7);
    assert.equal(out.rows_sent, 7);
    assert.equal(out.truncated, true);
    assert.equal(out.total_rows, 300);
    for (let i = 0; i < t.numRows; i++) assert.equal(t.getChild('category').get(i), 'beta');
    out = await runPreview({ row_limit: 500, columns: [], filter: 'id < 10', cluster: h.cluster }, ref);
    t = tableFromIPC(Buffer.concat(out.chunks));
    assert.equal(t.numRows, 10);
    assert.equal(out.truncated, false);
    assert.deepEqual(t.schema.fields.map((f) => f.name), ['id', 'title', 'category', 'vector']);
    await assert.rejects(runPreview({ row_limit: 5, columns: [], filter: 'nonsense ===', cluster: h.cluster }, ref));
  });

  it('reads an older version (time travel) and pages past the first rows by offset', async () => {
    await H.seedTable(h, { bucket: 'prevtt', name: 'rows', appends: 3, perAppend: 100 });
    const ref = { bucket: 'prevtt', namespace: ['docs'], name: 'rows' };
    let out = await runPreview({ row_limit: 500, columns: ['id'], version: 1, cluster: h.cluster }, ref);
    let t = tableFromIPC(Buffer.concat(out.chunks));
    assert.equal(out.total_rows, 100, 'version 1 holds the first append only');
    assert.equal(t.numRows, 100);
    assert.equal(Math.max(...Array.from({ length: t.numRows }, (_, i) => Number(t.getChild('id').get(i)))), 99);
    out = await runPreview({ row_limit: 500, columns: ['id'], version: 2, cluster: h.cluster }, ref);
    assert.equal(out.total_rows, 200);
    out = await runPreview({ row_limit: 100, columns: ['id'], offset: 250, cluster: h.cluster }, ref);
    t = tableFromIPC(Buffer.concat(out.chunks));
    assert.equal(out.total_rows, 300);
    assert.equal(t.numRows, 50, 'rows 251–300 of the latest version');
    assert.equal(out.truncated, false);
    const ids = new Set(Array.from({ length: t.numRows }, (_, i) => Number(t.getChild('id').get(i))));
    const first = await runPreview({ row_limit: 250, columns: ['id'], cluster: h.cluster }, ref);
    const ft = tableFromIPC(Buffer.concat(first.chunks));
    for (let i = 0; i < ft.numRows; i++) assert.ok(!ids.has(Number(ft.getChild('id').get(i))), 'a page never repeats an earlier row');
    await assert.rejects(runPreview({ row_limit: 5, columns: [], version: 99, cluster: h.cluster }, ref), /version 99 cannot be read/);
  });
});
