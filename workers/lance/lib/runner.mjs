// Runs executions in child processes (see exec_child.mjs) and turns their
// messages into Progress / Completed / Observations for the session.

import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { log } from './log.mjs';

const childPath = fileURLToPath(new URL('./exec_child.mjs', import.meta.url));
// cancelGraceMs is how long a canceled job may take to stop by itself
// (between stages) before its process is killed mid-build.
const cancelGraceMs = Number(process.env.FLOE_CANCEL_GRACE_MS || 1500);
// tickMs paces "still running" progress while a native call has no progress
// of its own, so the console can tell a long build from a stuck one.
const tickMs = Number(process.env.FLOE_PROGRESS_TICK_MS || 5000);

/**
 * Start one execution.
 * @param {object} spec JobSpec
 * @param {object} ref  table reference resolved by the session (may be null)
 * @param {{progress: Function, done: Function}} cb done({completed, observation})
 * @param {object[]} defs the console's parameter definitions for spec.job_type
 * @returns {{cancel(reason: string): void, child}}
 */
export function startExecution(spec, ref, cb, defs = []) {
  const child = fork(childPath, [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, LANCE_INCLUDE_VECTOR_CENTROIDS: process.env.LANCE_INCLUDE_VECTOR_CENTROIDS || 'false' },
    serialization: 'advanced',
  });
  const started = Date.now();
  let finished = false;
  let canceled = null;
  let last = { stage: 'starting', percent: 0 };
  const finish = (completed, observation) => {
    if (finished) return;
    finished = true;
    clearInterval(ticker);
    clearTimeout(killTimer);
    cb.done({ completed, observation });
  };
  const ticker = setInterval(() => {
    cb.progress({ ...last, message: `${last.stage}: still running after ${Math.round((Date.now() - started) / 1000)} s`, metrics: { elapsed_seconds: (Date.now() - started) / 1000 } });
  }, tickMs);
  let killTimer = null;
  child.on('message', (m) => {
    if (m?.type === 'progress') {
      last = { stage: m.stage, percent: m.percent };
      cb.progress({ stage: m.stage, percent: m.percent, message: m.message || '', metrics: m.metrics || {} });
    } else if (m?.type === 'done') {
      finish(m.completed, m.observation);
    }
  });
  child.on('exit', (code, signal) => {
    if (finished) return;
    if (canceled !== null) {
      finish({ success: false, canceled: true, error: `canceled: ${canceled}; stopped during ${last.stage}`, result: { canceled: 'true', stopped_stage: last.stage }, result_json: '', summary: 'canceled' });
    } else {
      finish({ success: false, error: `the execution process died during ${last.stage} (${signal ? 'signal ' + signal : 'exit code ' + code})`, result: {}, result_json: '', summary: 'execution process died' });
    }
  });
  child.on('error', (e) => {
    log.error('execution process error', { job_id: spec.job_id, error: e.message });
  });
  child.send({ type: 'run', spec, ref, defs });
  // The console enforces the attempt deadline too; stopping here as well
  // means a build never outlives an attempt the console has given up on.
  const deadline = Number(spec.deadline_unix_ms) || 0;
  let deadlineTimer = null;
  if (deadline > 0) {
    deadlineTimer = setTimeout(() => handle.cancel('the attempt deadline passed'), Math.min(2 ** 31 - 1, Math.max(0, deadline - Date.now())));
  }
  const handle = {
    child,
    cancel(reason) {
      if (finished || canceled !== null) return;
      canceled = reason || 'canceled by the console';
      try {
        child.send({ type: 'cancel', reason: canceled });
      } catch {
        /* already gone */
      }
      killTimer = setTimeout(() => child.kill('SIGKILL'), cancelGraceMs);
    },
    kill() {
      child.kill('SIGKILL');
    },
  };
  child.once('exit', () => clearTimeout(deadlineTimer));
  return handle;
}
