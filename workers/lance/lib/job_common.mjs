// What every job executor shares: the cancel check, the optimize() cutoff
// that prunes nothing, and the refusal of a parameter LanceDB cannot honour.

import { ParamError } from './params.mjs';

export class CanceledError extends Error {}

// beforeEverything is a cleanup cutoff earlier than any version can be, so an
// optimize() that must not prune removes nothing.
export const beforeEverything = new Date(0);

export function checkCanceled(signal) {
  if (signal?.aborted) throw new CanceledError(String(signal.reason?.message || signal.reason || 'canceled'));
}

/** Fail planning: the parameter cannot be honoured, so the job does not run. */
export function refuse(name, value, why) {
  throw new ParamError(`${name}=${value} cannot be honoured: ${why}; the job was not run rather than run with a different setting.`);
}
