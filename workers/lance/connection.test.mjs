// The worker's connection: why it cannot connect, said in one line; being
// replaced by a duplicate id; a console shutdown; slot bounds.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pool, Semaphore } from './lib/semaphore.mjs';
import * as H from './testutil/harness.mjs';

let h;
before(async () => {
  h = await H.startFloe();
});
after(async () => {
  await h?.stop();
});

describe('connection', () => {
  it('a refused token is logged once as auth refused, and retried', async () => {
    const w = H.startWorker(h, { FLOE_WORKER_TOKEN: 'not-a-token', FLOE_BACKOFF_CAP_MS: '400' });
    await w.waitFor(/disconnected: auth refused/);
    await H.sleep(1500); // several attempts at a 400 ms cap
    const lines = w.lines.filter((l) => /disconnected: auth refused/.test(l));
    assert.ok(lines.length >= 1);
    assert.match(lines[0], /floe worker-token create/);
    assert.equal(w.exited(), null, 'the worker keeps trying');
    await w.stop();
  });

  it('an unreachable console is named with its address', async () => {
    const port = await H.freePort();
    const w = H.startWorker(h, { FLOE_GRPC: `127.0.0.1:${port}` });
    const line = await w.waitFor(/disconnected:/);
    assert.match(line, new RegExp(`console unreachable at 127\\.0\\.0\\.1:${port}`));
    await w.stop();
  });

  it('a second worker with the same id replaces the first, which says so', async () => {
    const a = H.startWorker(h, { FLOE_WORKER_ID: 'dup-id', FLOE_BACKOFF_CAP_MS: '60000' });
    await a.waitFor(/msg=connected/);
    const b = H.startWorker(h, { FLOE_WORKER_ID: 'dup-id' });
    await b.waitFor(/msg=connected/);
    const line = await a.waitFor(/disconnected: replaced/);
    assert.match(line, /FLOE_WORKER_ID/);
    await a.stop();
    await b.stop();
  });

  it('exits on SIGTERM and, with FLOE_EXIT_ON_SHUTDOWN, when the console shuts down', async () => {
    const w = H.startWorker(h);
    await w.waitFor(/msg=connected/);
    const e = await w.stop('SIGTERM');
    assert.equal(e.code, 0);
    assert.ok(w.lines.some((l) => /msg=stopping reason="received SIGTERM"/.test(l)));

    const h2 = await H.startFloe();
    try {
      const w2 = H.startWorker(h2, { FLOE_EXIT_ON_SHUTDOWN: '1' });
      await w2.waitFor(/msg=connected/);
      const w3 = H.startWorker(h2);
      await w3.waitFor(/msg=connected/);
      h2.proc.kill('SIGTERM');
      await w2.waitFor(/console asked the worker to shut down/);
      await H.eventually(() => w2.exited(), 10000);
      assert.equal(w2.exited().code, 0);
      // without the flag the worker stays and waits for the console
      await w3.waitFor(/disconnected: the console shut down/);
      assert.equal(w3.exited(), null);
    } finally {
      await h2.stop();
    }
  });
});

describe('slots', () => {
  it('a semaphore never lets more than its size run, and waiters can be aborted', async () => {
    const s = new Semaphore(2);
    let running = 0;
    let peak = 0;
    await Promise.all(Array.from({ length: 7 }, async () => {
      const release = await s.acquire();
      running++;
      peak = Math.max(peak, running);
      await H.sleep(5);
      running--;
      release();
    }));
    assert.equal(peak, 2);
    assert.equal(s.used, 0);
    const r1 = await s.acquire();
    const r2 = await s.acquire();
    const ac = new AbortController();
    const waiting = s.acquire(ac.signal);
    ac.abort(new Error('gone'));
    await assert.rejects(waiting, /gone/);
    r1();
    r2();
    assert.equal(s.used, 0);
  });

  it('pool bounds concurrency and stops when aborted', async () => {
    let running = 0;
    let peak = 0;
    let done = 0;
    const ac = new AbortController();
    await pool(Array.from({ length: 50 }, (_, i) => i), 4, async (i) => {
      running++;
      peak = Math.max(peak, running);
      await H.sleep(2);
      running--;
      done++;
      if (i === 10) ac.abort();
    }, ac.signal);
    assert.equal(peak, 4);
    assert.ok(done < 50);
  });
});

describe('floe serve --with-worker', () => {
  it('runs the worker as a child, restarts it when it dies, seeds the demo once, and stops it with floe', async () => {
    const { execFileSync } = await import('node:child_process');
    const { existsSync } = await import('node:fs');
    const hw = await H.startFloe({ extraArgs: ['--with-worker'] });
    try {
      const children = () => execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(hw.proc.pid)]).toString().split('\n')
        .filter((l) => /workers\/lance\/main\.mjs/.test(l)).map((l) => Number(l.trim().split(/\s+/)[0]));
      await H.eventually(() => hw.logs.some((l) => /msg="worker connected"/.test(l)), 30000);
      await H.eventually(() => existsSync(`${hw.dir}/.demo-seeded`), 60000);
      const db = await H.connect(hw);
      const demo = await db.openTable('docs', ['demo', 'docs']);
      assert.equal(await demo.countRows(), 20000);
      const [pid] = children();
      assert.ok(pid, 'a worker child runs under floe');
      process.kill(pid, 'SIGKILL');
      await H.eventually(() => hw.logs.some((l) => /lance worker exited; restarting/.test(l)), 15000);
      await H.eventually(() => hw.logs.filter((l) => /msg="worker connected"/.test(l)).length >= 2, 30000);
      const [pid2] = children();
      assert.ok(pid2 && pid2 !== pid, 'a new worker child replaced the killed one');
      hw.proc.kill('SIGTERM');
      await new Promise((r) => hw.proc.once('exit', r));
      let alive = true;
      try {
        process.kill(pid2, 0);
      } catch {
        alive = false;
      }
      assert.equal(alive, false, 'the worker stops with floe');
    } finally {
      await hw.stop();
    }
  });
});
