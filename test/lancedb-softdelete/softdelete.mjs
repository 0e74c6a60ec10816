// LanceDB 0.39 writing and reading through floe's Lance REST for the Go
// test TestSoftDeleteOnS3 (lancerest/soft_delete_s3_test.go), which starts
// a real SeaweedFS store and floe on it and runs this script with
// FLOE_LANCE_URL and FLOE_API_KEY:
//   node softdelete.mjs seed         bucket sd3, namespace ns, tables t (3 appends) and n (2)
//   node softdelete.mjs count NAME   prints {"rows": …, "versions": […]} of sd3.ns.NAME
import { connectNamespace } from "@lancedb/lancedb";

const url = process.env.FLOE_LANCE_URL ?? "";
const key = process.env.FLOE_API_KEY ?? "";
if (url === "" || key === "") {
  console.error("set FLOE_LANCE_URL and FLOE_API_KEY (go test ./lancerest -run TestSoftDeleteOnS3 does)");
  process.exit(2);
}
const NS = ["sd3", "ns"];
const db = await connectNamespace("rest", { uri: url, headers: { "x-api-key": key } });
const rows = (n, start) => Array.from({ length: n }, (_, i) => ({ id: start + i, label: `row ${start + i}` }));

const [mode, name] = process.argv.slice(2);
if (mode === "seed") {
  await db.createNamespace([NS[0]]);
  await db.createNamespace(NS);
  for (const [table, appends] of [["t", 3], ["n", 2]]) {
    const tbl = await db.createTable(table, rows(10, 0), NS);
    for (let a = 1; a < appends; a++) await tbl.add(rows(10, a * 10));
  }
  console.log(JSON.stringify({ seeded: true }));
} else if (mode === "count") {
  const tbl = await db.openTable(name, NS);
  const versions = (await tbl.listVersions()).map((v) => v.version).sort((a, b) => a - b);
  console.log(JSON.stringify({ rows: await tbl.countRows(), versions }));
} else {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
