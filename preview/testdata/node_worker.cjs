// A minimal worker in Node, for the interop test: it connects with
// @grpc/grpc-js and @grpc/proto-loader exactly as the Lance worker does,
// answers DescribeJobType, and serves a preview built with apache-arrow.
// Usage: node node_worker.cjs <host:port> <token> <proto path>
'use strict';
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const arrow = require('apache-arrow');

const [addr, token, protoPath] = process.argv.slice(2);
const def = protoLoader.loadSync(protoPath, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true });
const { PluginService } = grpc.loadPackageDefinition(def).floe.plugin.v1;
const client = new PluginService(addr, grpc.credentials.createInsecure());
const md = new grpc.Metadata();
md.set('authorization', 'Bearer ' + token);
const call = client.Connect(md);

call.write({ hello: {
  worker_id: 'node-worker', instance_id: 'node-' + process.pid, version: 'test',
  capabilities: [{ job_type: 'lance_compact', lane: 'lance', can_detect: true, can_execute: true, descriptor_version: '1' }],
  preview_formats: ['LANCE'],
} });
call.write({ observations: { observations: [{ object_id: 'node-table', format: 'LANCE',
  observed_at_unix_ms: String(Date.now()), attributes_json: JSON.stringify({ rows: 3 }) }] } });

function previewIPC() {
  const base = arrow.tableFromArrays({ id: Int32Array.from([1, 2, 3]), tag: ['a', 'b', null] });
  const extra = new arrow.Table({
    name: arrow.vectorFromArray(['x', '', null], new arrow.Utf8()),
    vec: arrow.vectorFromArray([[1, 2, 3, 4, 5, 6], [0.5, 0, 0, 0, 0, 0], null],
      new arrow.FixedSizeList(6, new arrow.Field('item', new arrow.Float32(), true))),
  });
  return arrow.tableToIPC(base.assign(extra), 'stream');
}

call.on('data', (m) => {
  switch (m.body) {
    case 'describe_job_type':
      call.write({ request_id: m.request_id, job_descriptor: {
        job_type: m.describe_job_type.job_type, descriptor_version: '1', display_name: 'Compact',
        form: { sections: [{ name: 'main', fields: [
          { name: 'target_rows', label: 'Target rows', type: 'FIELD_TYPE_INT', min: 1, default_value: '1048576' },
        ] }] },
        runtime: { enabled: false, detection_interval_seconds: 600 },
      } });
      break;
    case 'preview': {
      const ipc = previewIPC();
      const half = Math.floor(ipc.length / 2);
      call.write({ request_id: m.request_id, preview_chunk: { arrow_ipc: Buffer.from(ipc.subarray(0, half)) } });
      call.write({ request_id: m.request_id, preview_chunk: { arrow_ipc: Buffer.from(ipc.subarray(half)) } });
      call.write({ request_id: m.request_id, preview_done: { total_rows: '3', rows_sent: '3' } });
      break;
    }
    case 'shutdown':
      call.end();
      break;
  }
});
call.on('error', () => process.exit(0));
call.on('end', () => process.exit(0));
process.stdin.on('end', () => process.exit(0)); // the test closes stdin to stop us
process.stdin.resume();
