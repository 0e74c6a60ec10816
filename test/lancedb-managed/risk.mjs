// What a store without conditional PUT does to an UNMANAGED Lance table:
// eight LanceDB 0.39 writers append concurrently to a table of a bucket
// without managed versioning, so each commits its manifest straight to the
// store with If-None-Match, which the store ignores. Run by
// TestUnmanagedRiskWithoutConditionalPut (lancerest/s3managed_nocond_test.go)
// on SeaweedFS behind s3test's stripping proxy; it prints one JSON line:
// the appends LanceDB acknowledged and the rows the table holds after.
import { connectNamespace } from "@lancedb/lancedb";

const url = process.env.FLOE_LANCE_URL;
const key = process.env.FLOE_API_KEY;
const WRITERS = 8;
const APPENDS = 5;
const PER_APPEND = 10;
const connect = () => connectNamespace("rest", { uri: url, headers: { "x-api-key": key } });
const rows = (n, start) => Array.from({ length: n }, (_, i) => ({ id: start + i, writer: Math.floor((start + i) / 1000) }));
const NS = ["risk", "ns"];

const db = await connect();
await db.createNamespace(["risk"]);
await db.createNamespace(NS);
await db.createTable("log", rows(1, 0), NS);
let acknowledged = 0;
let failed = 0;
await Promise.all(
  Array.from({ length: WRITERS }, async (_, w) => {
    const table = await (await connect()).openTable("log", NS);
    for (let a = 0; a < APPENDS; a++) {
      try {
        await table.add(rows(PER_APPEND, (w + 1) * 1000 + a * PER_APPEND));
        acknowledged++;
      } catch {
        failed++;
      }
    }
  }),
);
const table = await (await connect()).openTable("log", NS);
const present = ((await table.countRows()) - 1) / PER_APPEND;
console.log(JSON.stringify({ acknowledged, failed, appends_present: present, lost: acknowledged - present }));
