// One append through managed versioning (the client's manifest write plus
// CreateTableVersion and floe's final copy) against the same append on an
// unmanaged bucket (the object store's conditional PUT), alternating one by
// one on one floe, so both see the same machine. Run by BenchmarkManagedAppendS3
// (lancerest/s3managed_test.go), which hands over FLOE_LANCE_URL,
// FLOE_API_KEY and FLOE_BENCH_APPENDS, and prints the JSON line this writes.
import { connectNamespace } from "@lancedb/lancedb";

const url = process.env.FLOE_LANCE_URL;
const key = process.env.FLOE_API_KEY;
const appends = Number(process.env.FLOE_BENCH_APPENDS || 40);
const db = await connectNamespace("rest", { uri: url, headers: { "x-api-key": key } });

const rows = (n, start) => Array.from({ length: n }, (_, i) => ({ id: start + i, v: `row-${start + i}` }));

async function open(bucket, managed) {
  await db.createNamespace([bucket], { properties: { "floe.managed_versioning": String(managed) } });
  await db.createNamespace([bucket, "ns"]);
  await db.createTable("t", rows(10, 0), [bucket, "ns"]);
  return db.openTable("t", [bucket, "ns"]);
}

const run = Date.now().toString(36); // a bucket pair of its own per run
const tables = { managed: await open(`bm-${run}`, true), unmanaged: await open(`bp-${run}`, false) };
const times = { managed: [], unmanaged: [] };
for (const t of Object.values(tables)) await t.add(rows(10, 10)); // warm both paths
for (let i = 0; i < appends; i++) {
  const order = i % 2 === 0 ? ["managed", "unmanaged"] : ["unmanaged", "managed"];
  for (const k of order) {
    const t0 = process.hrtime.bigint();
    await tables[k].add(rows(10, 100 + i * 10));
    times[k].push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const out = {
  appends,
  managed_p50_ms: pct(times.managed, 0.5),
  unmanaged_p50_ms: pct(times.unmanaged, 0.5),
  managed_p90_ms: pct(times.managed, 0.9),
  unmanaged_p90_ms: pct(times.unmanaged, 0.9),
};
out.ratio_p50 = out.managed_p50_ms / out.unmanaged_p50_ms;
console.log(JSON.stringify(out));
