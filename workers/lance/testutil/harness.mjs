// Test harness: a real floe (built from ./cmd/floe) on loopback ports it
// binds itself (127.0.0.1:0, read back from its "floe started" log line)
// with its own data directory, an API key and a worker token minted by the
// CLI, helpers to seed tables through floe's Lance REST, and the worker as a
// child process. FLOE_TEST_BIN runs a prebuilt binary instead of building.

import * as lancedb from '@lancedb/lancedb';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const workerMain = fileURLToPath(new URL('../main.mjs', import.meta.url));

/**
 * A loopback port nothing listened on a moment ago: only for tests of what
 * a worker says when the console is unreachable. floe itself is never
 * started on one (see startFloe).
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

let built = null;
/** Build floe once per test process (go's cache makes repeats cheap). */
export async function floeBinary() {
  if (process.env.FLOE_TEST_BIN) return process.env.FLOE_TEST_BIN;
  if (!built) {
    built = (async () => {
      const dir = join(tmpdir(), 'floe-lance-worker-tests');
      mkdirSync(dir, { recursive: true });
      const out = join(dir, 'floe');
      const tmp = `${out}.${process.pid}`;
      await run('go', ['build', '-o', tmp, './cmd/floe'], { cwd: repoRoot, maxBuffer: 16 << 20 });
      renameSync(tmp, out); // atomic: parallel test files never see half a binary
      return out;
    })();
  }
  return built;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function lastLine(bin, args) {
  const { stdout } = await run(bin, args, { cwd: repoRoot });
  const lines = stdout.trim().split('\n');
  return lines[lines.length - 1].trim();
}

/**
 * Start floe serve. Returns {dir, lanceURL, grpcAddr, httpURL, apiKey,
 * workerToken, cluster, logs, stop()}.
 */
export async function startFloe({ extraArgs = [] } = {}) {
  const bin = await floeBinary();
  const serveBin = process.env.FLOE_TEST_SERVE_BIN || bin;
  const dir = mkdtempSync(join(tmpdir(), 'floe-lw-'));
  // The CLI refuses a data directory floe has not used: init makes it.
  await run(bin, ['init', '--data', dir]);
  const apiKey = await lastLine(bin, ['token', 'create', '--role', 'readwrite', '--data', dir]);
  const workerToken = await lastLine(bin, ['worker-token', 'create', '--data', dir]);
  const logs = [];
  // The first start binds port 0 for each surface; a restart reuses the
  // ports it learned, so workers reconnect to the same address.
  let addrs = { http: '127.0.0.1:0', grpc: '127.0.0.1:0', lance: '127.0.0.1:0' };
  const args = () => ['serve', '--data', dir, '--http', addrs.http, '--grpc', addrs.grpc, '--lance', addrs.lance, '--iceberg', '', '--s3tables', '', ...extraArgs];
  let lanceURL = null;
  let started = null; // this run's "floe started" log line, parsed
  let proc = null;
  let exited = null;
  const spawnServe = async () => {
    exited = null;
    started = null;
    proc = spawn(serveBin, args(), {
      cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FLOE_ADMIN_PASSWORD: process.env.FLOE_ADMIN_PASSWORD || 'test-admin-password' },
    });
    const collect = (buf) => {
      for (const l of buf.toString().split('\n')) {
        if (!l) continue;
        logs.push(l);
        if (l.includes('msg="floe started"')) started = Object.fromEntries([...l.matchAll(/ (\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
      }
      if (logs.length > 5000) logs.splice(0, logs.length - 5000);
    };
    proc.stdout.on('data', collect);
    proc.stderr.on('data', collect);
    const mine = proc;
    proc.on('exit', (code) => {
      if (proc === mine) exited = code;
    });
    const deadline = Date.now() + 30000;
    for (;;) {
      if (exited !== null) throw new Error(`floe serve exited with ${exited}:\n${logs.slice(-30).join('\n')}`);
      if (started && !lanceURL) {
        addrs = { http: started.console.replace('http://', ''), grpc: started.grpc, lance: started.lance };
        lanceURL = `http://${addrs.lance}`;
      }
      if (!lanceURL) {
        if (Date.now() > deadline) throw new Error(`floe serve did not start:\n${logs.slice(-30).join('\n')}`);
        await sleep(100);
        continue;
      }
      try {
        const r = await fetch(`${lanceURL}/v1/namespace/%24/list?delimiter=%24`, { headers: { 'x-api-key': apiKey } });
        if (r.status === 200) break;
      } catch {
        /* not up yet */
      }
      if (Date.now() > deadline) throw new Error(`floe serve did not answer on ${lanceURL}:\n${logs.slice(-30).join('\n')}`);
      await sleep(100);
    }
  };
  await spawnServe();
  const h = {
    dir, bin, logs, apiKey, workerToken, lanceURL,
    get proc() {
      return proc;
    },
    /** Kill floe without warning (SIGKILL) and start it again on the same ports and data. */
    async crashAndRestart() {
      const old = proc;
      const gone = new Promise((r) => old.once('exit', r));
      old.kill('SIGKILL');
      await gone;
      await spawnServe();
    },
    grpcAddr: addrs.grpc,
    httpURL: `http://${addrs.http}`,
    cluster: { lance_rest_url: lanceURL, api_key: apiKey },
    workers: [],
    async stop() {
      for (const w of h.workers) await w.stop();
      if (exited === null && proc.exitCode === null) {
        proc.kill('SIGTERM');
        await new Promise((r) => {
          const t = setTimeout(() => { proc.kill('SIGKILL'); r(); }, 10000);
          proc.on('exit', () => { clearTimeout(t); r(); });
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/** The LanceDB REST namespace connection tests seed through. */
export async function connect(h) {
  return lancedb.connectNamespace('rest', { uri: h.lanceURL, headers: { 'x-api-key': h.apiKey } });
}

/** Create bucket (LANCE) and namespace if missing. */
export async function ensureNamespace(db, bucket, ns) {
  for (const id of [[bucket], [bucket, ns]]) {
    try {
      await db.createNamespace(id, { mode: 'exist_ok' });
    } catch (e) {
      if (!/exist/i.test(e.message)) throw e;
    }
  }
}

export function rows(start, n, dims = 32, seed = 1) {
  let x = (start + 1) * 2654435761 * seed % 4294967296;
  const rnd = () => ((x = (x * 1664525 + 1013904223) % 4294967296) / 4294967296);
  return Array.from({ length: n }, (_, i) => ({
    id: start + i,
    title: `document ${start + i}`,
    category: ['alpha', 'beta', 'gamma', 'delta'][(start + i) % 4],
    vector: Array.from({ length: dims }, rnd),
  }));
}

/**
 * Seed a table through floe's Lance REST: appends × perAppend rows, one
 * fragment per append. Returns the open table.
 */
export async function seedTable(h, { bucket, ns = 'docs', name, appends = 1, perAppend = 100, dims = 32 }) {
  const db = await connect(h);
  await ensureNamespace(db, bucket, ns);
  const t = await db.createTable(name, rows(0, perAppend, dims), [bucket, ns]);
  for (let i = 1; i < appends; i++) await t.add(rows(i * perAppend, perAppend, dims));
  return t;
}

export async function openTable(h, bucket, ns, name) {
  const db = await connect(h);
  return db.openTable(name, [bucket, ns]);
}

/** Order-independent checksum of (id, title) over a table. */
export async function checksum(table) {
  const t = await table.query().select(['id', 'title']).toArrow();
  let sum = 0n;
  let xor = 0n;
  const ids = t.getChild('id');
  const titles = t.getChild('title');
  for (let i = 0; i < t.numRows; i++) {
    const id = BigInt(Math.round(Number(ids.get(i))));
    const s = titles.get(i);
    let hsh = 1469598103934665603n;
    for (const c of `${id}|${s}`) hsh = ((hsh ^ BigInt(c.charCodeAt(0))) * 1099511628211n) & 0xffffffffffffffffn;
    sum = (sum + hsh) & 0xffffffffffffffffn;
    xor ^= hsh;
  }
  return { rows: t.numRows, sum: sum.toString(16), xor: xor.toString(16) };
}

/** The table id floe's catalog gives a table (via the catalog client the worker uses). */
export async function tableId(h, bucket, ns, name) {
  const { Catalog } = await import('../lib/catalog.mjs');
  const c = new Catalog({ url: h.lanceURL, apiKey: h.apiKey });
  return (await c.describe({ bucket, namespace: [ns], name })).tableId;
}

/** Start the worker as a child process connected to h. */
export function startWorker(h, env = {}) {
  const lines = [];
  const waiters = [];
  const proc = spawn(process.execPath, [workerMain], {
    cwd: repoRoot,
    stdio: ['ignore', 'inherit', 'pipe'],
    env: { ...process.env, FLOE_GRPC: h.grpcAddr, FLOE_WORKER_TOKEN: h.workerToken, FLOE_WORKER_ID: `test-${process.pid}-${h.workers.length}`, FLOE_BACKOFF_CAP_MS: '2000', ...env },
  });
  let buf = '';
  proc.stderr.on('data', (d) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const l = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(l);
      if (process.env.FLOE_TEST_VERBOSE) process.stderr.write(`[worker] ${l}\n`);
      for (const w of [...waiters]) if (w.re.test(l)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(l); }
    }
  });
  let exited = null;
  const exitP = new Promise((r) => proc.on('exit', (code, sig) => { exited = { code, sig }; r(exited); }));
  const w = {
    proc, lines,
    waitFor(re, ms = 30000) {
      const hit = lines.find((l) => re.test(l));
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`worker never logged ${re}; last lines:\n${lines.slice(-20).join('\n')}`)), ms);
        waiters.push({ re, resolve: (l) => { clearTimeout(t); resolve(l); } });
      });
    },
    async stop(sig = 'SIGTERM') {
      if (exited) return exited;
      proc.kill(sig);
      const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
      const e = await exitP;
      clearTimeout(t);
      return e;
    },
    exited: () => exited,
  };
  h.workers.push(w);
  return w;
}

export { sleep };

/** Call floe's Lance task API; the bucket rides in the Host header. */
export function taskApi(h, bucket, method, path, body) {
  const u = new URL(h.lanceURL);
  const payload = body === undefined ? null : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: u.hostname, port: u.port, method, path: `/lance/oss/v1${path}`,
      headers: { host: `${bucket}.localhost:${u.port}`, 'x-api-key': h.apiKey, ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}) },
    }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let json = null;
        try { json = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
        resolve({ status: res.statusCode, json, text, headers: res.headers });
      });
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** Poll fn until it returns a truthy value or ms pass. */
export async function eventually(fn, ms = 30000, every = 250) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms (last: ${JSON.stringify(last)})`);
    await sleep(every);
  }
}

/** A logged-in console client (admin, FLOE_ADMIN_PASSWORD from startFloe). */
export async function consoleClient(h) {
  const form = new URLSearchParams({ username: 'admin', password: process.env.FLOE_ADMIN_PASSWORD || 'test-admin-password' });
  const r = await fetch(`${h.httpURL}/login`, { method: 'POST', body: form, redirect: 'manual' });
  const cookies = (r.headers.getSetCookie?.() || []).map((c) => c.split(';')[0]).join('; ');
  if (!cookies) throw new Error(`console login failed: ${r.status} ${await r.text()}`);
  return {
    async get(path) {
      const res = await fetch(`${h.httpURL}${path}`, { headers: { cookie: cookies }, redirect: 'manual' });
      return { status: res.status, text: await res.text() };
    },
    async post(path, fields = {}) {
      const res = await fetch(`${h.httpURL}${path}`, { method: 'POST', body: new URLSearchParams(fields), headers: { cookie: cookies }, redirect: 'manual' });
      return { status: res.status, text: await res.text(), location: res.headers.get('location') };
    },
  };
}

/**
 * The task parameters' definitions floe sends a worker in Welcome, keyed by
 * job type: what a job run outside a session (runJob, startExecution) needs
 * to read its parameters.
 */
export async function jobParams(h) {
  const grpc = (await import('@grpc/grpc-js')).default;
  const { pluginPackage } = await import('../lib/proto.mjs');
  const client = new (pluginPackage().PluginService)(h.grpcAddr, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${h.workerToken}`);
  const call = client.Connect(md);
  try {
    call.write({ hello: { worker_id: `params-${process.pid}`, instance_id: `${Date.now()}`, version: 'test' } });
    const m = await new Promise((resolve, reject) => {
      call.once('data', resolve);
      call.once('error', reject);
    });
    if (m.body !== 'welcome') throw new Error(`the first console message is ${m.body}, not welcome`);
    return Object.fromEntries((m.welcome.job_params || []).map((jp) => [jp.job_type, jp.params]));
  } finally {
    call.on('error', () => {}); // the cancel below ends the call with CANCELLED
    call.cancel();
    client.close();
  }
}
