// Execution functions driven directly (unit level) against real datasets
// created through a real floe's Lance REST. Every test seeds its own table.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as lancedb from '@lancedb/lancedb';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { runJob, cleanupPlan } from './lib/jobs.mjs';
import { startExecution } from './lib/runner.mjs';
import * as H from './testutil/harness.mjs';

let h;
let defs; // the task parameters' definitions, as floe sends them in Welcome
before(async () => {
  h = await H.startFloe();
  defs = await H.jobParams(h);
});
after(async () => {
  await h?.stop();
});

const B = 'jobs';
const spec = (job_type, name, parameters = {}) => ({
  job_id: `job-${name}-${job_type}`, job_type, object_id: `${B}$docs$${name}`, parameters, attempt: 1,
  cluster: h.cluster, settings_json: '{}', object: { bucket: B, namespace: ['docs'], name },
});
const run = (s) => {
  const stages = [];
  return runJob(s, { progress: (stage, percent) => stages.push({ stage, percent }), defs: defs[s.job_type] }).then((r) => ({ ...r, stages }));
};

describe('lance_compact', () => {
  it('turns 12 fragments into 1 with every row intact', async () => {
    const t = await H.seedTable(h, { bucket: B, name: 'compact12', appends: 12, perAppend: 150 });
    const sumBefore = await H.checksum(t);
    assert.equal((await t.stats()).fragmentStats.numFragments, 12);
    const r = await run(spec('lance_compact', 'compact12'));
    assert.equal(r.success, true, r.error);
    assert.equal(r.result.fragments_before, '12');
    assert.equal(r.result.fragments_after, '1');
    assert.equal(r.result.versions_removed, '0');
    assert.match(r.result.ran, /compaction/);
    assert.match(r.result.engine_note, /no version was removed/);
    assert.ok(r.stages.some((s) => s.stage === 'compacting'));
    const t2 = await H.openTable(h, B, 'docs', 'compact12');
    assert.equal((await t2.stats()).fragmentStats.numFragments, 1);
    assert.deepEqual(await H.checksum(t2), sumBefore);
    assert.equal(sumBefore.rows, 1800);
  });

  it('refuses a parameter LanceDB cannot honour, with a sentence, and leaves the table alone', async () => {
    await H.seedTable(h, { bucket: B, name: 'compactrefuse', appends: 3, perAppend: 10 });
    for (const [k, v] of [['target_rows_per_fragment', '5000'], ['compaction_mode', 'try_binary_copy'], ['materialize_deletions', 'false'], ['max_bytes_per_file', '1000']]) {
      const r = await run(spec('lance_compact', 'compactrefuse', { [k]: v }));
      assert.equal(r.success, false);
      assert.match(r.error, new RegExp(`${k}=.*cannot be honoured`));
    }
    const t = await H.openTable(h, B, 'docs', 'compactrefuse');
    assert.equal((await t.stats()).fragmentStats.numFragments, 3);
  });

  it('fails with the reason when the table has vanished', async () => {
    const db = await H.connect(h);
    await H.seedTable(h, { bucket: B, name: 'vanish', appends: 1, perAppend: 10 });
    await db.dropTable('vanish', [B, 'docs']);
    const r = await run(spec('lance_compact', 'vanish'));
    assert.equal(r.success, false);
    assert.match(r.error, /vanish.*(no longer exists|could not be opened)/);
  });
});

describe('lance_optimize_indices', () => {
  it('brings the rows appended after an IVF_PQ build into the index', async () => {
    const t = await H.seedTable(h, { bucket: B, name: 'optidx', appends: 1, perAppend: 2000 });
    await t.createIndex('vector', { config: lancedb.Index.ivfPq({ numPartitions: 4, numSubVectors: 4 }), name: 'vec_idx' });
    await t.add(H.rows(2000, 512));
    assert.equal((await t.indexStats('vec_idx')).numUnindexedRows, 512);
    const r = await run(spec('lance_optimize_indices', 'optidx'));
    assert.equal(r.success, true, r.error);
    assert.equal(r.result.unindexed_rows_before, '512');
    assert.equal(r.result.unindexed_rows_after, '0');
    assert.match(r.result.ran, /index_refresh/);
    const t2 = await H.openTable(h, B, 'docs', 'optidx');
    const st = await t2.indexStats('vec_idx');
    assert.equal(st.numUnindexedRows, 0);
    assert.equal(st.numIndexedRows, 2512);
  });

  it('refuses retrain and an index list that leaves other indices out', async () => {
    const t = await H.seedTable(h, { bucket: B, name: 'optrefuse', appends: 1, perAppend: 300 });
    await t.createIndex('id', { config: lancedb.Index.btree() });
    await t.createIndex('category', { config: lancedb.Index.bitmap() });
    let r = await run(spec('lance_optimize_indices', 'optrefuse', { retrain: 'true' }));
    assert.equal(r.success, false);
    assert.match(r.error, /retrain=true cannot be honoured/);
    r = await run(spec('lance_optimize_indices', 'optrefuse', { index_names: '["id_idx"]' }));
    assert.equal(r.success, false);
    assert.match(r.error, /refreshes every index together.*category_idx/);
  });
});

describe('lance_cleanup', () => {
  it('retain_versions 2 on an untagged table leaves exactly the latest two', async () => {
    const t = await H.seedTable(h, { bucket: B, name: 'clean2', appends: 6, perAppend: 50 });
    assert.equal((await t.listVersions()).length, 6);
    const r = await run(spec('lance_cleanup', 'clean2', { retain_versions: '2' }));
    assert.equal(r.success, true, r.error);
    const t2 = await H.openTable(h, B, 'docs', 'clean2');
    const left = (await t2.listVersions()).map((v) => v.version).sort((a, b) => a - b);
    const latest = await t2.version();
    assert.deepEqual(left, [latest - 1, latest]);
    assert.deepEqual(JSON.parse(r.result.versions_kept), left);
    assert.equal(await t2.countRows(), 300);
    assert.match(r.result.ran, /prune/);
  });

  it('keeps a tagged older version, does not error, and says what it kept and why', async () => {
    const t = await H.seedTable(h, { bucket: B, name: 'cleantag', appends: 8, perAppend: 20 });
    await (await t.tags()).create('release', 4);
    const r = await run(spec('lance_cleanup', 'cleantag', { retain_versions: '1', older_than: '0s' }));
    assert.equal(r.success, true, r.error);
    const t2 = await H.openTable(h, B, 'docs', 'cleantag');
    const left = (await t2.listVersions()).map((v) => v.version);
    assert.ok(left.includes(4), `tagged version 4 must survive, left ${left}`);
    for (const v of [1, 2, 3]) assert.ok(!left.includes(v), `version ${v} is older than the tag and should go`);
    const kept = JSON.parse(r.result.versions_kept_for_tags);
    assert.ok(kept.includes(4) && kept.includes(5), `kept for tags: ${kept}`);
    assert.match(r.result.tag_note, /tagged "release".*cannot prune past a tagged version/);
    assert.match(r.summary, /because of tag "release"/);
    await t2.checkout('release');
    assert.equal(await t2.countRows(), 80);
  });

  it('parses task-API durations and refuses garbage', async () => {
    await H.seedTable(h, { bucket: B, name: 'cleanbad', appends: 2, perAppend: 5 });
    let r = await run(spec('lance_cleanup', 'cleanbad', { older_than: '7w' }));
    assert.equal(r.success, false);
    assert.match(r.error, /older_than "7w" is refused: A whole number and d, h, m or s/); // floe's definition says why
    r = await run(spec('lance_cleanup', 'cleanbad', { older_than: '7d', delete_unverified: 'true' }));
    assert.equal(r.success, false);
    assert.match(r.error, /delete_unverified=true cannot be honoured/);
    r = await run(spec('lance_cleanup', 'cleanbad', { older_than: '7d' }));
    assert.equal(r.success, true, r.error);
    assert.deepEqual(JSON.parse(r.result.versions_removed), []);
  });

  // Issue 24: a dry run deletes nothing and names exactly the files the
  // real run with the same policy then deletes, with their bytes. LanceDB
  // 0.39 cannot list them; floe computes them from the manifests.
  it('dry run lists exactly what the cleanup that follows deletes, file for file', async () => {
    await H.seedTable(h, { bucket: B, name: 'cleandry', appends: 6, perAppend: 40 });
    // One fragment first, so the real run's optimize() has nothing to
    // compact and the two plans see the same versions.
    let r = await run(spec('lance_compact', 'cleandry'));
    assert.equal(r.success, true, r.error);
    const dir = join(h.dir, 'warehouse', B, 'docs', 'cleandry.lance');
    const tree = () => {
      const out = new Map();
      const walk = (d) => {
        for (const e of readdirSync(d, { withFileTypes: true })) {
          const p = join(d, e.name);
          if (e.isDirectory()) walk(p);
          else out.set(relative(dir, p), statSync(p).size);
        }
      };
      walk(dir);
      return out;
    };
    const before = tree();
    // A parameter cleanup does not know fails the job before anything goes.
    r = await run(spec('lance_cleanup', 'cleandry', { retain_versions: '2', dryrun: 'true' }));
    assert.equal(r.success, false);
    assert.match(r.error, /refuses parameters it does not know: dryrun; nothing was deleted/);
    assert.deepEqual(tree(), before, 'a refused cleanup changed the dataset');
    r = await run(spec('lance_cleanup', 'cleandry', { retain_versions: '2', dry_run: 'true' }));
    assert.equal(r.success, true, r.error);
    assert.equal(r.result.ran, 'dry_run');
    assert.match(r.result.engine_note, /LanceDB 0\.39 cannot list what its cleanup would delete/);
    assert.deepEqual(tree(), before, 'a dry run changed the dataset');
    const planned = JSON.parse(r.result.files_would_delete);
    assert.ok(planned.length > 0, 'the dry run plans no deletion: the test proves nothing');
    assert.equal(Number(r.result.bytes_would_delete), planned.reduce((n, f) => n + before.get(f.path), 0));
    const versions = (await (await H.openTable(h, B, 'docs', 'cleandry')).listVersions()).map((v) => v.version).sort((a, b) => a - b);
    assert.deepEqual(JSON.parse(r.result.versions_would_keep), versions.slice(-2));
    assert.deepEqual(JSON.parse(r.result.versions_would_remove), versions.slice(0, -2));

    r = await run(spec('lance_cleanup', 'cleandry', { retain_versions: '2' }));
    assert.equal(r.success, true, r.error);
    const after = tree();
    const deleted = [...before.keys()].filter((p) => !after.has(p)).sort();
    assert.deepEqual(deleted, planned.map((f) => f.path).sort());
    assert.equal(await (await H.openTable(h, B, 'docs', 'cleandry')).countRows(), 240);
  });

  it('plans by count, by age and around tags', () => {
    const now = 1_000_000_000;
    const vs = [1, 2, 3, 4, 5, 6].map((v) => ({ version: v, ms: now - (7 - v) * 3600_000 }));
    assert.deepEqual(cleanupPlan(vs, {}, { retainVersions: 2, olderThanS: null }, now).remove, [1, 2, 3, 4]);
    assert.deepEqual(cleanupPlan(vs, {}, { retainVersions: null, olderThanS: 3 * 3600 + 60 }, now).remove, [1, 2, 3]);
    assert.deepEqual(cleanupPlan(vs, {}, { retainVersions: 5, olderThanS: 0 }, now).remove, [1]);
    const p = cleanupPlan(vs, { keep: 2 }, { retainVersions: 1, olderThanS: null }, now);
    assert.deepEqual(p.remove, [1]);
    assert.deepEqual(p.keptForTags, [2, 3, 4, 5]);
    assert.ok(p.cutoffMs > vs[0].ms && p.cutoffMs <= vs[1].ms);
  });
});

describe('index builds', () => {
  it('scalar BTREE and BITMAP and FTS indices are used by queries', async () => {
    await H.seedTable(h, { bucket: B, name: 'scalar', appends: 1, perAppend: 2000 });
    let r = await run(spec('lance_scalar_index', 'scalar', { column: 'id', index_type: 'BTREE', name: 'id_btree' }));
    assert.equal(r.success, true, r.error);
    r = await run(spec('lance_scalar_index', 'scalar', { column: 'category', index_type: 'BITMAP' }));
    assert.equal(r.success, true, r.error);
    r = await run(spec('lance_scalar_index', 'scalar', { column: 'title', index_type: 'FTS', with_position: 'false', base_tokenizer: 'simple' }));
    assert.equal(r.success, true, r.error);
    assert.equal(JSON.parse(r.result.index).indexed_rows, 2000);
    const t = await H.openTable(h, B, 'docs', 'scalar');
    assert.match(await t.query().where('id = 17').explainPlan(), /id_btree/);
    assert.match(await t.query().where("category = 'beta'").explainPlan(), /category_idx/);
    assert.match(await t.search('document', 'fts').limit(3).explainPlan(), /MatchQuery/);
    const names = (await t.listIndices()).map((i) => i.name).sort();
    assert.deepEqual(names, ['category_idx', 'id_btree', 'title_idx']);
    r = await run(spec('lance_scalar_index', 'scalar', { column: 'id', index_type: 'BTREE', name: 'id_btree' }));
    assert.equal(r.success, false);
    assert.match(r.error, /already exists; set replace=true/);
    r = await run(spec('lance_scalar_index', 'scalar', { column: 'nope', index_type: 'BTREE' }));
    assert.match(r.error, /column nope does not exist/);
  });

  for (const [type, params] of [
    ['IVF_PQ', { num_partitions: '4', num_sub_vectors: '4', num_bits: '8', distance_type: 'l2', max_iterations: '20', sample_rate: '64' }],
    ['IVF_HNSW_SQ', { num_partitions: '2', m: '8', ef_construction: '50', distance_type: 'cosine' }],
    ['IVF_FLAT', { num_partitions: '4' }],
  ]) {
    it(`vector ${type} index is used by a vector search`, async () => {
      const name = `vec_${type.toLowerCase()}`;
      await H.seedTable(h, { bucket: B, name, appends: 1, perAppend: 2000 });
      const r = await run(spec('lance_vector_index', name, { column: 'vector', index_type: type, name: 'vidx', ...params }));
      assert.equal(r.success, true, r.error);
      assert.equal(JSON.parse(r.result.index).indexed_rows, 2000);
      const t = await H.openTable(h, B, 'docs', name);
      const plan = await t.vectorSearch(new Array(32).fill(0.5)).limit(5).explainPlan();
      assert.match(plan, /ANN|vidx/);
      assert.match(plan, /vidx/);
    });
  }

  it('refuses a vector parameter the index type does not take', async () => {
    await H.seedTable(h, { bucket: B, name: 'vecrefuse', appends: 1, perAppend: 50 });
    const r = await run(spec('lance_vector_index', 'vecrefuse', { column: 'vector', index_type: 'IVF_FLAT', num_sub_vectors: '4' }));
    assert.equal(r.success, false);
    assert.match(r.error, /num_sub_vectors cannot be honoured for IVF_FLAT/);
  });
});

describe('cancel', () => {
  it('stops a long index build in its process and the job ends canceled', async () => {
    await H.seedTable(h, { bucket: B, name: 'cancelbig', appends: 1, perAppend: 20000, dims: 64 });
    const s = spec('lance_vector_index', 'cancelbig', { column: 'vector', index_type: 'IVF_PQ', num_partitions: '64', num_sub_vectors: '16', max_iterations: '100', sample_rate: '1024' });
    const events = [];
    const done = new Promise((resolve) => {
      const handle = startExecution(s, s.object, {
        progress: (p) => {
          events.push(p.stage);
          if (p.stage === 'building') setTimeout(() => handle.cancel('test cancel'), 300);
        },
        done: resolve,
      });
    });
    const started = Date.now();
    const { completed } = await done;
    assert.equal(completed.success, false);
    assert.equal(completed.canceled, true);
    assert.match(completed.error, /canceled: test cancel; stopped during building/);
    assert.ok(Date.now() - started < 20000, 'cancel must not wait for the build to finish');
    const t = await H.openTable(h, B, 'docs', 'cancelbig');
    assert.deepEqual((await t.listIndices()).map((i) => i.name), [], 'the killed build committed no index');
  });
});
