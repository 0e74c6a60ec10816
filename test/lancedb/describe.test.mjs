// Detailed describe: the schema floe reads from the manifest in Go is the
// schema LanceDB (0.39, and 0.31 in its run) reports for the same table, and the row and fragment
// counts match LanceDB's.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as arrow from "apache-arrow";
import { connect, rest, skipUnless, tableId } from "./helpers.mjs";

const B = "floe-describe";

// jsonArrowType renders an Arrow JS type the way the Lance Namespace spec's
// JsonArrowDataType (and Lance's own conversion) names it.
function jsonArrowType(t) {
  const D = arrow.DataType;
  if (D.isInt(t)) return { type: `${t.isSigned ? "" : "u"}int${t.bitWidth}` };
  if (D.isFloat(t)) return { type: ["float16", "float32", "float64"][t.precision] };
  if (D.isBool(t)) return { type: "bool" };
  if (D.isUtf8(t)) return { type: "utf8" };
  if (D.isLargeUtf8(t)) return { type: "large_utf8" };
  if (D.isBinary(t)) return { type: "binary" };
  if (D.isLargeBinary(t)) return { type: "large_binary" };
  if (D.isTimestamp(t)) return { type: "timestamp" };
  if (D.isDate(t)) return { type: t.unit === arrow.DateUnit.DAY ? "date32" : "date64" };
  if (D.isFixedSizeBinary(t)) return { type: "fixed_size_binary", length: t.byteWidth };
  if (D.isFixedSizeList(t)) return { type: "fixed_size_list", fields: t.children.map(jsonArrowField), length: t.listSize };
  if (D.isList(t)) return { type: "list", fields: t.children.map(jsonArrowField) };
  if (D.isStruct(t)) return { type: "struct", fields: t.children.map(jsonArrowField) };
  return { type: `unmapped ${t}` };
}

function jsonArrowField(f) {
  return { name: f.name, nullable: f.nullable, type: jsonArrowType(f.type) };
}

// withoutMetadata drops the optional metadata maps, which the two sides
// need not agree on (LanceDB adds none here).
function withoutMetadata(fields) {
  return fields.map(({ name, nullable, type }) => ({
    name,
    nullable,
    type: type.fields ? { ...type, fields: withoutMetadata(type.fields) } : type,
  }));
}

test("detailed describe matches LanceDB's schema and counts", { skip: skipUnless("online") }, async () => {
  const db = await connect();
  await db.createNamespace([B]);
  await db.createNamespace([B, "ns"]);
  const schema = new arrow.Schema([
    new arrow.Field("id", new arrow.Int64(), false),
    new arrow.Field("label", new arrow.Utf8(), true),
    new arrow.Field("vector", new arrow.FixedSizeList(4, new arrow.Field("item", new arrow.Float32(), true)), true),
    new arrow.Field("meta", new arrow.Struct([new arrow.Field("score", new arrow.Float64(), true), new arrow.Field("ok", new arrow.Bool(), true)]), true),
    new arrow.Field("tags", new arrow.List(new arrow.Field("item", new arrow.Utf8(), true)), true),
    new arrow.Field("at", new arrow.TimestampMicrosecond("UTC"), true),
    new arrow.Field("small", new arrow.Int16(), true),
  ]);
  const rows = (n, s) =>
    Array.from({ length: n }, (_, i) => ({
      id: s + i, label: `r${s + i}`, vector: [1, 2, 3, s + i], meta: { score: i / 2, ok: i % 2 === 0 },
      tags: ["a"], at: new Date(1700000000000 + i), small: i,
    }));
  const table = await db.createTable("wide", rows(10, 0), [B, "ns"], { schema });
  await table.add(rows(6, 10));
  await table.delete("id < 4");

  const d = await rest("POST", `/v1/table/${tableId(B, "ns", "wide")}/describe`, { load_detailed_metadata: true });
  assert.equal(d.status, 200, JSON.stringify(d.body));
  assert.equal(d.body.properties["floe.stats_source"], "manifest");
  assert.equal(d.body.version, await table.version());
  const lance = (await table.schema()).fields.map(jsonArrowField);
  assert.deepEqual(withoutMetadata(d.body.schema.fields), lance);
  const stats = await table.stats();
  assert.equal(d.body.stats.num_rows, await table.countRows());
  assert.equal(d.body.stats.num_fragments, stats.fragmentStats.numFragments);
  assert.equal(d.body.stats.num_deleted_rows, 4);
});
