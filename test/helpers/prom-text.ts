// A strict parser of the Prometheus text exposition format (version 0.0.4), for the daemon's
// /metrics tests: every line must be a HELP, a TYPE or a sample of a family declared before it,
// label values are unescaped as the format says (\\, \", \n), and anything else throws, so a
// malformed exposition fails the test rather than being half-read.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** Family name -> its TYPE. */
  types: Map<string, string>;
  help: Map<string, string>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const SUFFIXES: Record<string, string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

function parseValue(text: string, line: string): number {
  // Prometheus reads these as Go's ParseFloat does, case-insensitively (prom-client writes `Nan`).
  if (/^nan$/i.test(text)) return NaN;
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value "${text}" in: ${line}`);
  return Number(text);
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new Error(`bad labels in: ${line}`);
    const name = text.slice(i, eq);
    if (!LABEL.test(name)) throw new Error(`bad label name "${name}" in: ${line}`);
    if (Object.hasOwn(labels, name)) throw new Error(`label ${name} twice in: ${line}`);
    if (text[eq + 1] !== '"') throw new Error(`unquoted label value in: ${line}`);
    let value = '';
    let j = eq + 2;
    for (; ; j++) {
      if (j >= text.length) throw new Error(`unterminated label value in: ${line}`);
      const c = text[j];
      if (c === '"') break;
      if (c === '\\') {
        const next = text[++j];
        if (next === '\\') value += '\\';
        else if (next === '"') value += '"';
        else if (next === 'n') value += '\n';
        else throw new Error(`bad escape \\${next} in: ${line}`);
      } else value += c;
    }
    labels[name] = value;
    i = j + 1;
    if (i < text.length) {
      if (text[i] !== ',') throw new Error(`expected , between labels in: ${line}`);
      i++;
    }
  }
  return labels;
}

export function parseExposition(text: string): Exposition {
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const familyOf = (name: string): string | undefined => {
    for (const [family, type] of types) {
      for (const suffix of SUFFIXES[type] ?? ['']) if (name === family + suffix) return family;
    }
    return undefined;
  };
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) {
        if (/^# (HELP|TYPE)\b/.test(line)) throw new Error(`bad comment: ${line}`);
        continue;
      }
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!NAME.test(name)) throw new Error(`bad metric name: ${line}`);
      if (kind === 'TYPE') {
        if (!(rest in SUFFIXES)) throw new Error(`bad type: ${line}`);
        if (types.has(name)) throw new Error(`TYPE twice: ${line}`);
        types.set(name, rest);
      } else {
        if (help.has(name)) throw new Error(`HELP twice: ${line}`);
        help.set(name, rest);
      }
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line);
    if (!m) throw new Error(`bad sample line: ${line}`);
    const [, name, labelText, valueText] = m as unknown as [string, string, string | undefined, string];
    if (familyOf(name) === undefined) throw new Error(`sample of no declared family: ${line}`);
    samples.push({ name, labels: labelText ? parseLabels(labelText, line) : {}, value: parseValue(valueText, line) });
  }
  return { samples, types, help };
}

/** The value of the sample of `name` with exactly these labels (no more, no fewer), else undefined. */
export function sampleValue(exposition: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels);
  const found = exposition.samples.filter(
    (s) => s.name === name && Object.keys(s.labels).length === want.length && want.every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${found.length} samples`);
  return found[0]?.value;
}
