// A counting semaphore: detection and execution each get one, sized to the
// slots advertised in Hello, so the advertised limits really bound the work.

export class Semaphore {
  constructor(size) {
    this.size = Math.max(1, size | 0);
    this.used = 0;
    this.waiters = [];
  }

  /** Resolves with a release function once a slot is free. */
  acquire(signal) {
    return new Promise((resolve, reject) => {
      const grant = () => {
        this.used++;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.used--;
          const next = this.waiters.shift();
          if (next) next();
        });
      };
      if (this.used < this.size) return grant();
      const waiter = () => {
        signal?.removeEventListener('abort', onAbort);
        grant();
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal.reason ?? new Error('aborted'));
      };
      if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }
}

/** Run fn over items with at most n in flight; stops early when signal aborts. */
export async function pool(items, n, fn, signal) {
  let next = 0;
  const run = async () => {
    while (next < items.length && !signal?.aborted) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, run));
}
