// The seven job types this worker offers: their settings forms (with ranges,
// defaults and help), runtime defaults, and the capability advertised in
// Hello. The parameters of a job itself are not here: floe defines them and
// sends them in Welcome.job_params. Field and job-type names are the task API's vocabulary
// (/lance/oss/v1), so a scheduled job and a submitted task read alike.

export const DESCRIPTOR_VERSION = '2026-12-01.1';
export const LANE = 'lance';

const int = (name, label, def, min, max, help, extra = {}) => ({
  name, label, help, type: 'FIELD_TYPE_INT', widget: 'number', min, max, default_value: String(def), ...extra,
});
const bool = (name, label, def, help, extra = {}) => ({
  name, label, help, type: 'FIELD_TYPE_BOOL', widget: 'checkbox', default_value: String(def), ...extra,
});
const select = (name, label, def, values, help, extra = {}) => ({
  name, label, help, type: 'FIELD_TYPE_SELECT', widget: 'select', default_value: def,
  options: values.map((v) => (typeof v === 'string' ? { value: v, label: v } : v)), ...extra,
});
const text = (name, label, def, help, extra = {}) => ({
  name, label, help, type: 'FIELD_TYPE_STRING', widget: 'text', default_value: def, ...extra,
});

// Shared scheduler defaults. Executions are bounded by a timeout long enough
// for a large compaction or index build on a small machine.
const periodic = (interval) => ({
  enabled: true,
  detection_interval_seconds: interval,
  detection_timeout_seconds: 300,
  execution_timeout_seconds: 3600,
  max_jobs_per_detection: 100,
  global_concurrency: 2,
  per_worker_concurrency: 1,
  retries: 2,
  retry_backoff_seconds: 60,
});
const onDemand = () => ({
  enabled: false, // index builds are submitted (task API or console), not detected
  // Unused while disabled, but valid values so the console's form saves.
  detection_interval_seconds: 3600,
  detection_timeout_seconds: 60,
  execution_timeout_seconds: 7200,
  max_jobs_per_detection: 100,
  global_concurrency: 2,
  per_worker_concurrency: 1,
  retries: 1,
  retry_backoff_seconds: 15, // a build lost with its worker is worth retrying soon
});

const engineNote = 'LanceDB 0.39 runs compaction, version pruning and index refresh in one optimize() call; the job result says which of them ran.';

export const descriptors = {
  lance_compact: {
    job_type: 'lance_compact',
    display_name: 'Lance compaction',
    description: 'Rewrites many small fragments into few large ones so scans open fewer files. ' + engineNote,
    can_detect: true,
    form: {
      sections: [
        {
          name: 'detection', title: 'When to compact',
          description: 'A table is proposed when it has at least this many fragments.',
          fields: [int('min_fragments', 'Minimum fragments', 8, 2, 100000, 'Propose compaction when a table has this many fragments or more.')],
        },
      ],
    },
    runtime: periodic(1800),
  },
  lance_optimize_indices: {
    job_type: 'lance_optimize_indices',
    display_name: 'Lance index optimization',
    description: 'Adds rows written after an index was built to the index, so searches stop missing them. ' + engineNote,
    can_detect: true,
    form: {
      sections: [
        {
          name: 'detection', title: 'When to optimize',
          description: 'A table with indices is proposed when more rows than this are outside an index.',
          fields: [int('max_unindexed_rows', 'Max unindexed rows', 10000, 0, 1e12, 'Propose when any index leaves more rows than this uncovered; 0 = as soon as any row is uncovered.')],
        },
      ],
    },
    runtime: periodic(900),
  },
  lance_cleanup: {
    job_type: 'lance_cleanup',
    display_name: 'Lance version cleanup',
    description: 'Deletes old versions and the files only they reference. Tagged versions are always kept. ' + engineNote,
    can_detect: true,
    form: {
      sections: [
        {
          name: 'detection', title: 'When to clean up',
          description: 'A table is proposed when more versions than "keep" are older than the retention window.',
          fields: [
            int('min_versions_to_keep', 'Versions to keep', 10, 1, 100000, 'The newest versions that are never deleted, however old.'),
            int('retain_hours', 'Retention (hours)', 168, 0, 87600, 'Versions younger than this are never deleted.'),
          ],
        },
      ],
    },
    runtime: periodic(21600),
  },
  lance_scalar_index: {
    job_type: 'lance_scalar_index',
    display_name: 'Lance scalar index',
    description: 'Builds a BTREE, BITMAP, LABEL_LIST or FTS index on one column. Submitted, not detected.',
    can_detect: false,
    form: {
      sections: [
        {
          name: 'defaults', title: 'Defaults for submitted builds',
          description: 'Used when a submitted task leaves the field out.',
          fields: [
            select('index_type', 'Index type', 'BTREE', ['BTREE', 'BITMAP', 'LABEL_LIST', 'FTS'], 'BTREE for ranges and high cardinality, BITMAP for few distinct values, LABEL_LIST for list columns, FTS for text search.'),
            bool('replace', 'Replace an existing index', false, 'Replace an index of the same name instead of failing.'),
            bool('with_position', 'FTS: keep positions', false, 'Needed for phrase queries; makes the index larger.', { visible_when: { field: 'index_type', equals: 'FTS' } }),
            select('base_tokenizer', 'FTS: tokenizer', 'simple', ['simple', 'whitespace', 'raw', 'ngram'], 'How text is split into tokens.', { visible_when: { field: 'index_type', equals: 'FTS' } }),
            text('language', 'FTS: language', 'English', 'Language for stemming and stop words.', { visible_when: { field: 'index_type', equals: 'FTS' }, pattern: '[A-Za-z]{2,32}' }),
            int('max_token_length', 'FTS: max token length', 40, 1, 1024, 'Longer tokens are dropped.', { visible_when: { field: 'index_type', equals: 'FTS' } }),
          ],
        },
      ],
    },
    runtime: onDemand(),
  },
  lance_vector_index: {
    job_type: 'lance_vector_index',
    display_name: 'Lance vector index',
    description: 'Builds an IVF_FLAT, IVF_PQ, IVF_HNSW_SQ, IVF_HNSW_PQ or IVF_RQ index on a vector column. Submitted, not detected.',
    can_detect: false,
    form: {
      sections: [
        {
          name: 'defaults', title: 'Defaults for submitted builds',
          description: 'Used when a submitted task leaves the field out; 0 lets the engine choose from the data.',
          fields: [
            select('index_type', 'Index type', 'IVF_PQ', ['IVF_FLAT', 'IVF_PQ', 'IVF_HNSW_SQ', 'IVF_HNSW_PQ', 'IVF_RQ'], 'IVF_PQ is the usual choice; HNSW variants search faster and build slower.'),
            select('distance_type', 'Distance', 'l2', ['l2', 'cosine', 'dot'], 'Must match how the vectors are compared at query time.'),
            int('num_partitions', 'Partitions', 0, 0, 65536, '0 = engine default (about sqrt(rows)).'),
            int('num_sub_vectors', 'Sub-vectors (PQ)', 0, 0, 4096, '0 = engine default (dimension / 16 or so); must divide the dimension.'),
            int('num_bits', 'Bits (PQ/RQ)', 8, 1, 16, 'Bits per code.'),
            int('sample_rate', 'Sample rate', 256, 2, 65536, 'Training rows per partition.'),
            int('max_iterations', 'KMeans iterations', 50, 1, 10000, 'Upper bound on training iterations.'),
            int('m', 'HNSW m', 20, 2, 512, 'Neighbours per node (HNSW only).'),
            int('ef_construction', 'HNSW ef_construction', 300, 10, 10000, 'Candidate list size while building (HNSW only).'),
          ],
        },
      ],
    },
    runtime: onDemand(),
  },
  lance_restore: {
    job_type: 'lance_restore',
    display_name: 'Lance restore',
    description: 'Makes a new version whose content is an older version\'s (the Lance REST RestoreTable). Submitted, not detected.',
    can_detect: false,
    form: { sections: [] },
    runtime: { ...onDemand(), retries: 0 }, // a restore that failed is retried by its caller, who sees the table first
  },
  lance_drop_index: {
    job_type: 'lance_drop_index',
    display_name: 'Lance index drop',
    description: 'Drops one index (the Lance REST\'s DropTableIndex): a new version without it; the data is untouched. Submitted, not detected.',
    can_detect: false,
    form: { sections: [] },
    runtime: { ...onDemand(), retries: 0 }, // its caller waits for the answer and decides
  },
};

export const JOB_TYPES = Object.keys(descriptors);

/** The Descriptor message for DescribeJobType. */
export function descriptorMessage(jobType) {
  const d = descriptors[jobType];
  if (!d) return null;
  return {
    job_type: d.job_type,
    descriptor_version: DESCRIPTOR_VERSION,
    display_name: d.display_name,
    description: d.description,
    form: d.form,
    runtime: d.runtime,
  };
}

/** The capabilities advertised in Hello. */
export function capabilities({ detectSlots, executeSlots }) {
  return JOB_TYPES.map((t) => ({
    job_type: t,
    lane: LANE,
    can_detect: descriptors[t].can_detect,
    can_execute: true,
    max_detect_slots: detectSlots,
    max_execute_slots: executeSlots,
    display_name: descriptors[t].display_name,
    descriptor_version: DESCRIPTOR_VERSION,
  }));
}
