// The worker's side of the plugin channel: dial, Hello, heartbeats, and the
// dispatch of console requests; reconnect with capped exponential backoff,
// logging why in one line.

import grpc from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { identOf, refFromIdent } from './catalog.mjs';
import { capabilities, descriptorMessage } from './descriptors.mjs';
import { detect } from './detect.mjs';
import { jobRef } from './jobs.mjs';
import { log, shortError } from './log.mjs';
import { runPreview } from './preview.mjs';
import { descriptorField, pluginPackage } from './proto.mjs';
import { startExecution } from './runner.mjs';
import { Semaphore } from './semaphore.mjs';

export const WORKER_VERSION = '0.1.0';

// Backoff between reconnects: starts small so a console restart is picked up
// quickly, capped so a long outage does not become a tight loop of dials.
const backoffBaseMs = 500;
const backoffCapMs = Number(process.env.FLOE_BACKOFF_CAP_MS || 30000);
// A stream that lived this long counts as healthy: the next drop starts the
// backoff from the beginning again.
const healthyAfterMs = 30000;
// knownCap bounds the object-id → table map learnt from detections.
const knownCap = 100000;
// undeliveredCap bounds results kept for a console that is away; each is
// one small message, and a worker rarely finishes more than a few jobs
// during an outage.
const undeliveredCap = 200;
// Stream ends after which running executions keep going: the console may be
// back in a moment and adopts jobs the first heartbeat lists. After being
// replaced, refused or shut down, they are stopped instead.
const keepJobsOn = new Set(['unreachable', 'closed', 'error']);

export function configFromEnv(env = process.env) {
  const int = (v, d) => (Number.isInteger(Number(v)) && Number(v) > 0 ? Number(v) : d);
  return {
    grpcAddr: env.FLOE_GRPC || '127.0.0.1:9401',
    token: env.FLOE_WORKER_TOKEN || '',
    workerId: env.FLOE_WORKER_ID || `lance-${hostname()}`,
    detectSlots: int(env.FLOE_DETECT_SLOTS, 2),
    executeSlots: int(env.FLOE_EXECUTE_SLOTS, 1),
    tlsCA: env.FLOE_GRPC_TLS_CA || '',
    tlsCert: env.FLOE_GRPC_TLS_CERT || '',
    tlsKey: env.FLOE_GRPC_TLS_KEY || '',
    // Shutdown means "the console is stopping": by default the worker drops
    // its work, closes the stream and waits for the console to come back;
    // with FLOE_EXIT_ON_SHUTDOWN=1 it exits instead (for supervisors that
    // stop it together with the console).
    exitOnShutdown: env.FLOE_EXIT_ON_SHUTDOWN === '1' || env.FLOE_EXIT_ON_SHUTDOWN === 'true',
  };
}

function credentials(cfg) {
  if (!cfg.tlsCA && !cfg.tlsCert && !cfg.tlsKey) return grpc.credentials.createInsecure();
  if (!cfg.tlsCA) throw new Error('FLOE_GRPC_TLS_CERT/KEY need FLOE_GRPC_TLS_CA too');
  return grpc.credentials.createSsl(readFileSync(cfg.tlsCA), cfg.tlsKey ? readFileSync(cfg.tlsKey) : null, cfg.tlsCert ? readFileSync(cfg.tlsCert) : null);
}

/** Why a stream ended, in words an operator can act on. */
export function explainEnd(err, cfg) {
  if (!err) return { reason: 'the console closed the stream', kind: 'closed' };
  const d = err.details || err.message || '';
  switch (err.code) {
    case grpc.status.UNAUTHENTICATED:
    case grpc.status.PERMISSION_DENIED:
      return { reason: `auth refused: the console rejected FLOE_WORKER_TOKEN (${d}); create one with 'floe worker-token create'`, kind: 'auth' };
    case grpc.status.UNAVAILABLE:
      return { reason: `console unreachable at ${cfg.grpcAddr} (${d})`, kind: 'unreachable' };
    case grpc.status.ALREADY_EXISTS:
    case grpc.status.ABORTED:
      return { reason: `replaced: another connection with worker id ${cfg.workerId} took over (${d}); give each worker its own FLOE_WORKER_ID`, kind: 'replaced' };
    case grpc.status.INVALID_ARGUMENT:
      return { reason: `hello refused: ${d}`, kind: 'refused' };
    case grpc.status.CANCELLED:
      if (/replac|duplicate|newer/i.test(d)) return { reason: `replaced: another connection with worker id ${cfg.workerId} took over (${d})`, kind: 'replaced' };
      return { reason: `stream cancelled (${d})`, kind: 'closed' };
    default:
      if (/replac|duplicate/i.test(d)) return { reason: `replaced: another connection with worker id ${cfg.workerId} took over (${d})`, kind: 'replaced' };
      return { reason: `stream failed: ${grpc.status[err.code] || err.code} ${d}`, kind: 'error' };
  }
}

export class Worker {
  constructor(cfg) {
    this.cfg = cfg;
    this.instanceId = randomUUID();
    this.detectSem = new Semaphore(cfg.detectSlots);
    this.execSem = new Semaphore(cfg.executeSlots);
    this.previewSem = new Semaphore(cfg.detectSlots);
    this.requests = new Map(); // request id -> AbortController (detect / preview)
    this.jobs = new Map(); // job id -> {handle, ac}
    this.known = new Map(); // object id -> table ref, learnt from detections
    this.undelivered = []; // Completed/Observations written while no stream was up
    this.stopped = false;
    this.call = null;
    this.stopResolve = null;
    this.wake = null;
  }

  /** Connect and keep connected until stop() or a Shutdown. */
  async run() {
    const Service = pluginPackage().PluginService;
    this.client = new Service(this.cfg.grpcAddr, credentials(this.cfg), {
      'grpc.keepalive_time_ms': 20000,
      'grpc.keepalive_timeout_ms': 10000,
      'grpc.keepalive_permit_without_calls': 1,
      'grpc.max_receive_message_length': 16 << 20,
      'grpc.max_send_message_length': 16 << 20,
    });
    let delay = backoffBaseMs;
    let last = '';
    while (!this.stopped) {
      const started = Date.now();
      this.shutdownReason = '';
      const end = await this.connectOnce();
      if (this.shutdownReason) Object.assign(end, { reason: `the console shut down (${this.shutdownReason})`, kind: 'shutdown' });
      this.abortAll(`stream ended: ${end.reason}`, !keepJobsOn.has(end.kind));
      if (this.jobs.size && keepJobsOn.has(end.kind)) log.info('executions keep running until the console is back', { jobs: [...this.jobs.keys()].join(',') });
      if (this.stopped) break;
      if (end.welcomed && Date.now() - started > healthyAfterMs) delay = backoffBaseMs;
      const wait = end.kind === 'replaced' ? backoffCapMs : delay;
      if (end.reason !== last || wait >= backoffCapMs) log.warn(`disconnected: ${end.reason}; reconnecting in ${(wait / 1000).toFixed(1)} s`, { worker_id: this.cfg.workerId });
      last = end.reason;
      await new Promise((r) => {
        this.wake = r;
        setTimeout(r, wait); // keeps the process alive between attempts
      });
      delay = Math.min(backoffCapMs, delay * 2);
    }
    this.client.close();
    log.info('worker stopped', { worker_id: this.cfg.workerId });
  }

  stop(reason) {
    if (this.stopped) return;
    this.stopped = true;
    log.info('stopping', { reason });
    this.abortAll(reason);
    try {
      this.call?.end();
      this.call?.cancel();
    } catch {
      /* already closed */
    }
    this.wake?.();
  }

  send(msg) {
    if (!this.call) return false;
    try {
      this.call.write(msg);
      return true;
    } catch (e) {
      log.warn('send failed', { error: e.message });
      return false;
    }
  }

  connectOnce() {
    return new Promise((resolve) => {
      const md = new grpc.Metadata();
      md.add('authorization', `Bearer ${this.cfg.token}`);
      const call = this.client.Connect(md);
      this.call = call;
      let hb = null;
      let welcomed = false;
      let done = false;
      const finish = (err) => {
        if (done) return;
        done = true;
        clearInterval(hb);
        if (this.call === call) this.call = null;
        resolve({ ...explainEnd(err, this.cfg), welcomed });
      };
      call.on('data', (m) => {
        if (m.body === 'welcome') {
          welcomed = true;
          // The task parameters' definitions, per job type: jobs read their
          // parameters by them (params.mjs Params.get).
          this.jobParams = Object.fromEntries((m.welcome.job_params || []).map((jp) => [jp.job_type, jp.params || []]));
          const every = Math.max(1, m.welcome.heartbeat_interval_seconds || 5) * 1000;
          clearInterval(hb);
          hb = setInterval(() => this.heartbeat(), every);
          // Results first: a job that finished while the console was away
          // must read as done before a heartbeat that no longer lists it.
          this.flushUndelivered();
          this.heartbeat();
          log.info('connected', { console: this.cfg.grpcAddr, worker_id: this.cfg.workerId, console_version: m.welcome.console_version, message: m.welcome.message || undefined });
          return;
        }
        try {
          this.dispatch(m);
        } catch (e) {
          log.error('dispatch failed', { kind: m.body, error: e.message });
        }
      });
      call.on('error', (e) => finish(e));
      call.on('end', () => finish(null));
      call.on('status', (s) => {
        if (s.code !== grpc.status.OK) finish(s);
      });
      call.write({
        hello: {
          worker_id: this.cfg.workerId,
          instance_id: this.instanceId,
          version: WORKER_VERSION,
          address: hostname(),
          capabilities: capabilities({ detectSlots: this.cfg.detectSlots, executeSlots: this.cfg.executeSlots }),
          preview_formats: ['LANCE'],
        },
      });
    });
  }

  heartbeat() {
    this.send({
      heartbeat: {
        slots_used: this.execSem.used,
        slots_total: this.execSem.size,
        running_job_ids: [...this.jobs.keys()],
      },
    });
  }

  /** Send what finished while the console was away (Completed by job id). */
  flushUndelivered() {
    const queued = this.undelivered.splice(0);
    if (queued.length) log.info('delivering results kept while the console was away', { messages: queued.length });
    for (const m of queued) this.send(m);
  }

  /** Send now, or keep for the next stream when none is up. */
  sendOrKeep(msg) {
    if (this.send(msg)) return;
    if (this.undelivered.length >= undeliveredCap) this.undelivered.shift();
    this.undelivered.push(msg);
  }

  abortAll(reason, jobsToo = true) {
    for (const ac of this.requests.values()) ac.abort(new Error(reason));
    this.requests.clear();
    if (!jobsToo) return;
    for (const j of this.jobs.values()) {
      j.dropResult = true; // the console has let go of it; a late result would confuse a retry
      j.ac.abort(new Error(reason));
      j.handle?.kill();
    }
    this.jobs.clear();
  }

  dispatch(m) {
    const rid = m.request_id;
    switch (m.body) {
      case 'describe_job_type': {
        const d = descriptorMessage(m.describe_job_type.job_type);
        if (!d) log.warn('asked to describe an unknown job type', { job_type: m.describe_job_type.job_type });
        this.send({ request_id: rid, [descriptorField()]: d || { job_type: m.describe_job_type.job_type, description: 'this worker does not offer this job type' } });
        return;
      }
      case 'detect':
        return void this.onDetect(rid, m.detect);
      case 'execute':
        return void this.onExecute(rid, m.execute.job);
      case 'preview':
        return void this.onPreview(rid, m.preview);
      case 'cancel':
        return this.onCancel(m.cancel);
      case 'shutdown':
        log.info('console asked the worker to shut down', { reason: m.shutdown.reason, then: this.cfg.exitOnShutdown ? 'exit' : 'wait for the console to return' });
        if (this.cfg.exitOnShutdown) return this.stop(`console shutdown: ${m.shutdown.reason || 'no reason given'}`);
        this.shutdownReason = m.shutdown.reason || 'no reason given';
        this.abortAll('the console is shutting down');
        try {
          this.call?.end();
        } catch {
          /* already closed */
        }
        return;
      default:
        log.debug('ignoring message', { kind: m.body });
    }
  }

  async onDetect(rid, req) {
    const ac = new AbortController();
    this.requests.set(rid, ac);
    let release = null;
    const jobType = req.job_type;
    try {
      release = await this.detectSem.acquire(ac.signal);
      const res = await detect(req, {
        proposals: (list) => this.send({ request_id: rid, proposals: { job_type: jobType, proposals: list } }),
        observations: (list) => this.send({ observations: { observations: list } }),
      }, ac.signal);
      for (const [id, ref] of res.ids || []) {
        if (this.known.size >= knownCap) this.known.delete(this.known.keys().next().value);
        this.known.set(id, ref);
      }
      // A canceled request gets nothing more (the protocol's contract).
      if (!ac.signal.aborted) this.send({ request_id: rid, detection_done: { job_type: jobType, error: res.error, skipped: res.skipped || [] } });
    } catch (e) {
      log.warn('detection failed', { job_type: jobType, error: shortError(e) });
      if (!ac.signal.aborted) this.send({ request_id: rid, detection_done: { job_type: jobType, error: shortError(e) } });
    } finally {
      release?.();
      this.requests.delete(rid);
    }
  }

  async onExecute(rid, job) {
    if (this.jobs.has(job.job_id)) {
      log.warn('ignoring a second Execute for a job this worker is running', { job_id: job.job_id, attempt: job.attempt });
      return;
    }
    const ac = new AbortController();
    const entry = { ac, handle: null, dropResult: false };
    this.jobs.set(job.job_id, entry);
    const progress = (p) => this.send({ request_id: rid, progress: { job_id: job.job_id, state: p.state || 'running', percent: p.percent ?? 0, stage: p.stage || '', message: p.message || '', metrics: p.metrics || {} } });
    const complete = (c) => {
      (entry.dropResult ? this.send : this.sendOrKeep).call(this, { request_id: rid, completed: { job_id: job.job_id, success: !!c.success, permanent: !!c.permanent, error: c.error || '', result: c.result || {}, result_json: c.result_json || '', summary: c.summary || '' } });
    };
    let release;
    try {
      if (this.execSem.used >= this.execSem.size) progress({ stage: 'queued', percent: 0, message: 'waiting for a free execution slot' });
      release = await this.execSem.acquire(ac.signal);
    } catch {
      this.jobs.delete(job.job_id);
      progress({ state: 'canceled', stage: 'queued', percent: 0, message: 'canceled before it started' });
      return complete({ success: false, error: `canceled: ${ac.signal.reason?.message || 'before it started'}`, result: { canceled: 'true' }, summary: 'canceled' });
    }
    const ref = jobRef(job, this.known);
    log.info('execute', { job_id: job.job_id, job_type: job.job_type, table: ref ? identOf(ref) : job.object_id, attempt: job.attempt });
    await new Promise((resolve) => {
      entry.handle = startExecution(job, ref, {
        progress: (p) => progress(p),
        done: ({ completed, observation }) => {
          if (observation) this.sendOrKeep({ observations: { observations: [{ object_id: observation.object_id, format: 'LANCE', observed_at_unix_ms: Date.now(), attributes_json: observation.attributes_json }] } });
          if (completed.canceled) progress({ state: 'canceled', stage: 'canceled', percent: 100, message: completed.error });
          log.info('execute done', { job_id: job.job_id, job_type: job.job_type, success: completed.success, summary: completed.summary, error: completed.error || undefined });
          complete(completed);
          resolve();
        },
      }, this.jobParams?.[job.job_type] || []);
      if (ac.signal.aborted) entry.handle.cancel(ac.signal.reason?.message);
      else ac.signal.addEventListener('abort', () => entry.handle.cancel(ac.signal.reason?.message), { once: true });
    });
    release();
    this.jobs.delete(job.job_id);
  }

  async onPreview(rid, req) {
    const ac = new AbortController();
    this.requests.set(rid, ac);
    let release = null;
    try {
      release = await this.previewSem.acquire(ac.signal);
      const o = req.object;
      const ref = o && o.bucket && o.name ? { bucket: o.bucket, namespace: o.namespace || [], name: o.name } : this.known.get(req.object_id) || refFromIdent(req.object_id);
      if (!ref) throw new Error(`object ${req.object_id} is unknown to this worker and the preview carries no table reference`);
      if (req.format && req.format !== 'LANCE') throw new Error(`this worker previews LANCE tables, not ${req.format}`);
      const out = await runPreview(req, ref, ac.signal);
      if (ac.signal.aborted) return;
      for (const c of out.chunks) this.send({ request_id: rid, preview_chunk: { arrow_ipc: Buffer.from(c.buffer, c.byteOffset, c.byteLength) } });
      this.send({ request_id: rid, preview_done: { total_rows: out.total_rows, rows_sent: out.rows_sent, truncated: out.truncated, error: '' } });
    } catch (e) {
      if (!ac.signal.aborted) this.send({ request_id: rid, preview_done: { total_rows: -1, rows_sent: 0, truncated: false, error: shortError(e) } });
    } finally {
      release?.();
      this.requests.delete(rid);
    }
  }

  onCancel(c) {
    if (c.job_id) {
      const j = this.jobs.get(c.job_id);
      if (j) {
        log.info('cancel', { job_id: c.job_id, reason: c.reason });
        j.ac.abort(new Error(c.reason || 'canceled by the console'));
      }
    }
    if (c.target_request_id) this.requests.get(c.target_request_id)?.abort(new Error(c.reason || 'canceled by the console'));
  }
}
