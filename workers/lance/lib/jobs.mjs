// Execution of the seven job types against a table resolved through floe's
// Lance REST for this job alone. Each job reports progress by stage, returns
// before/after figures, and says exactly which parts of LanceDB's combined
// optimize() ran. A parameter LanceDB 0.39 cannot honour fails the job with
// a sentence saying so; nothing is silently ignored.

import * as lancedb from '@lancedb/lancedb';
import { catalogFor, identOf, refFromIdent, TableGoneError } from './catalog.mjs';
import { descriptors } from './descriptors.mjs';
import { observeTable } from './observe.mjs';
import { shortError } from './log.mjs';
import { Params, ParamError, parseDurationSeconds, parseSettings, readSettings } from './params.mjs';

export class CanceledError extends Error {}

// beforeEverything is a cleanup cutoff earlier than any version can be, so an
// optimize() that must not prune removes nothing.
const beforeEverything = new Date(0);

function checkCanceled(signal) {
  if (signal?.aborted) throw new CanceledError(String(signal.reason?.message || signal.reason || 'canceled'));
}

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

// ---- compaction ------------------------------------------------------------

// What LanceDB 0.39's optimize() can honour: its own compaction settings.
// (The parameters' definitions and defaults come from the console.)
const engineCompaction = { target_rows_per_fragment: 1048576, max_rows_per_group: 1024, max_bytes_per_file: 0, materialize_deletions_threshold: 0.1 };

function refuse(name, value, why) {
  throw new ParamError(`${name}=${value} cannot be honoured: ${why}; the job was not run rather than run with a different setting.`);
}

const compact = {
  plan(p) {
    const target = p.get('target_rows_per_fragment');
    if (target !== engineCompaction.target_rows_per_fragment) refuse('target_rows_per_fragment', target, 'LanceDB 0.39 optimize() always compacts to 1048576 rows per fragment');
    const group = p.get('max_rows_per_group');
    if (group !== engineCompaction.max_rows_per_group) refuse('max_rows_per_group', group, 'LanceDB 0.39 optimize() always writes groups of 1024 rows');
    const bytes = p.get('max_bytes_per_file');
    if (bytes !== engineCompaction.max_bytes_per_file) refuse('max_bytes_per_file', bytes, 'LanceDB 0.39 optimize() uses the engine default file size');
    const mat = p.get('materialize_deletions');
    if (!mat) refuse('materialize_deletions', mat, 'LanceDB 0.39 optimize() always materializes deletions past the threshold');
    const thr = p.get('materialize_deletions_threshold');
    if (thr !== 0 && thr !== engineCompaction.materialize_deletions_threshold) refuse('materialize_deletions_threshold', thr, 'LanceDB 0.39 optimize() always uses 0.1');
    const mode = p.get('compaction_mode');
    if (mode !== 'reencode') refuse('compaction_mode', mode, 'LanceDB 0.39 optimize() only re-encodes');
    return {};
  },
  async run(table, _plan, before, { progress }) {
    progress('compacting', 20, `compacting ${before.fragments} fragments`);
    const st = await table.optimize({ cleanupOlderThan: beforeEverything });
    if (st.prune.oldVersionsRemoved !== 0) throw new Error(`optimize() pruned ${st.prune.oldVersionsRemoved} versions although its cutoff was before the first version`);
    return {
      extra: {
        ran: 'compaction,index_refresh',
        engine_note: 'LanceDB 0.39 optimize() compacts, prunes and refreshes indices in one call: compaction ran; pruning ran with a cutoff before the first version, so no version was removed; index refresh ran on every index.',
        fragments_removed: st.compaction.fragmentsRemoved,
        fragments_added: st.compaction.fragmentsAdded,
        files_removed: st.compaction.filesRemoved,
        files_added: st.compaction.filesAdded,
        versions_removed: 0,
      },
      summary: (b, a) => `compacted ${b.fragments} → ${a.fragments} fragments (${st.compaction.filesRemoved} files removed, ${st.compaction.filesAdded} added); ${a.rows} rows; indices refreshed; no versions pruned`,
    };
  },
};

// ---- index optimization -------------------------------------------------------

const optimizeIndices = {
  plan(p) {
    const names = p.get('index_names');
    const merge = p.get('num_indices_to_merge');
    if (merge !== 0 && merge !== 1) refuse('num_indices_to_merge', merge, 'LanceDB 0.39 optimize() merges new data into one delta with its defaults');
    const retrain = p.get('retrain');
    if (retrain) refuse('retrain', true, 'LanceDB 0.39 optimize() cannot retrain an index (rebuild it with a create_*_index task and replace=true)');
    return { names };
  },
  async run(table, plan, before, { progress }) {
    const all = before.indices.map((i) => i.name);
    if (plan.names.length) {
      const missing = plan.names.filter((n) => !all.includes(n));
      if (missing.length) throw new ParamError(`index_names names ${missing.join(', ')}, which the table does not have (it has ${all.join(', ') || 'no indices'})`);
      const others = all.filter((n) => !plan.names.includes(n));
      if (others.length) refuse('index_names', plan.names.join(','), `LanceDB 0.39 optimize() refreshes every index together, and this table also has ${others.join(', ')}`);
    }
    if (all.length === 0) {
      return { extra: { ran: 'none', engine_note: 'The table has no indices; optimize() was not called, so nothing was compacted or pruned either.' }, summary: () => 'no indices to optimize; nothing ran' };
    }
    progress('optimizing', 20, `refreshing ${all.length} indices (${before.unindexed_rows} rows outside)`);
    const st = await table.optimize({ cleanupOlderThan: beforeEverything });
    return {
      extra: {
        ran: 'index_refresh,compaction',
        engine_note: 'LanceDB 0.39 optimize() compacts, prunes and refreshes indices in one call: index refresh ran on every index; compaction ran too (see fragments_removed); pruning ran with a cutoff before the first version, so no version was removed.',
        indices_refreshed: all,
        fragments_removed: st.compaction.fragmentsRemoved,
        fragments_added: st.compaction.fragmentsAdded,
        versions_removed: st.prune.oldVersionsRemoved,
      },
      summary: (b, a) => `refreshed ${all.length} indices: unindexed rows ${b.unindexed_rows} → ${a.unindexed_rows}; compaction also ran (${b.fragments} → ${a.fragments} fragments)`,
    };
  },
};

// ---- cleanup ----------------------------------------------------------------------

/**
 * Which versions cleanup may delete. versions: [{version, ms}] ascending;
 * tags: {name: version}. A version goes only if it is older than older_than
 * (when given) AND not among the newest retain_versions (when given); the
 * latest always stays. LanceDB prunes by time and refuses to prune a tagged
 * version, so the deletable set is a prefix that stops at the oldest tag.
 */
export function cleanupPlan(versions, tags, { olderThanS, retainVersions }, now = Date.now()) {
  const n = versions.length;
  let p = Math.max(0, n - 1); // the latest version always stays
  if (retainVersions) p = Math.min(p, Math.max(0, n - retainVersions));
  if (olderThanS !== null && olderThanS !== undefined) {
    const cut = now - olderThanS * 1000;
    const firstYoung = versions.findIndex((v) => v.ms >= cut);
    if (firstYoung >= 0) p = Math.min(p, firstYoung);
  }
  const wanted = p;
  const tagged = Object.entries(tags).map(([name, version]) => ({ name, version })).sort((a, b) => a.version - b.version);
  const blocking = tagged.filter((t) => versions.findIndex((v) => v.version === t.version) < wanted && versions.some((v) => v.version === t.version));
  let keptForTags = [];
  if (blocking.length) {
    const oldest = blocking[0];
    p = versions.findIndex((v) => v.version === oldest.version);
    keptForTags = versions.slice(p, wanted).map((v) => v.version);
  }
  const remove = versions.slice(0, p).map((v) => v.version);
  // Cut between the last removed and the first kept version: midway, so a
  // millisecond of clock skew between JS and the engine cannot take the
  // first version meant to stay.
  let cutoffMs = null;
  if (p > 0) cutoffMs = Math.floor((versions[p - 1].ms + versions[p].ms) / 2) + 1;
  return { remove, keep: versions.slice(p).map((v) => v.version), keptForTags, blocking, cutoffMs, wanted: versions.slice(0, wanted).map((v) => v.version) };
}

const cleanup = {
  plan(p) {
    const older = p.has('older_than') ? parseDurationSeconds(p.get('older_than')) : null;
    if (p.has('older_than') && older === null) throw new ParamError(`older_than must be an integer followed by d, h, m or s (e.g. 7d, 168h, 30m, 10s), got ${JSON.stringify(p.str('older_than'))}`);
    const retain = p.has('retain_versions') ? p.get('retain_versions') : null;
    if (older === null && retain === null) throw new ParamError('cleanup needs older_than or retain_versions (or both)');
    if (p.get('delete_unverified')) refuse('delete_unverified', true, 'floe never deletes files that may belong to an in-flight commit');
    if (p.get('error_if_tagged_old_versions')) refuse('error_if_tagged_old_versions', true, 'tagged versions are kept and reported, never an error');
    p.refuseUnknown(taskMeta);
    return { olderThanS: older, retainVersions: retain, dryRun: p.get('dry_run') };
  },
  async run(table, plan, before, ctx) {
    return plan.dryRun ? cleanupDryRun(table, plan, ctx) : cleanupRun(table, plan, before, ctx);
  },
};

// taskMeta are the names the task API adds to a task's parameters.
const taskMeta = ['task_id', 'bucket', 'namespace', 'table'];

// dryRunFileCap bounds the file list a dry run puts in its result (the
// whole count and bytes are always there); the console shows the list.
const dryRunFileCap = 1000;

/**
 * A cleanup's dry run: the versions the same policy would remove now, and
 * every file that removal deletes, with the bytes. LanceDB 0.39 cannot list
 * what its cleanup would delete, so floe computes it from the manifests
 * and a listing of the dataset (the CleanupPlan extension of its Lance
 * REST). Nothing is compacted, pruned or written.
 */
async function cleanupDryRun(table, plan, { progress, catalog, ref }) {
  progress('planning', 20, 'reading the versions and tags');
  const versions = (await table.listVersions()).map((v) => ({ version: v.version, ms: v.timestamp.getTime() })).sort((a, b) => a.version - b.version);
  const tagList = await (await table.tags()).list();
  const tags = Object.fromEntries(Object.entries(tagList).map(([k, v]) => [k, v.version]));
  const cp = cleanupPlan(versions, tags, plan);
  let fp = { versions: [], kept: versions.map((v) => v.version), files: [], bytes: 0, unverified_kept: 0 };
  if (cp.cutoffMs !== null) {
    progress('planning', 50, `asking floe which files removing ${cp.remove.length} versions deletes`);
    fp = await catalog.cleanupPlan(ref, cp.cutoffMs, Object.values(tags));
  }
  const fragments = (await table.stats()).fragmentStats.numFragments;
  const compactNote = fragments > 1
    ? ` A real run first compacts (LanceDB 0.39's optimize() has no prune-only call): if it merges this table's ${fragments} fragments, the files it replaces are deleted too once no kept version references them, and the new version counts among the ones kept.`
    : ' A real run first calls optimize() without pruning; with one fragment it has nothing to compact.';
  const files = fp.files || [];
  return {
    extra: {
      ran: 'dry_run',
      dry_run: 'true',
      engine_note: 'Dry run: nothing was compacted, pruned or deleted. LanceDB 0.39 cannot list what its cleanup would delete, so floe computed it from the dataset\'s manifests and a listing of its files, by the engine\'s rules.' + compactNote,
      policy: { older_than_seconds: plan.olderThanS, retain_versions: plan.retainVersions },
      cutoff: cp.cutoffMs !== null ? new Date(cp.cutoffMs).toISOString() : '',
      versions_would_remove: fp.versions || [],
      versions_would_keep: fp.kept || [],
      versions_kept_for_tags: cp.keptForTags,
      files_would_delete: files.slice(0, dryRunFileCap),
      files_would_delete_count: files.length,
      ...(files.length > dryRunFileCap ? { files_note: `only the first ${dryRunFileCap} of ${files.length} files are listed` } : {}),
      bytes_would_delete: fp.bytes || 0,
      unverified_files_kept: fp.unverified_kept || 0,
    },
    summary: () => `dry run: would remove ${(fp.versions || []).length} versions and delete ${files.length} files (${fp.bytes || 0} bytes); nothing was deleted`,
  };
}

const cleanupRun = async (table, plan, before, { progress, signal, catalog, ref, managed }) => {
    // LanceDB has no prune-only call: optimize() also compacts and refreshes
    // indices. Run that part first with no pruning, so the versions it makes
    // exist before the cutoff is chosen and count among the ones kept.
    progress('compacting', 15, 'LanceDB prunes only inside optimize(): compacting and refreshing indices first, without pruning');
    const pre = await table.optimize({ cleanupOlderThan: beforeEverything });
    checkCanceled(signal);
    // The job's own handle sees its own commits; no catalog round trip
    // is needed between the two optimize() calls.
    await table.checkoutLatest();
    const versions = (await table.listVersions()).map((v) => ({ version: v.version, ms: v.timestamp.getTime() })).sort((a, b) => a.version - b.version);
    const tagList = await (await table.tags()).list();
    const tags = Object.fromEntries(Object.entries(tagList).map(([k, v]) => [k, v.version]));
    const cp = cleanupPlan(versions, tags, plan);
    let pruned = { bytesRemoved: 0, oldVersionsRemoved: 0 };
    if (cp.cutoffMs !== null) {
      progress('pruning', 50, `removing ${cp.remove.length} versions older than version ${cp.keep[0]}`);
      pruned = (await table.optimize({ cleanupOlderThan: new Date(cp.cutoffMs) })).prune;
    }
    await table.checkoutLatest();
    const left = (await table.listVersions()).map((v) => v.version).sort((a, b) => a - b);
    const removed = versions.map((v) => v.version).filter((v) => !left.includes(v));
    // LanceDB 0.39 deletes the pruned manifests without telling the
    // namespace; on a managed table floe's record would still list them.
    let forgotten = null;
    if (managed && removed.length) {
      progress('recording', 90, `forgetting ${removed.length} pruned versions in floe's catalog`);
      forgotten = await catalog.forgetVersions(ref, removed);
    }
    const tagNote = cp.blocking.length
      ? `version ${cp.blocking[0].version} is tagged "${cp.blocking[0].name}" and LanceDB 0.39 cannot prune past a tagged version, so the cutoff moved to it: versions ${cp.keptForTags.join(', ')} were kept although the policy would have removed them (${cp.keptForTags.length} extra versions and the files only they reference stay on disk until the tag is deleted or moved)`
      : '';
    const compactedFirst = pre.compaction.fragmentsRemoved > 0;
    return {
      extra: {
        ran: cp.cutoffMs !== null ? 'compaction,index_refresh,prune' : 'compaction,index_refresh',
        engine_note: 'LanceDB 0.39 optimize() compacts, prunes and refreshes indices in one call: compaction and index refresh ran first without pruning' + (compactedFirst ? ` (it merged ${pre.compaction.fragmentsRemoved} fragments into ${pre.compaction.fragmentsAdded})` : ' (nothing to compact)') + (cp.cutoffMs !== null ? `; pruning then ran with a cutoff of ${new Date(cp.cutoffMs).toISOString()}` : '; nothing was old enough to prune, so pruning did not run'),
        policy: { older_than_seconds: plan.olderThanS, retain_versions: plan.retainVersions },
        cutoff: cp.cutoffMs !== null ? new Date(cp.cutoffMs).toISOString() : '',
        versions_removed: removed,
        versions_kept: left,
        versions_kept_for_tags: cp.keptForTags,
        tagged_versions: Object.entries(tags).map(([name, version]) => ({ name, version })),
        tag_note: tagNote,
        bytes_removed: pruned.bytesRemoved,
        ...(forgotten !== null ? { catalog_records_forgotten: forgotten } : {}),
      },
      summary: () => `removed ${removed.length} versions, kept ${left.length}` + (cp.keptForTags.length ? `; ${cp.keptForTags.length} kept because of tag "${cp.blocking[0].name}" on version ${cp.blocking[0].version}` : ''),
    };
};

// ---- scalar index --------------------------------------------------------------------

const scalarTypes = ['BTREE', 'BITMAP', 'LABEL_LIST', 'FTS'];
const ftsOnly = ['with_position', 'base_tokenizer', 'language', 'lower_case', 'stem', 'remove_stop_words', 'ascii_folding', 'max_token_length'];

const scalarIndex = {
  plan(p, s) {
    const column = p.str('column');
    if (!column) throw new ParamError('column is required');
    const type = p.has('index_type') ? p.oneOf('index_type', '', scalarTypes, { caseInsensitive: true }) : s.index_type;
    if (!type) throw new ParamError('index_type is required');
    if (type !== 'FTS') {
      const given = ftsOnly.filter((k) => p.has(k));
      if (given.length) throw new ParamError(`${given.join(', ')} only apply to FTS indices, not ${type}; remove them or use index_type FTS`);
    }
    let config;
    if (type === 'BTREE') config = lancedb.Index.btree();
    else if (type === 'BITMAP') config = lancedb.Index.bitmap();
    else if (type === 'LABEL_LIST') config = lancedb.Index.labelList();
    else {
      config = lancedb.Index.fts({
        withPosition: p.bool('with_position', s.with_position),
        baseTokenizer: p.oneOf('base_tokenizer', s.base_tokenizer, ['simple', 'whitespace', 'raw', 'ngram']),
        language: p.str('language', s.language),
        lowercase: p.bool('lower_case', true),
        stem: p.bool('stem', true),
        removeStopWords: p.bool('remove_stop_words', true),
        asciiFolding: p.bool('ascii_folding', true),
        maxTokenLength: p.int('max_token_length', s.max_token_length, { min: 1, max: 1024 }),
      });
    }
    return { column, type, config, name: p.str('name') || `${column}_idx`, replace: p.bool('replace', s.replace) };
  },
  run: (table, plan, before, ctx) => buildIndex(table, plan, before, ctx, 'scalar'),
};

// ---- vector index --------------------------------------------------------------------

const vectorTypes = ['IVF_FLAT', 'IVF_PQ', 'IVF_HNSW_SQ', 'IVF_HNSW_PQ', 'IVF_RQ'];
// Which task parameters each vector index type takes in LanceDB 0.39.
const vectorParams = {
  IVF_FLAT: ['num_partitions', 'distance_type', 'max_iterations', 'sample_rate'],
  IVF_PQ: ['num_partitions', 'num_sub_vectors', 'num_bits', 'distance_type', 'max_iterations', 'sample_rate'],
  IVF_HNSW_SQ: ['num_partitions', 'distance_type', 'max_iterations', 'sample_rate', 'm', 'ef_construction'],
  IVF_HNSW_PQ: ['num_partitions', 'num_sub_vectors', 'distance_type', 'max_iterations', 'sample_rate', 'm', 'ef_construction'],
  IVF_RQ: ['num_partitions', 'num_bits', 'distance_type', 'max_iterations', 'sample_rate'],
};
const allVectorParams = ['num_partitions', 'num_sub_vectors', 'num_bits', 'distance_type', 'max_iterations', 'sample_rate', 'm', 'ef_construction'];
const camel = { num_partitions: 'numPartitions', num_sub_vectors: 'numSubVectors', num_bits: 'numBits', distance_type: 'distanceType', max_iterations: 'maxIterations', sample_rate: 'sampleRate', m: 'm', ef_construction: 'efConstruction' };

const vectorIndex = {
  plan(p, s) {
    const column = p.str('column');
    if (!column) throw new ParamError('column is required');
    const type = p.has('index_type') ? p.oneOf('index_type', '', vectorTypes, { caseInsensitive: true }) : s.index_type;
    const takes = vectorParams[type];
    const foreign = allVectorParams.filter((k) => p.has(k) && !takes.includes(k));
    if (foreign.length) throw new ParamError(`${foreign.join(', ')} cannot be honoured for ${type}: LanceDB 0.39 builds ${type} from ${takes.join(', ')} only`);
    const bounds = { num_partitions: [1, 65536], num_sub_vectors: [1, 4096], num_bits: [1, 16], max_iterations: [1, 10000], sample_rate: [2, 65536], m: [2, 512], ef_construction: [10, 10000] };
    const opts = {};
    for (const k of takes) {
      if (k === 'distance_type') {
        opts.distanceType = p.oneOf('distance_type', s.distance_type, ['l2', 'cosine', 'dot'], { caseInsensitive: true });
        continue;
      }
      const [min, max] = bounds[k];
      const v = p.has(k) ? p.int(k, 0, { min, max }) : s[k];
      if (v) opts[camel[k]] = Math.min(max, Math.max(min, v)); // 0 in settings = engine default
    }
    let config;
    if (type === 'IVF_FLAT') config = lancedb.Index.ivfFlat(opts);
    else if (type === 'IVF_PQ') config = lancedb.Index.ivfPq(opts);
    else if (type === 'IVF_HNSW_SQ') config = lancedb.Index.hnswSq(opts);
    else if (type === 'IVF_HNSW_PQ') config = lancedb.Index.hnswPq(opts);
    else config = lancedb.Index.ivfRq(opts);
    return { column, type, config, options: opts, name: p.str('name') || `${column}_idx`, replace: p.bool('replace', false) };
  },
  run: (table, plan, before, ctx) => buildIndex(table, plan, before, ctx, 'vector'),
};

async function buildIndex(table, plan, before, { progress }, kind) {
  const schema = await table.schema();
  const field = schema.fields.find((f) => f.name === plan.column);
  if (!field) throw new ParamError(`column ${plan.column} does not exist (columns: ${schema.fields.map((f) => f.name).join(', ')})`);
  if (!plan.replace && before.indices.some((i) => i.name === plan.name)) {
    throw new ParamError(`an index named ${plan.name} already exists; set replace=true to rebuild it`);
  }
  progress('building', 20, `building ${plan.type} index ${plan.name} on ${plan.column} (${before.rows} rows)`);
  await table.createIndex(plan.column, { config: plan.config, name: plan.name, replace: plan.replace });
  progress('verifying', 90, 'checking the index is listed');
  const idx = (await table.listIndices()).find((i) => i.name === plan.name);
  if (!idx) throw new Error(`createIndex returned but no index named ${plan.name} is listed`);
  return {
    extra: {
      ran: `create_${kind}_index`,
      engine_note: 'createIndex only: nothing was compacted or pruned.',
      index: { name: idx.name, type: idx.indexType, columns: idx.columns, indexed_rows: idx.numIndexedRows, unindexed_rows: idx.numUnindexedRows, requested_type: plan.type, options: plan.options || {} },
    },
    summary: () => `built ${plan.type} index ${plan.name} on ${plan.column}: ${idx.numIndexedRows} rows indexed`,
  };
}

// ---- restore ---------------------------------------------------------------------------

// RestoreTable of the Lance REST: a new version whose content is an old
// one's. LanceDB 0.39 does it as checkout(version) then restore().
const restore = {
  plan(p) {
    const version = p.int('version', undefined, { min: 1 });
    if (version === undefined) throw new ParamError('version is required: the version to restore');
    return { version };
  },
  async run(table, plan, before, { progress }) {
    const versions = (await table.listVersions()).map((v) => v.version);
    if (!versions.includes(plan.version)) {
      throw new ParamError(`version ${plan.version} does not exist (the table has ${versions.length ? `versions ${versions[0]}–${versions[versions.length - 1]}` : 'no versions'}); cleanup may have removed it`);
    }
    progress('restoring', 40, `checking out version ${plan.version}`);
    await table.checkout(plan.version);
    await table.restore();
    const now = await table.version();
    return {
      extra: { ran: 'restore', restored_version: String(plan.version), new_version: String(now), engine_note: 'checkout + restore only: nothing was compacted or pruned.' },
      summary: () => `restored version ${plan.version} as version ${now} (${before.rows} rows before)`,
    };
  },
};

// ---- index drop -------------------------------------------------------------------------

// DropTableIndex of the Lance REST: LanceDB 0.39's dropIndex(name), one
// commit without the index. floe checked the index was there when it made
// the job; a drop that finds it gone says so instead of succeeding.
const dropIndex = {
  plan(p) {
    const name = p.str('index_name');
    if (!name) throw new ParamError('index_name is required: the index to drop');
    return { name };
  },
  async run(table, plan, before, { progress }) {
    if (!before.indices.some((i) => i.name === plan.name)) {
      throw new ParamError(`the table has no index named ${plan.name} (indices: ${before.indices.map((i) => i.name).join(', ') || 'none'})`);
    }
    progress('dropping', 40, `dropping index ${plan.name}`);
    await table.dropIndex(plan.name);
    const left = (await table.listIndices()).map((i) => i.name);
    if (left.includes(plan.name)) throw new Error(`dropIndex returned but index ${plan.name} is still listed`);
    return {
      extra: { ran: 'drop_index', index: plan.name, engine_note: 'dropIndex only: nothing was compacted or pruned; the index files stay until cleanup removes old versions.' },
      summary: () => `dropped index ${plan.name}`,
    };
  },
};

export const executors = {
  lance_compact: compact,
  lance_optimize_indices: optimizeIndices,
  lance_cleanup: cleanup,
  lance_scalar_index: scalarIndex,
  lance_vector_index: vectorIndex,
  lance_restore: restore,
  lance_drop_index: dropIndex,
};
