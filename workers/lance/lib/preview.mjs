// Preview: up to row_limit rows of the requested columns matching the filter,
// as Arrow IPC stream bytes, plus the table's total row count.

import { createRequire } from 'node:module';
import { catalogFor } from './catalog.mjs';

// LanceDB loads apache-arrow through require(); its Tables are only
// recognised by that same (CommonJS) copy, not by the ESM build an import
// would give us.
const { tableToIPC } = createRequire(import.meta.url)('apache-arrow');

// maxPreviewRows caps a preview whatever the console asks: previews are for
// people to look at, not exports.
export const maxPreviewRows = 10000;
// chunkBytes keeps each PreviewChunk well under gRPC's 4 MiB message limit.
export const chunkBytes = 1 << 20;

// maxPreviewOffset caps how many rows a preview skips: the engine reads
// and drops each one, and the console pages no deeper.
export const maxPreviewOffset = 1_000_000;

/**
 * @param {object} req Preview message (row_limit, columns, filter, version, offset, cluster)
 * @param {object} ref table reference
 * @returns {Promise<{chunks: Uint8Array[], total_rows: number, rows_sent: number, truncated: boolean}>}
 */
export async function runPreview(req, ref, signal) {
  const limit = Math.min(maxPreviewRows, Math.max(0, req.row_limit > 0 ? req.row_limit : 100));
  const offset = Math.min(maxPreviewOffset, Math.max(0, Number(req.offset) || 0));
  const version = Number(req.version) || 0;
  const catalog = catalogFor(req.cluster);
  const table = await catalog.open(ref);
  try {
    if (version > 0) {
      // Time travel: read the table as of that version (the console
      // resolves tags to versions before asking).
      try {
        await table.checkout(version);
      } catch (e) {
        throw new Error(`version ${version} cannot be read: ${e.message}`, { cause: e });
      }
    }
    const total = await table.countRows();
    if (signal?.aborted) throw new Error('canceled');
    let q = table.query();
    if (req.filter) q = q.where(req.filter);
    if (req.columns?.length) q = q.select(req.columns);
    if (offset > 0) q = q.offset(offset);
    const arrow = await q.limit(limit + 1).toArrow();
    if (signal?.aborted) throw new Error('canceled');
    const truncated = arrow.numRows > limit;
    const rows = truncated ? arrow.slice(0, limit) : arrow;
    const ipc = tableToIPC(rows, 'stream');
    const chunks = [];
    for (let off = 0; off < ipc.byteLength; off += chunkBytes) chunks.push(ipc.subarray(off, Math.min(ipc.byteLength, off + chunkBytes)));
    return { chunks, total_rows: total, rows_sent: rows.numRows, truncated };
  } finally {
    table.close();
  }
}
