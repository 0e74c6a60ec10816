// The jobs that build and drop a table's indices.

import * as lancedb from '@lancedb/lancedb';
import { ParamError } from './params.mjs';

// ---- scalar index --------------------------------------------------------------------

const scalarTypes = ['BTREE', 'BITMAP', 'LABEL_LIST', 'FTS'];
const ftsOnly = ['with_position', 'base_tokenizer', 'language', 'lower_case', 'stem', 'remove_stop_words', 'ascii_folding', 'max_token_length'];
export const scalarIndex = {
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

export const vectorIndex = {
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

// ---- index drop -------------------------------------------------------------------------

// DropTableIndex of the Lance REST: LanceDB 0.39's dropIndex(name), one
// commit without the index. floe checked the index was there when it made
// the job; a drop that finds it gone says so instead of succeeding.
export const dropIndex = {
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
