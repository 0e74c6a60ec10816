// Compaction and index refresh: both are LanceDB 0.39's combined
// optimize(), run with a cutoff that prunes nothing.

import { beforeEverything, refuse } from './job_common.mjs';
import { ParamError } from './params.mjs';

// ---- compaction ------------------------------------------------------------

// What LanceDB 0.39's optimize() can honour: its own compaction settings.
// (The parameters' definitions and defaults come from the console.)
const engineCompaction = { target_rows_per_fragment: 1048576, max_rows_per_group: 1024, max_bytes_per_file: 0, materialize_deletions_threshold: 0.1 };

export const compact = {
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

export const optimizeIndices = {
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
