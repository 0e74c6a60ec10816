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

/**
 * A parameter map (map<string,string>) reader. defs are the console's
 * definitions of the job type's parameters (Welcome.job_params): get() reads
 * a parameter by its definition, so the worker keeps no copy of the task
 * parameters' types, minimums, options and defaults.
 */
export class Params {
  constructor(map, defs = []) {
    this.map = map || {};
    this.defs = new Map((defs || []).map((d) => [d.name, d]));
  }
  /** Read a parameter by the console's definition of it. */
  get(name) {
    const d = this.defs.get(name);
    if (!d) throw new ParamError(`the console sent no definition of parameter ${name}; run a floe and a worker of the same release`);
    const def = d.default_value === '' || d.default_value === undefined ? undefined : decodeDefault(d);
    switch (d.type) {
      case 'FIELD_TYPE_INT':
        return this.int(name, def, { min: d.min ?? -Infinity });
      case 'FIELD_TYPE_FLOAT':
        return this.float(name, def);
      case 'FIELD_TYPE_BOOL':
        return this.bool(name, def);
      case 'FIELD_TYPE_SELECT':
        return this.oneOf(name, def, d.options || []);
      case 'FIELD_TYPE_STRING_LIST':
        return this.has(name) ? this.list(name) : def ?? [];
      default: {
        const v = this.str(name, def);
        if (v !== undefined && d.pattern && !new RegExp(`^(?:${d.pattern})$`).test(v)) {
          throw new ParamError(`${name} ${JSON.stringify(v)} is refused: ${d.help || `it must match ${d.pattern}`}`);
        }
        return v;
      }
    }
  }
  has(name) {
    return this.map[name] !== undefined && this.map[name] !== '';
  }
  /**
   * Refuse every parameter the console did not define (nor the task's own
   * names in meta): a job that deletes data must never run with a setting
   * it does not know, as a cleanup sent with an unknown dry_run once did.
   */
  refuseUnknown(meta = []) {
    const unknown = Object.keys(this.map).filter((k) => !this.defs.has(k) && !meta.includes(k)).sort();
    if (unknown.length) throw new ParamError(`this job deletes data and refuses parameters it does not know: ${unknown.join(', ')}; nothing was deleted`);
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

// decodeDefault reads a definition's default, encoded as parameters are:
// strings as they are, everything else JSON.
function decodeDefault(d) {
  if (d.type === 'FIELD_TYPE_STRING' || d.type === 'FIELD_TYPE_SELECT' || d.type === 'FIELD_TYPE_UNSPECIFIED') return d.default_value;
  try {
    return JSON.parse(d.default_value);
  } catch {
    throw new ParamError(`the console's default for ${d.name} is not readable (${JSON.stringify(d.default_value)})`);
  }
}

/** A job parameter the worker refuses; the job fails with this message. */
export class ParamError extends Error {}
