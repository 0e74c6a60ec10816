// The Lance REST's index and stats operations against a real floe and the
// real worker: indices built through CreateTableIndex/CreateTableScalarIndex
// (task jobs on the worker), then GetTableStats, CountTableRows,
// ListTableIndices and DescribeTableIndexStats (read in Go from the
// manifest) must answer exactly what LanceDB 0.39's own stats(),
// countRows(), listIndices() and indexStats() answer for the same table;
// DropTableIndex (a worker job) leaves LanceDB without the index.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as H from './testutil/harness.mjs';

const B = 'idxops';
let h;
before(async () => {
  h = await H.startFloe();
  const w = H.startWorker(h);
  await w.waitFor(/msg=connected/);
});
after(async () => {
  await h?.stop();
});

async function rest(name, op, body) {
  const r = await fetch(`${h.lanceURL}/v1/table/${encodeURIComponent(`${B}$docs$${name}`)}/${op}`, {
    method: 'POST', headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { /* a bare number is JSON too */ }
  return { status: r.status, text, json };
}

async function listed(name) {
  const r = await rest(name, 'index/list', {});
  assert.equal(r.status, 200, r.text);
  return r.json.indexes;
}

describe('index and stats operations against LanceDB 0.39', () => {
  it('answer what LanceDB itself answers, for indices built and dropped through floe', async () => {
    const t = await H.seedTable(h, { bucket: B, name: 'corpus', appends: 3, perAppend: 120, dims: 16 });

    // Builds through the namespace: each answers at once with its job.
    const builds = [
      ['create_scalar_index', { column: 'id', index_type: 'BTREE' }],
      ['create_index', { column: 'category', index_type: 'bitmap' }],
      ['create_scalar_index', { column: 'title', index_type: 'FTS', with_position: false }],
      ['create_index', { column: 'vector', index_type: 'IVF_PQ', name: 'vec', num_partitions: 2, num_sub_vectors: 4, distance_type: 'cosine' }],
    ];
    for (const [op, body] of builds) {
      const r = await rest('corpus', op, body);
      assert.equal(r.status, 200, `${op} ${JSON.stringify(body)}: ${r.text}`);
      assert.match(r.json.transaction_id, /\S/, r.text);
    }
    await H.eventually(async () => (await listed('corpus')).length === 4, 120000);

    // Rows the indices do not cover yet, and deleted rows in covered ones.
    await t.checkoutLatest();
    await t.add(H.rows(1000, 30, 16));
    await t.delete('id < 7');

    const lance = await H.openTable(h, B, 'docs', 'corpus');
    const [mine, theirs] = [await listed('corpus'), await lance.listIndices()];
    assert.deepEqual(mine.map((i) => i.index_name).sort(), theirs.map((i) => i.name).sort());
    for (const ix of theirs) {
      const m = mine.find((x) => x.index_name === ix.name);
      const st = await lance.indexStats(ix.name);
      assert.equal(m.index_uuid, ix.indexUuid, ix.name);
      assert.deepEqual(m.columns, ix.columns, ix.name);
      assert.equal(m.index_type, st.indexType, ix.name);
      assert.equal(m.type_url, ix.typeUrl, ix.name);
      assert.equal(m.num_indexed_rows, ix.numIndexedRows, ix.name);
      assert.equal(m.num_unindexed_rows, ix.numUnindexedRows, ix.name);
      assert.equal(m.size_bytes, ix.sizeBytes, ix.name);
      assert.equal(m.num_segments, ix.numSegments, ix.name);
      assert.equal(m.index_version, ix.indexVersion, ix.name);
      assert.equal(new Date(m.created_at).getTime(), new Date(ix.createdAt).getTime(), ix.name);

      const s = await rest('corpus', `index/${encodeURIComponent(ix.name)}/stats`, {});
      assert.equal(s.status, 200, s.text);
      assert.deepEqual(s.json, {
        index_type: st.indexType, num_indexed_rows: st.numIndexedRows, num_unindexed_rows: st.numUnindexedRows,
        num_indices: st.numIndices, ...(st.distanceType ? { distance_type: st.distanceType } : {}),
      }, ix.name);
    }
    assert.equal(mine.find((i) => i.index_name === 'vec').num_unindexed_rows, 30, 'the rows added after the builds');

    const count = await rest('corpus', 'count_rows', {});
    assert.equal(count.status, 200, count.text);
    assert.equal(Number(count.text), await lance.countRows());
    assert.equal(Number(count.text), 360 + 30 - 7);

    const stats = await rest('corpus', 'stats', {});
    assert.equal(stats.status, 200, stats.text);
    const ls = await lance.stats();
    assert.deepEqual(stats.json, {
      total_bytes: ls.totalBytes, num_rows: ls.numRows, num_indices: ls.numIndices,
      fragment_stats: {
        num_fragments: ls.fragmentStats.numFragments, num_small_fragments: ls.fragmentStats.numSmallFragments,
        lengths: { ...ls.fragmentStats.lengths },
      },
    });

    // An older version answers its own figures.
    const v2 = await rest('corpus', 'count_rows', { version: 2 });
    assert.equal(Number(v2.text), 240, v2.text);

    // DropTableIndex waits for its job; LanceDB then lists no such index.
    const drop = await rest('corpus', 'index/category_idx/drop');
    assert.equal(drop.status, 200, drop.text);
    assert.match(drop.json.transaction_id, /\S/);
    const reopened = await H.openTable(h, B, 'docs', 'corpus');
    assert.deepEqual((await reopened.listIndices()).map((i) => i.name).sort(), ['id_idx', 'title_idx', 'vec']);
    assert.deepEqual((await listed('corpus')).map((i) => i.index_name).sort(), ['id_idx', 'title_idx', 'vec']);
    assert.equal((await rest('corpus', 'stats', {})).json.num_indices, (await reopened.stats()).numIndices);
  });

  it('refuses what the manifest already rules out, before any job', async () => {
    await H.seedTable(h, { bucket: B, name: 'small', appends: 1, perAppend: 20, dims: 8 });
    let r = await rest('small', 'create_index', { column: 'nope', index_type: 'BTREE' });
    assert.equal(r.status, 404, r.text);
    assert.equal(r.json.code, 12);
    r = await rest('small', 'index/nope/stats', {});
    assert.equal(r.status, 404, r.text);
    assert.equal(r.json.code, 6);
    r = await rest('small', 'index/nope/drop');
    assert.equal(r.status, 404, r.text);
    assert.equal(r.json.code, 6);
    r = await rest('small', 'count_rows', { predicate: 'id > 3' });
    assert.equal(r.status, 406, r.text);
    assert.equal(r.json.code, 0);
  });
});
