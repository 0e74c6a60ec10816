// One execution in its own process, so Cancel can stop a native index build
// or compaction that has no abort of its own: the parent asks politely (the
// job stops between stages) and kills the process if that is not enough.
// Lance commits are atomic manifest writes, so a kill leaves either the old
// or the new version, plus unreferenced files a later cleanup removes.

import { runJob } from './jobs.mjs';
import { attributesJSON } from './observe.mjs';

const ac = new AbortController();

process.on('message', async (msg) => {
  if (msg?.type === 'cancel') {
    ac.abort(new Error(msg.reason || 'canceled'));
    return;
  }
  if (msg?.type !== 'run') return;
  const progress = (stage, percent, message, metrics) => process.send({ type: 'progress', stage, percent, message, metrics });
  const out = await runJob(msg.spec, { progress, signal: ac.signal, ref: msg.ref, defs: msg.defs });
  const observation = out.observation ? { object_id: out.observation.object_id, attributes_json: attributesJSON(out.observation.attrs) } : null;
  delete out.observation;
  process.send({ type: 'done', completed: out, observation }, () => process.exit(0));
});
process.on('disconnect', () => process.exit(0)); // the worker went away
