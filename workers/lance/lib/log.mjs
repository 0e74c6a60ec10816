// One line per event on stderr, logfmt-style, so `floe serve --with-worker`
// can forward each line into its own log unchanged.

const levels = { debug: 10, info: 20, warn: 30, error: 40 };
// Read on every line so a process (or the benchmark) can change it at run time.
const threshold = () => levels[(process.env.FLOE_LOG_LEVEL || 'info').toLowerCase()] ?? levels.info;

function quote(v) {
  const s = v instanceof Error ? v.message : typeof v === 'string' ? v : JSON.stringify(v);
  if (s === undefined) return '""';
  return /[\s"=]/.test(s) || s === '' ? JSON.stringify(s) : s;
}

function emit(level, msg, fields) {
  if (levels[level] < threshold()) return;
  let line = `level=${level} msg=${quote(msg)}`;
  for (const [k, v] of Object.entries(fields || {})) {
    if (v === undefined) continue;
    line += ` ${k}=${quote(v)}`;
  }
  process.stderr.write(line + '\n');
}

export const log = {
  debug: (msg, f) => emit('debug', msg, f),
  info: (msg, f) => emit('info', msg, f),
  warn: (msg, f) => emit('warn', msg, f),
  error: (msg, f) => emit('error', msg, f),
};

/**
 * An engine error in one readable sentence: LanceDB's messages repeat
 * themselves in "Caused by" chains and carry Rust source paths.
 */
export function shortError(e) {
  let s = String(e?.message ?? e);
  s = s.replace(/,?\s*\/[^\s,]*\.rs:\d+:\d+/g, '');
  s = s.split(/\s+Caused by:\s+/)[0].trim();
  return s.length > 400 ? s.slice(0, 397) + '...' : s;
}
