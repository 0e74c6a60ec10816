// Everything the worker knows about tables comes from floe's Lance Namespace
// REST: listing (ListAllTables, or a walk of the namespace tree), the table id
// (DescribeTable) and opening (LanceDB's REST namespace client). Nothing is
// cached across jobs except the connection itself, so a repointed or
// re-created table is never confused with its predecessor.

import * as lancedb from '@lancedb/lancedb';
import http from 'node:http';
import { shortError } from './log.mjs';

const DELIM = '$';
// requestTimeoutMs bounds one catalog call: a catalog that accepts the
// connection and goes quiet must not hold a detection slot forever.
const requestTimeoutMs = Number(process.env.FLOE_CATALOG_TIMEOUT_MS || 30000);
// retryForMs is how long a catalog call keeps retrying while floe's Lance
// REST is unreachable (a console restarting): long enough to ride out a
// restart, short enough that a job whose catalog is gone still ends.
const retryForMs = Number(process.env.FLOE_CATALOG_RETRY_MS || 30000);
// maxListPages bounds a listing walk so a catalog that keeps answering with a
// page token cannot loop us forever (1000 pages x default page size).
const maxListPages = 1000;

/** A table reference: bucket, namespace levels and name. */
export function refFromIdent(ident) {
  const parts = String(ident).split(DELIM);
  if (parts.length < 3 || parts.some((p) => p === '')) return null;
  return { bucket: parts[0], namespace: parts.slice(1, -1), name: parts[parts.length - 1] };
}

export function identOf(ref) {
  return [ref.bucket, ...(ref.namespace || []), ref.name].join(DELIM);
}

/** Ranges [start, end) covering the given version numbers, fewest first. */
export function versionRanges(versions) {
  const vs = [...new Set(versions)].sort((a, b) => a - b);
  const out = [];
  for (const v of vs) {
    const last = out[out.length - 1];
    if (last && last.end_version === v) last.end_version = v + 1;
    else out.push({ start_version: v, end_version: v + 1 });
  }
  return out;
}

/** Errors that mean "the table is not there" rather than "the catalog failed". */
export class TableGoneError extends Error {}

const transient = /fetch failed|ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|connection refused|connection reset|error sending request|failed to connect|tcp connect error|UND_ERR_SOCKET/i;

/** True for errors that say the catalog could not be reached, not that it said no. */
export function isUnreachable(e) {
  return transient.test(String(e?.message)) || transient.test(String(e?.cause?.code)) || transient.test(String(e?.cause?.message));
}

/** Retry fn while the catalog is unreachable, with capped backoff, for up to retryForMs. */
export async function retryUnreachable(fn) {
  const until = Date.now() + retryForMs;
  let wait = 250;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (!isUnreachable(e) || Date.now() + wait > until) throw e;
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(2000, wait * 2);
    }
  }
}

export class Catalog {
  /** @param {{url: string, apiKey: string}} opts */
  constructor({ url, apiKey }) {
    if (!url) throw new Error('no Lance REST URL in the cluster context (is floe serving --lance?)');
    this.url = url.replace(/\/+$/, '');
    this.apiKey = apiKey || '';
    this.conn = null;
  }

  headers(extra = {}) {
    const h = { ...extra };
    if (this.apiKey) h['x-api-key'] = this.apiKey;
    return h;
  }

  request(method, path, body) {
    return retryUnreachable(() => this.requestOnce(method, path, body));
  }

  async requestOnce(method, path, body) {
    const res = await fetch(this.url + path, {
      method,
      headers: this.headers(body !== undefined ? { 'content-type': 'application/json' } : {}),
      body: body !== undefined ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    const text = await res.text();
    let json;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, headers: res.headers, json, text };
  }

  static describeError(path, r) {
    const detail = r.json?.detail || r.json?.error || r.text?.slice(0, 200) || '';
    if (r.status === 401) return new Error(`Lance REST refused the worker's API key (401 on ${path}): ${detail}`);
    if (r.status === 403) return new Error(`Lance REST denied ${path} (403): ${detail}`);
    return new Error(`Lance REST ${path} answered ${r.status}: ${detail}`);
  }

  /** Every LANCE table the key may see, as refs. */
  async listTables() {
    const out = [];
    let token = '';
    for (let page = 0; page < maxListPages; page++) {
      // Only tables with a dataset: a name that is merely declared has
      // nothing to observe or maintain yet.
      const q = new URLSearchParams({ delimiter: DELIM, include_declared: 'false' });
      if (token) q.set('page_token', token);
      const r = await this.request('GET', `/v1/table?${q}`);
      if (r.status === 404 || r.status === 406) return this.walkTables();
      if (r.status !== 200) throw Catalog.describeError('/v1/table', r);
      for (const t of r.json?.tables || []) {
        const ref = refFromIdent(t);
        if (ref) out.push(ref);
      }
      token = r.json?.page_token || r.json?.next_page_token || '';
      if (!token) return out;
    }
    return out;
  }

  async listChildren(kind, idParts) {
    const id = idParts.length ? idParts.join(DELIM) : DELIM;
    const key = kind === 'namespaces' ? 'namespaces' : 'tables';
    const path = kind === 'namespaces' ? 'list' : 'table/list';
    const names = [];
    let token = '';
    for (let page = 0; page < maxListPages; page++) {
      const q = new URLSearchParams({ delimiter: DELIM });
      if (kind !== 'namespaces') q.set('include_declared', 'false');
      if (token) q.set('page_token', token);
      const p = `/v1/namespace/${encodeURIComponent(id)}/${path}?${q}`;
      const r = await this.request('GET', p);
      if (r.status !== 200) throw Catalog.describeError(p, r);
      names.push(...(r.json?.[key] || []));
      token = r.json?.page_token || '';
      if (!token) break;
    }
    return names;
  }

  /** Root → buckets → namespaces (any depth) → tables. */
  async walkTables() {
    const out = [];
    const visit = async (parts) => {
      if (parts.length >= 2) {
        for (const name of await this.listChildren('tables', parts)) {
          out.push({ bucket: parts[0], namespace: parts.slice(1), name });
        }
      }
      for (const child of await this.listChildren('namespaces', parts)) await visit([...parts, child]);
    };
    await visit([]);
    return out;
  }

  /**
   * DescribeTable: location and floe's table id. The id is read from the
   * body (table_id, or properties.table_id) or the x-floe-table-id /
   * x-oss-table-id header; when floe exposes none, the full identifier
   * stands in for it.
   */
  async describe(ref) {
    const ident = identOf(ref);
    const p = `/v1/table/${encodeURIComponent(ident)}/describe?delimiter=${encodeURIComponent(DELIM)}`;
    const r = await this.request('POST', p, { id: [ref.bucket, ...ref.namespace, ref.name] });
    if (r.status === 404) throw new TableGoneError(`table ${ident} no longer exists in the catalog (${r.json?.detail || r.json?.error || '404'})`);
    if (r.status !== 200) throw Catalog.describeError(p, r);
    const j = r.json || {};
    let tableId = j.table_id || j.properties?.table_id || r.headers.get('x-floe-table-id') || r.headers.get('x-oss-table-id') || '';
    if (!tableId && ref.namespace.length === 1) tableId = await this.taskApiTableId(ref);
    // managed: floe is the table's commit authority (managed versioning);
    // LanceDB, opening it through the namespace, commits through floe.
    return { tableId: tableId || ident, location: j.location || '', ident, managed: j.managed_versioning === true };
  }

  /**
   * What a cleanup with this cutoff would delete (floe's CleanupPlan
   * extension: floe reads the manifests and lists the dataset, on disk or
   * S3, because LanceDB 0.39 cannot say). Returns {versions, kept, files,
   * bytes, unverified_kept}.
   */
  async cleanupPlan(ref, beforeMs, taggedVersions) {
    const ident = identOf(ref);
    const p = `/v1/table/${encodeURIComponent(ident)}/cleanup_plan?delimiter=${encodeURIComponent(DELIM)}`;
    const r = await this.request('POST', p, { id: [ref.bucket, ...ref.namespace, ref.name], before_ms: beforeMs, tagged_versions: taggedVersions });
    if (r.status === 404) throw new TableGoneError(`table ${ident} no longer exists in the catalog (${r.json?.detail || r.json?.error || '404'})`);
    if (r.status !== 200) throw Catalog.describeError(p, r);
    return r.json;
  }

  /**
   * Forget the catalog's records of versions cleanup removed from storage
   * (BatchDeleteTableVersions), for a managed table: LanceDB 0.39 deletes
   * the manifests but does not tell the namespace. Returns how many
   * records went.
   */
  async forgetVersions(ref, versions) {
    if (!versions.length) return 0;
    const ident = identOf(ref);
    const p = `/v1/table/${encodeURIComponent(ident)}/version/delete?delimiter=${encodeURIComponent(DELIM)}`;
    const r = await this.request('POST', p, { ranges: versionRanges(versions) });
    if (r.status !== 200) throw Catalog.describeError(p, r);
    return Number(r.json?.deleted_count ?? 0);
  }

  /**
   * Stop-gap until DescribeTable carries the id: the task API on the same
   * address answers every success with x-oss-table-id, and listing a
   * table's tasks is a read. Only one namespace level is addressable there.
   */
  taskApiTableId(ref) {
    const u = new URL(this.url);
    const path = `/lance/oss/v1/table/${encodeURIComponent(ref.namespace[0] + DELIM + ref.name)}/tasks?task_type=lance_compact&max_results=1`;
    return new Promise((resolve) => {
      const req = http.request({
        host: u.hostname, port: u.port || 80, method: 'GET', path,
        headers: { host: `${ref.bucket}.localhost${u.port ? ':' + u.port : ''}`, ...this.headers() },
        timeout: requestTimeoutMs,
      }, (res) => {
        res.resume();
        resolve(res.statusCode === 200 ? String(res.headers['x-oss-table-id'] || '') : '');
      });
      req.on('error', () => resolve(''));
      req.on('timeout', () => req.destroy());
      req.end();
    });
  }

  async connection() {
    if (!this.conn) {
      this.conn = await lancedb.connectNamespace('rest', { uri: this.url, headers: this.headers() });
    }
    return this.conn;
  }

  /** Open a table through the REST namespace; a missing table is TableGoneError. */
  async open(ref) {
    const conn = await this.connection();
    try {
      return await retryUnreachable(() => conn.openTable(ref.name, [ref.bucket, ...ref.namespace]));
    } catch (e) {
      if (/not found|does not exist|TableNotFound/i.test(String(e?.message))) {
        throw new TableGoneError(`table ${identOf(ref)} could not be opened: ${shortError(e)}`);
      }
      throw e;
    }
  }

  /** Describe then open: the id and an open handle, resolved now. */
  async resolve(ref) {
    const d = await this.describe(ref);
    const table = await this.open(ref);
    return { ...d, ref, table };
  }
}

// catalogs keeps one Catalog per (url, key); keys are short-lived, so only a
// handful ever exist. The cap is a guard, not a tuning knob.
const catalogs = new Map();
const maxCatalogs = 8;

export function catalogFor(cluster) {
  const url = cluster?.lance_rest_url || process.env.FLOE_LANCE_URL || '';
  const key = cluster?.api_key || process.env.FLOE_API_KEY || '';
  const k = url + '\n' + key;
  let c = catalogs.get(k);
  if (!c) {
    c = new Catalog({ url, apiKey: key });
    if (catalogs.size >= maxCatalogs) catalogs.delete(catalogs.keys().next().value);
    catalogs.set(k, c);
  }
  return c;
}
