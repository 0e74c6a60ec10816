// Observation attributes of one Lance table, read cheaply: table stats,
// the version list (whose per-version metadata already carries rows,
// fragments, files and bytes, so history needs no checkout of old
// versions), the index list (which in LanceDB 0.39 carries indexed and
// unindexed row counts) and the schema.

// historyLimit is how many recent versions an observation carries: enough
// for the console's versions chart, small enough to keep a message tiny.
export const historyLimit = 50;

export function fieldJSON(f) {
  const out = { name: f.name, type: String(f.type), nullable: !!f.nullable };
  const kids = f.type?.children;
  if (kids && kids.length) out.children = kids.map(fieldJSON);
  return out;
}

function num(v) {
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** Read the figures of an open table. */
export async function observeTable(table) {
  const [stats, version, versions, indices, schema] = await Promise.all([
    table.stats(),
    table.version(),
    table.listVersions(),
    table.listIndices(),
    table.schema(),
  ]);
  const idx = [];
  for (const i of indices) {
    let indexed = i.numIndexedRows;
    let unindexed = i.numUnindexedRows;
    if (indexed === undefined || unindexed === undefined) {
      const s = await table.indexStats(i.name);
      indexed = s?.numIndexedRows;
      unindexed = s?.numUnindexedRows;
    }
    idx.push({ name: i.name, type: i.indexType, columns: i.columns, indexed_rows: indexed ?? null, unindexed_rows: unindexed ?? null });
  }
  versions.sort((a, b) => a.version - b.version);
  const history = versions.slice(-historyLimit).map((v) => ({
    version: v.version,
    time: v.timestamp.toISOString(),
    rows: num(v.metadata?.total_rows),
    fragments: num(v.metadata?.total_fragments),
    files: num(v.metadata?.total_data_files),
    bytes: num(v.metadata?.total_files_size),
  }));
  const latest = versions.find((v) => v.version === version);
  return {
    rows: stats.numRows,
    fragments: stats.fragmentStats.numFragments,
    small_fragments: stats.fragmentStats.numSmallFragments,
    files: num(latest?.metadata?.total_data_files),
    version,
    versions: versions.length,
    oldest_version: versions[0]?.version ?? null,
    bytes: stats.totalBytes,
    schema: schema.fields.map(fieldJSON),
    indices: idx,
    unindexed_rows: idx.reduce((m, i) => Math.max(m, i.unindexed_rows ?? 0), 0),
    history,
    // internal: the raw version list for detection; stripped before sending.
    _versions: versions.map((v) => ({ version: v.version, ms: v.timestamp.getTime() })),
  };
}

/** The JSON sent in an Observation (internal fields removed). */
export function attributesJSON(attrs) {
  const { _versions, ...rest } = attrs;
  return JSON.stringify(rest);
}

export function observationMessage(objectId, attrs, at = Date.now()) {
  return { object_id: objectId, format: 'LANCE', observed_at_unix_ms: at, attributes_json: attributesJSON(attrs) };
}
