// Parsing and clamping of settings and job parameters. Nothing that arrives
// from the console or a task submission is trusted: numbers are clamped into
// the range the descriptor advertises, and malformed values fall back to the
// default (settings) or fail the job (parameters, see jobs.mjs).

/** Parse a settings_json string; anything but a JSON object yields {}. */
export function parseSettings(json) {
  if (!json) return {};
  try {
    const v = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** Clamp a numeric setting to [min, max]; non-numbers become the default. */
export function clampNumber(value, { min = -Infinity, max = Infinity, def, integer = false }) {
  let n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) return def;
  if (integer) n = Math.trunc(n);
  return Math.min(max, Math.max(min, n));
}

/** Read every field of a descriptor's form from settings, clamped. */
export function readSettings(descriptor, settings) {
  const out = {};
  for (const section of descriptor.form.sections) {
    for (const f of section.fields) {
      out[f.name] = readField(f, settings?.[f.name]);
    }
  }
  return out;
}

function readField(f, raw) {
  const def = defaultOf(f);
  switch (f.type) {
    case 'FIELD_TYPE_INT':
    case 'FIELD_TYPE_DURATION':
      return clampNumber(raw, { min: f.min, max: f.max, def, integer: true });
    case 'FIELD_TYPE_FLOAT':
      return clampNumber(raw, { min: f.min, max: f.max, def });
    case 'FIELD_TYPE_BOOL':
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true' || raw === 'false') return raw === 'true';
      return def;
    case 'FIELD_TYPE_SELECT':
      return f.options.some((o) => o.value === raw) ? raw : def;
    default:
      return typeof raw === 'string' ? raw : def;
  }
}

function defaultOf(f) {
  const d = f.default_value;
  switch (f.type) {
    case 'FIELD_TYPE_INT':
    case 'FIELD_TYPE_FLOAT':
      return Number(d);
    case 'FIELD_TYPE_DURATION':
      return parseDurationSeconds(d);
    case 'FIELD_TYPE_BOOL':
      return d === 'true';
    default:
      return d;
  }
}

const unitSeconds = { d: 86400, h: 3600, m: 60, s: 1 };

/**
 * Task-API durations: an integer and one of d|h|m|s ("7d", "168h", "30m",
 * "10s"). Plain integers are seconds. Returns null when malformed.
 */
export function parseDurationSeconds(text) {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? Math.trunc(text) : null;
  if (typeof text !== 'string') return null;
  const m = /^(\d+)([dhms]?)$/.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * (unitSeconds[m[2] || 's']);
}

/** A parameter map (map<string,string>) reader that records what it read. */
export class Params {
  constructor(map) {
    this.map = map || {};
  }
  has(name) {
    return this.map[name] !== undefined && this.map[name] !== '';
  }
  str(name, def = '') {
    return this.has(name) ? String(this.map[name]) : def;
  }
  /** Integer in [min,max]; throws a ParamError on garbage or out of range. */
  int(name, def, { min = -Infinity, max = Infinity } = {}) {
    if (!this.has(name)) return def;
    const n = Number(this.map[name]);
    if (!Number.isInteger(n)) throw new ParamError(`${name} must be an integer, got ${JSON.stringify(this.map[name])}`);
    if (n < min || n > max) throw new ParamError(`${name} must be between ${min} and ${max}, got ${n}`);
    return n;
  }
  float(name, def, { min = -Infinity, max = Infinity } = {}) {
    if (!this.has(name)) return def;
    const n = Number(this.map[name]);
    if (!Number.isFinite(n)) throw new ParamError(`${name} must be a number, got ${JSON.stringify(this.map[name])}`);
    if (n < min || n > max) throw new ParamError(`${name} must be between ${min} and ${max}, got ${n}`);
    return n;
  }
  bool(name, def) {
    if (!this.has(name)) return def;
    const v = String(this.map[name]).toLowerCase();
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    throw new ParamError(`${name} must be true or false, got ${JSON.stringify(this.map[name])}`);
  }
  oneOf(name, def, values, { caseInsensitive = false } = {}) {
    if (!this.has(name)) return def;
    let v = String(this.map[name]);
    if (caseInsensitive) {
      const hit = values.find((x) => x.toLowerCase() === v.toLowerCase());
      if (hit) v = hit;
    }
    if (!values.includes(v)) throw new ParamError(`${name} must be one of ${values.join(', ')}, got ${JSON.stringify(v)}`);
    return v;
  }
  /** A list: JSON array text or comma/newline separated. */
  list(name) {
    if (!this.has(name)) return [];
    const raw = String(this.map[name]).trim();
    if (raw.startsWith('[')) {
      try {
        const arr = JSON.parse(raw);
        if (Array.isArray(arr)) return arr.map(String).filter((s) => s !== '');
      } catch {
        throw new ParamError(`${name} must be a JSON array of strings`);
      }
    }
    return raw.split(/[\n,]/).map((s) => s.trim()).filter((s) => s !== '');
  }
}

/** A job parameter the worker refuses; the job fails with this message. */
export class ParamError extends Error {}
