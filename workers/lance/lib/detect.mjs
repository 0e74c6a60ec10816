// Detection: walk every LANCE table the catalog lists, observe it, and
// propose work for the one job type asked about. One log line per table says
// what was seen and decided; a table that cannot be opened is skipped with
// one warning naming it and the reason.

import { catalogFor, identOf } from './catalog.mjs';
import { descriptors } from './descriptors.mjs';
import { log, shortError } from './log.mjs';
import { observeTable, observationMessage } from './observe.mjs';
import { parseSettings, readSettings } from './params.mjs';
import { pool } from './semaphore.mjs';

// sweepConcurrency is how many tables one sweep reads at once: catalog calls
// and manifest reads are I/O-bound, a few in flight hide their latency.
const sweepConcurrency = Number(process.env.FLOE_SWEEP_CONCURRENCY || 8);
// maxSkippedWhy caps the "not proposed, because" entries of one sweep: the
// console lists them for people, and a page of more helps nobody.
const maxSkippedWhy = 200;
// observationBatch caps observations per message to keep messages small.
const observationBatch = 50;
// cacheTtlMs lets the three periodic sweeps that often start together share
// one read of each table; a table's version is checked before reuse.
const cacheTtlMs = Number(process.env.FLOE_OBSERVE_TTL_MS || 5000);
const cache = new Map(); // ident -> {at, tableId, attrs}

/** Decide for one table; returns {propose, summary, parameters, saw}. */
export function decide(jobType, s, attrs, now = Date.now()) {
  const saw = `rows=${attrs.rows} fragments=${attrs.fragments} small=${attrs.small_fragments} versions=${attrs.versions} indices=${attrs.indices.length} unindexed=${attrs.unindexed_rows}`;
  switch (jobType) {
    case 'lance_compact': {
      const propose = attrs.fragments >= s.min_fragments;
      return { propose, saw, summary: `${attrs.fragments} fragments (${attrs.small_fragments} small), threshold ${s.min_fragments}`, parameters: {} };
    }
    case 'lance_optimize_indices': {
      if (attrs.indices.length === 0) return { propose: false, saw, summary: 'no indices' };
      const worst = attrs.indices.reduce((a, b) => ((b.unindexed_rows ?? 0) > (a.unindexed_rows ?? 0) ? b : a));
      const propose = (worst.unindexed_rows ?? 0) > s.max_unindexed_rows;
      return { propose, saw, summary: `${worst.unindexed_rows} rows outside index ${worst.name}, threshold ${s.max_unindexed_rows}`, parameters: {} };
    }
    case 'lance_cleanup': {
      const cutoff = now - s.retain_hours * 3600_000;
      const old = attrs._versions.filter((v) => v.ms < cutoff).length;
      const propose = old > s.min_versions_to_keep;
      return {
        propose, saw,
        summary: `${old} of ${attrs.versions} versions older than ${s.retain_hours}h, keep ${s.min_versions_to_keep}`,
        parameters: { older_than: `${s.retain_hours}h`, retain_versions: String(s.min_versions_to_keep) },
      };
    }
    default:
      return { propose: false, saw, summary: `${jobType} is not detected` };
  }
}

// maxTargets bounds one targeted request: the console sends one table or a
// few; anything longer is not a targeted observe and is cut here.
const maxTargets = 100;

/** Table refs from a Detect's ObjectRefs, dropping ones without a full name. */
export function targetRefs(objects) {
  const out = [];
  for (const o of objects.slice(0, maxTargets)) {
    const namespace = Array.isArray(o?.namespace) ? o.namespace : [];
    if (!o?.bucket || !o?.name || namespace.length === 0) continue;
    out.push({ bucket: o.bucket, namespace, name: o.name });
  }
  return out;
}

async function observeRef(catalog, ref) {
  const ident = identOf(ref);
  const hit = cache.get(ident);
  const d = await catalog.describe(ref);
  const table = await catalog.open(ref);
  try {
    if (hit && hit.tableId === d.tableId && Date.now() - hit.at < cacheTtlMs && (await table.version()) === hit.attrs.version) {
      return hit;
    }
    const entry = { at: Date.now(), tableId: d.tableId, attrs: await observeTable(table) };
    cache.set(ident, entry);
    if (cache.size > 10000) cache.delete(cache.keys().next().value); // bound: one entry per table seen recently
    return entry;
  } finally {
    table.close();
  }
}

/**
 * Run one detection sweep.
 * @param {object} req  {job_type, settings_json, cluster, max_proposals, deadline_unix_ms}
 * @param {object} out  {proposals(list), observations(list)} senders
 * @param {AbortSignal} signal
 * @returns {Promise<{proposed: number, error: string, refs: Map}>}
 */
export async function detect(req, out, signal) {
  const jobType = req.job_type;
  const d = descriptors[jobType];
  if (!d) return { proposed: 0, error: `unknown job type ${jobType}` };
  const s = readSettings(d, parseSettings(req.settings_json));
  const catalog = catalogFor(req.cluster);
  const maxProposals = req.max_proposals > 0 ? req.max_proposals : Infinity;
  const deadline = Number(req.deadline_unix_ms) || 0;
  // A targeted observe names its tables; a sweep lists them all.
  const targeted = Array.isArray(req.objects) && req.objects.length > 0;
  const refs = targeted ? targetRefs(req.objects) : await catalog.listTables();
  const observeOnly = !!req.observe_only;
  const ids = new Map(); // object id -> ref, for jobs that arrive without an ObjectRef
  let proposed = 0;
  let obsBuf = [];
  let propBuf = [];
  let skipped = 0;
  const skippedWhy = []; // tables read and not proposed, with why
  const flush = (force) => {
    if (obsBuf.length && (force || obsBuf.length >= observationBatch)) {
      out.observations(obsBuf);
      obsBuf = [];
    }
    if (propBuf.length && (force || propBuf.length >= observationBatch)) {
      out.proposals(propBuf);
      propBuf = [];
    }
  };
  let timedOut = false;
  await pool(refs, sweepConcurrency, async (ref) => {
    if (deadline && Date.now() > deadline) {
      timedOut = true;
      return;
    }
    const ident = identOf(ref);
    let entry;
    try {
      entry = await observeRef(catalog, ref);
    } catch (e) {
      skipped++;
      log.warn('detect: skipping table', { table: ident, job_type: jobType, reason: shortError(e) });
      return;
    }
    ids.set(entry.tableId, ref);
    obsBuf.push(observationMessage(entry.tableId, entry.attrs, entry.at));
    if (observeOnly) {
      log.info('observe', { table: ident, table_id: entry.tableId, version: entry.attrs.version });
      flush(false);
      return;
    }
    const v = decide(jobType, s, entry.attrs);
    let verdict = v.propose ? 'propose' : 'skip';
    if (v.propose && proposed >= maxProposals) verdict = 'skip (max proposals reached)';
    else if (!v.propose) {
      if (skippedWhy.length < maxSkippedWhy) skippedWhy.push({ object_id: entry.tableId, summary: v.summary });
    } else {
      proposed++;
      propBuf.push({ object_id: entry.tableId, dedupe_key: `${jobType}:${entry.tableId}`, parameters: v.parameters, summary: v.summary });
    }
    log.info('detect', { job_type: jobType, table: ident, table_id: entry.tableId, saw: v.saw, decision: verdict, why: v.summary });
    flush(false);
  }, signal);
  flush(true);
  let error = '';
  if (signal?.aborted) error = 'canceled';
  else if (timedOut) error = `deadline reached before every table was read (${proposed} proposals so far)`;
  log.info(targeted ? 'detect: targeted observe done' : 'detect: sweep done', { job_type: jobType, tables: refs.length, skipped, proposed, error: error || undefined });
  return { proposed, error, ids, skipped: skippedWhy };
}
