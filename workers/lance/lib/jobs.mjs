// Execution of the seven job types against a table resolved through floe's
// Lance REST for this job alone. Each job reports progress by stage, returns
// before/after figures, and says exactly which parts of LanceDB's combined
// optimize() ran. A parameter LanceDB 0.39 cannot honour fails the job with
// a sentence saying so; nothing is silently ignored. The executors live by
// kind in job_optimize, job_versions and job_index.

import { catalogFor, identOf, refFromIdent, TableGoneError } from './catalog.mjs';
import { descriptors } from './descriptors.mjs';
import { observeTable } from './observe.mjs';
import { shortError } from './log.mjs';
import { Params, ParamError, parseSettings, readSettings } from './params.mjs';
import { CanceledError, checkCanceled } from './job_common.mjs';
import { compact, optimizeIndices } from './job_optimize.mjs';
import { cleanup, restore } from './job_versions.mjs';
import { scalarIndex, vectorIndex, dropIndex } from './job_index.mjs';

export { CanceledError } from './job_common.mjs';
export { cleanupPlan } from './job_versions.mjs';

/** Resolve the job's table reference from the spec. */
export function jobRef(spec, known) {
  const o = spec.object;
  if (o && o.bucket && o.name) return { bucket: o.bucket, namespace: o.namespace || [], name: o.name };
  const fromKnown = known?.get?.(spec.object_id);
  if (fromKnown) return fromKnown;
  // Task-API jobs name their table in the parameters (namespace levels
  // joined by ".", as the catalog joins them).
  const p = spec.parameters || {};
  if (p.bucket && p.table && p.namespace) return { bucket: p.bucket, namespace: p.namespace.split('.'), name: p.table };
  return refFromIdent(spec.object_id);
}

function figures(a) {
  return {
    rows: a.rows, fragments: a.fragments, small_fragments: a.small_fragments, files: a.files,
    version: a.version, versions: a.versions, bytes: a.bytes, unindexed_rows: a.unindexed_rows,
    indices: a.indices.length,
  };
}

/** Flatten before/after figures and extra fields into the result map<string,string>. */
function resultMap(before, after, extra) {
  const m = {};
  for (const [k, v] of Object.entries(figures(before))) m[`${k}_before`] = String(v);
  for (const [k, v] of Object.entries(figures(after))) m[`${k}_after`] = String(v);
  for (const [k, v] of Object.entries(extra)) m[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return m;
}

/**
 * Run one job.
 * @param {object} spec JobSpec (job_id, job_type, object_id, parameters, cluster, settings_json, object)
 * @param {{progress: Function, signal?: AbortSignal, ref?: object}} ctx
 * @returns {Promise<{success, error, result, result_json, summary, observation}>}
 */
export async function runJob(spec, ctx) {
  const progress = ctx.progress || (() => {});
  const signal = ctx.signal;
  const impl = executors[spec.job_type];
  if (!impl) return fail(`this worker does not execute ${spec.job_type}`);
  const ref = ctx.ref || jobRef(spec);
  // A job that cannot name its table, or names one that was dropped and
  // re-created since, does not apply: any retry repeats the same answer, so
  // the failure is permanent and the console does not try again.
  if (!ref) return fail(`cannot tell which table object ${spec.object_id} is: the job carries no table reference and the id is unknown to this worker`, true);
  const ident = identOf(ref);
  try {
    const params = new Params(spec.parameters, ctx.defs);
    const settings = readSettings(descriptors[spec.job_type], parseSettings(spec.settings_json));
    const plan = impl.plan(params, settings); // validates before touching the table
    progress('resolving', 2, `resolving ${ident} through the Lance REST`);
    const catalog = catalogFor(spec.cluster);
    const d = await catalog.describe(ref);
    if (spec.object_id && spec.object_id !== ident && d.tableId !== ident && d.tableId !== spec.object_id) {
      return fail(`table ${ident} now has id ${d.tableId}, not ${spec.object_id}: it was dropped and re-created since the job was made, so the job does not apply to it`, true);
    }
    let table = await catalog.open(ref);
    checkCanceled(signal);
    progress('observing', 5, 'reading figures before the job');
    const before = await observeTable(table);
    checkCanceled(signal);
    const out = await impl.run(table, plan, before, { progress, signal, catalog, ref, managed: d.managed });
    // On a managed table every commit the job made went through floe's
    // CreateTableVersion (LanceDB opened it through the namespace), so the
    // catalog's version record already holds them.
    if (d.managed) (out.extra ||= {}).commits = 'through floe (managed versioning): every version this job made is in the catalog\'s version record';
    // The work is committed: a cancel that arrives now cannot undo it, so
    // the job reports what it did (and that the cancel came too late)
    // rather than "canceled" beside a table that changed.
    if (signal?.aborted) (out.extra ||= {}).cancel_note = 'the cancel arrived after the work was committed; the job finished';
    progress('observing', 95, 'reading figures after the job');
    // The work is done; figures read afterwards must not turn it into a
    // failure. A fresh handle through the catalog is preferred; if the
    // catalog is unreachable, the job's own handle (which sees its own
    // commits) is read instead.
    let after;
    const extra = out.extra || {};
    try {
      const fresh = await catalog.open(ref);
      try {
        after = await observeTable(fresh);
      } finally {
        fresh.close();
      }
    } catch (e) {
      await table.checkoutLatest().catch(() => {});
      after = await observeTable(table);
      extra.after_note = `figures after the job were read from the job's own handle: reopening through the catalog failed (${shortError(e)})`;
    }
    table.close();
    const result = resultMap(before, after, extra);
    const resultJSON = JSON.stringify({ table: ident, table_id: d.tableId, before: figures(before), after: figures(after), ...extra });
    return { success: true, error: '', result, result_json: resultJSON, summary: out.summary(before, after), observation: { object_id: d.tableId, attrs: after } };
  } catch (e) {
    if (e instanceof CanceledError) return { success: false, canceled: true, error: `canceled: ${e.message}`, result: { canceled: 'true' }, result_json: '', summary: 'canceled' };
    // Neither a refused parameter nor a vanished table gets better on a
    // retry: say so, and the console fails the job at once.
    if (e instanceof ParamError) return fail(e.message, true);
    if (e instanceof TableGoneError) return fail(e.message, true);
    return fail(`${spec.job_type} on ${ident} failed: ${shortError(e)}`);
  }
}

function fail(error, permanent = false) {
  return { success: false, permanent, error, result: {}, result_json: '', summary: error };
}

export const executors = {
  lance_compact: compact,
  lance_optimize_indices: optimizeIndices,
  lance_cleanup: cleanup,
  lance_scalar_index: scalarIndex,
  lance_vector_index: vectorIndex,
  lance_restore: restore,
  lance_drop_index: dropIndex,
};
