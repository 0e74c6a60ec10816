// Shared helpers for the real-client tests. The Go test TestRealLanceDBClient
// (lancerest/realclient_test.go) starts floe's Lance REST server on a real
// catalog and runs these files with FLOE_LANCE_URL, FLOE_API_KEY,
// FLOE_WAREHOUSE and FLOE_PHASE (online, then offline after the server stops),
// once with LanceDB 0.39 (@lancedb/lancedb, what floe ships) and once with
// 0.31 (the npm alias lancedb031), named by FLOE_LANCEDB_MODULE, so clients
// a release behind keep working.
import fs from "node:fs";
import path from "node:path";

// lancedb is the client module under test.
export const lancedbModule = process.env.FLOE_LANCEDB_MODULE || "@lancedb/lancedb";
export const lancedb = await import(lancedbModule);

export const env = {
  url: process.env.FLOE_LANCE_URL ?? "",
  key: process.env.FLOE_API_KEY ?? "",
  warehouse: process.env.FLOE_WAREHOUSE ?? "",
  phase: process.env.FLOE_PHASE ?? "online",
};

const configured = env.url !== "" && env.key !== "" && env.warehouse !== "";

// skipUnless returns a node:test skip reason, or false when the phase runs.
export function skipUnless(phase) {
  if (!configured) return "set FLOE_LANCE_URL, FLOE_API_KEY and FLOE_WAREHOUSE (go test ./lancerest -run TestRealLanceDBClient does)";
  if (env.phase !== phase) return `runs in the ${phase} phase`;
  return false;
}

// connect opens a namespace-backed LanceDB connection to floe, the same way
// the console's Connect snippet does.
export function connect() {
  return lancedb.connectNamespace("rest", { uri: env.url, headers: { "x-api-key": env.key } });
}

// rest calls floe's Lance REST API directly (for operations the SDK does not
// expose, and to read what the catalog says).
export async function rest(method, route, body) {
  const res = await fetch(env.url + route, {
    method,
    headers: { "x-api-key": env.key, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? null : JSON.parse(text) };
}

// tableId joins names the way the REST API expects in a path.
export function tableId(...names) {
  return encodeURIComponent(names.join("$"));
}

// rows makes n records with a 3-dimensional vector column.
export function rows(n, start = 0) {
  return Array.from({ length: n }, (_, i) => ({
    id: start + i,
    label: `row-${start + i}`,
    vector: [start + i, (start + i) / 2, 1],
  }));
}

// listing maps every file under dir (relative path) to its size.
export function listing(dir) {
  const out = new Map();
  for (const rel of fs.readdirSync(dir, { recursive: true })) {
    const st = fs.statSync(path.join(dir, rel));
    if (st.isFile()) out.set(rel, st.size);
  }
  return out;
}

// Names shared between the online and offline phases.
export const KEEP = { bucket: "floe-js", namespace: "keep", table: "kept", rows: 7 };
