// The jobs that act on a table's versions: cleanup (real and dry run) and
// restore.

import { beforeEverything, checkCanceled, refuse } from './job_common.mjs';
import { ParamError, parseDurationSeconds } from './params.mjs';

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

export const cleanup = {
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

/** The table's versions ({version, ms}, ascending) and its tags ({name: version}). */
async function versionsAndTags(table) {
  const versions = (await table.listVersions()).map((v) => ({ version: v.version, ms: v.timestamp.getTime() })).sort((a, b) => a.version - b.version);
  const tagList = await (await table.tags()).list();
  const tags = Object.fromEntries(Object.entries(tagList).map(([k, v]) => [k, v.version]));
  return { versions, tags };
}

/**
 * A cleanup's dry run: the versions the same policy would remove now, and
 * every file that removal deletes, with the bytes. LanceDB 0.39 cannot list
 * what its cleanup would delete, so floe computes it from the manifests
 * and a listing of the dataset (the CleanupPlan extension of its Lance
 * REST). Nothing is compacted, pruned or written.
 */
async function cleanupDryRun(table, plan, { progress, catalog, ref }) {
  progress('planning', 20, 'reading the versions and tags');
  const { versions, tags } = await versionsAndTags(table);
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
    const { versions, tags } = await versionsAndTags(table);
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

// ---- restore ---------------------------------------------------------------------------

// RestoreTable of the Lance REST: a new version whose content is an old
// one's. LanceDB 0.39 does it as checkout(version) then restore().
export const restore = {
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
