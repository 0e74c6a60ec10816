#!/usr/bin/env node
// Completes package-lock.json so `npm ci` accepts it.
//
// Why: some packages (LanceDB 0.39's native builds for macOS, Windows and
// linux-arm64) are not served by the registry this repository installs from.
// `npm install` leaves an optional dependency it cannot fetch out of the
// lock, and `npm ci` then refuses that lock as out of sync ("Missing:
// @lancedb/lancedb-darwin-arm64@ from lock file"). This script records each
// such optional platform build in the lock at the place Node's resolution
// would look for it, with its exact version and its os/cpu/libc, and nothing
// else: no tarball URL or integrity, because none was served here. On this
// platform `npm ci` skips them (platform mismatch) and installs exactly what
// the lock pins; on another platform npm fetches that exact version by name.
//
// Usage: node scripts/npm-lock.mjs          (rewrite package-lock.json)
//        node scripts/npm-lock.mjs --check  (exit 1 if an entry is missing)
// `make lock` runs `npm install --package-lock-only`, then this, then npm again
// (which keeps the entries and puts them in its own order).
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const check = process.argv.includes('--check');

// platformOf reads os/cpu/libc from a native build's name, the convention
// napi-rs packages follow (…-linux-x64-gnu, …-darwin-arm64, …-win32-x64-msvc).
export function platformOf(name) {
  const m = /-(darwin|linux|win32|freebsd)-(x64|arm64|ia32|arm)(?:-(gnu|musl|msvc|gnueabihf))?$/.exec(name);
  if (!m) return null;
  const out = { os: [m[1]], cpu: [m[2]] };
  if (m[3] === 'gnu' || m[3] === 'gnueabihf') out.libc = ['glibc'];
  if (m[3] === 'musl') out.libc = ['musl'];
  return out;
}

// resolve finds where Node would load dep from for the package at path
// (node_modules/a/node_modules/b → node_modules/a/node_modules/b/node_modules/dep,
// then node_modules/a/node_modules/dep, then node_modules/dep).
function resolve(packages, path, dep) {
  let base = path;
  for (;;) {
    const at = (base ? base + '/' : '') + 'node_modules/' + dep;
    if (packages[at]) return at;
    if (!base) return null;
    const i = base.lastIndexOf('/node_modules/');
    base = i < 0 ? '' : base.slice(0, i);
  }
}

export function complete(lock) {
  const packages = lock.packages;
  const added = [];
  for (const [path, pkg] of Object.entries(packages)) {
    if (!path) continue; // the root project
    for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
      const platform = platformOf(dep);
      if (!platform || !/^\d+\.\d+\.\d+$/.test(version)) continue; // only exact platform builds
      const found = resolve(packages, path, dep);
      if (found && packages[found].version === version) continue;
      // The highest free place, or nested under the package when another
      // version holds it (the way npm itself would place it).
      const top = 'node_modules/' + dep;
      const at = packages[top] ? path + '/node_modules/' + dep : top;
      const entry = { version, ...platform, optional: true };
      if (pkg.dev) entry.dev = true;
      if (pkg.license) entry.license = pkg.license;
      packages[at] = entry;
      added.push(`${at}@${version}`);
    }
  }
  return added;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
  const added = complete(lock);
  if (check) {
    if (added.length) {
      console.error(`package-lock.json lacks ${added.join(', ')}; run make lock`);
      process.exit(1);
    }
  } else {
    writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
    for (const a of added) console.log('recorded ' + a + ' (not served here; npm ci skips it on this platform)');
  }
}
