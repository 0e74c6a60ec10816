// The Lance worker on an S3 warehouse: floe serve --with-worker on a real
// S3 store, a fragmented table written through LanceDB, compaction and an
// index build submitted through the task API and run by the bundled
// worker, then the console's Browse Data page of the table. The Go test
// TestLanceWorkerOnS3 (test/s3worker) starts SeaweedFS and runs this file
// with FLOE_TEST_S3_ENDPOINT, FLOE_TEST_S3_BUCKET, FLOE_TEST_S3_VEND and
// the store's keys in AWS_*; without them it skips.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as H from './testutil/harness.mjs';

const endpoint = process.env.FLOE_TEST_S3_ENDPOINT ?? '';
const bucket = process.env.FLOE_TEST_S3_BUCKET ?? '';
const vend = process.env.FLOE_TEST_S3_VEND || 'static';
const skip = endpoint === '' || bucket === '' ? 'needs a store: go test ./test/s3worker starts one and runs this file' : false;

const B = 's3lake';
const APPENDS = 12;
const PER = 200;

/** s3Args are serve's flags for a warehouse in the test store. */
function s3Args() {
  const args = ['--warehouse', `s3://${bucket}/wh`, '--s3-endpoint', endpoint, '--s3-region', process.env.AWS_REGION || 'us-east-1',
    '--s3-path-style', '--vend-credentials', vend];
  if (vend === 'sts') args.push('--s3-sts-role-arn', process.env.FLOE_TEST_S3_ROLE_ARN || '');
  return args;
}

async function task(h, route, body) {
  const sub = await H.taskApi(h, B, 'POST', `/table/docs$frag/${route}`, body);
  assert.equal(sub.status, 200, sub.text);
  const id = sub.json.task_id;
  return H.eventually(async () => {
    const g = await H.taskApi(h, B, 'GET', `/table/docs$frag/tasks/${id}`);
    const ti = g.json?.task_info;
    return ti && ['completed', 'failed', 'canceled'].includes(ti.status) ? ti : null;
  }, 180000, 500);
}

describe('the Lance worker on an S3 warehouse', { skip }, () => {
  let h;
  before(async () => {
    h = await H.startFloe({ extraArgs: [...s3Args(), '--with-worker'] });
  });
  after(async () => {
    if (process.env.FLOE_TEST_VERBOSE) console.error(h?.logs.slice(-60).join('\n'));
    await h?.stop();
  });

  it('compacts a fragmented S3 table, builds an index on it, and the console browses it', async () => {
    const t = await H.seedTable(h, { bucket: B, name: 'frag', appends: APPENDS, perAppend: PER, dims: 16 });
    const d = await H.taskApi(h, B, 'GET', '/table/docs$frag/tasks?task_type=lance_compact');
    assert.equal(d.status, 200, d.text);
    const sum = await H.checksum(t);
    assert.equal(sum.rows, APPENDS * PER);
    // The scheduler may propose the same compaction from its own detection;
    // either way the table ends in one fragment with every row.
    const c = await task(h, 'compact', {});
    assert.equal(c.status, 'completed', JSON.stringify(c));
    const t2 = await H.openTable(h, B, 'docs', 'frag');
    assert.equal((await t2.stats()).fragmentStats.numFragments, 1);
    assert.deepEqual(await H.checksum(t2), sum);

    const ix = await task(h, 'create_scalar_index', { column: 'category', index_type: 'BITMAP' });
    assert.equal(ix.status, 'completed', JSON.stringify(ix));
    const t3 = await H.openTable(h, B, 'docs', 'frag');
    assert.ok((await t3.listIndices()).some((i) => i.name === 'category_idx'), 'no category_idx after the index build');
    assert.match(await t3.query().where("category = 'gamma'").explainPlan(), /category_idx/);

    // DescribeTable says where the table is: on the store.
    const desc = await fetch(`${h.lanceURL}/v1/table/${encodeURIComponent(`${B}$docs$frag`)}/describe`, {
      method: 'POST', headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ id: [B, 'docs', 'frag'] }),
    });
    const dj = await desc.json();
    assert.match(dj.location, new RegExp(`^s3://${bucket}/wh/${B}/docs/frag\\.lance$`));

    // Browse Data through the console: the worker reads the S3 table.
    const con = await H.consoleClient(h);
    const page = await con.get(`/buckets/${B}/namespaces/docs/tables/frag/data?limit=50`);
    assert.equal(page.status, 200, page.text.slice(0, 500));
    assert.equal((page.text.match(/data-testid="grid-row"/g) || []).length, 50, page.text.slice(0, 800));
    assert.match(page.text, /document \d+/);
  });
});
