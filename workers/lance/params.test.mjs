// Params.get reads job parameters by the console's definitions (the shape
// Welcome.job_params has after proto-loading), with no copy in the worker.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Params, ParamError } from './lib/params.mjs';

const defs = [
  { name: 'n', type: 'FIELD_TYPE_INT', min: 1, default_value: '1048576' },
  { name: 'ratio', type: 'FIELD_TYPE_FLOAT', default_value: '0.1' },
  { name: 'on', type: 'FIELD_TYPE_BOOL', default_value: 'true' },
  { name: 'mode', type: 'FIELD_TYPE_SELECT', options: ['reencode', 'try_binary_copy'], default_value: 'reencode' },
  { name: 'names', type: 'FIELD_TYPE_STRING_LIST', default_value: '[]' },
  { name: 'age', type: 'FIELD_TYPE_STRING', pattern: '[0-9]+[dhms]', default_value: '' },
  { name: 'opt', type: 'FIELD_TYPE_INT', min: 1, default_value: '' },
];

describe('Params.get', () => {
  const cases = [
    { name: 'int default', params: {}, get: 'n', want: 1048576 },
    { name: 'int given', params: { n: '5' }, get: 'n', want: 5 },
    { name: 'int under min', params: { n: '0' }, get: 'n', throws: /n must be between 1/ },
    { name: 'float default', params: {}, get: 'ratio', want: 0.1 },
    { name: 'bool default', params: {}, get: 'on', want: true },
    { name: 'bool given', params: { on: 'false' }, get: 'on', want: false },
    { name: 'select default', params: {}, get: 'mode', want: 'reencode' },
    { name: 'select not an option', params: { mode: 'binary' }, get: 'mode', throws: /mode must be one of/ },
    { name: 'list default', params: {}, get: 'names', want: [] },
    { name: 'list given as JSON', params: { names: '["a","b"]' }, get: 'names', want: ['a', 'b'] },
    { name: 'pattern kept', params: { age: '7d' }, get: 'age', want: '7d' },
    { name: 'pattern refused', params: { age: '1w' }, get: 'age', throws: /age "1w" is refused: it must match/ },
    { name: 'no default: absent', params: {}, get: 'opt', want: undefined },
    { name: 'undefined parameter', params: {}, get: 'bogus', throws: /no definition of parameter bogus/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = new Params(c.params, defs);
      if (c.throws) {
        assert.throws(() => p.get(c.get), (e) => e instanceof ParamError && c.throws.test(e.message));
        return;
      }
      assert.deepEqual(p.get(c.get), c.want);
    });
  }
});
