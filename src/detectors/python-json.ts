// Python's json.loads followed by json.dumps (default arguments), in TypeScript: what NovelAI's
// signature is computed over (nai_sig.py: `json_dumps(comment)` after `del comment["signed_hash"]`).
// JavaScript's JSON cannot reproduce it: Python keeps `10.0` as `10.0` (JS writes `10`), keeps
// integers of any size exactly, escapes every non-ASCII character as \uXXXX (ensure_ascii) and
// separates with ", " and ": ". So the text is parsed here into a tree that keeps each number's
// literal, and written back by Python's rules.
//
// The parser is recursive with a depth cap (MAX_DEPTH, below the ~1000 frames Python itself
// allows), so hostile nesting ends in a PythonJsonError, never a stack overflow.

export type PyValue =
  | { kind: 'object'; entries: [string, PyValue][] }
  | { kind: 'array'; items: PyValue[] }
  | { kind: 'string'; value: string }
  | { kind: 'number'; literal: string }
  | { kind: 'literal'; text: 'true' | 'false' | 'null' | 'NaN' | 'Infinity' | '-Infinity' };

export class PythonJsonError extends Error {}

export const MAX_DEPTH = 512;

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;

class Parser {
  private p = 0;
  constructor(private readonly s: string) {}

  parseDocument(): PyValue {
    const v = this.value(0);
    this.ws();
    if (this.p !== this.s.length) throw new PythonJsonError('extra data after the JSON value');
    return v;
  }

  private ws(): void {
    while (this.p < this.s.length && WS.has(this.s.charCodeAt(this.p))) this.p++;
  }

  private value(depth: number): PyValue {
    if (depth > MAX_DEPTH) throw new PythonJsonError(`nested deeper than ${MAX_DEPTH}`);
    this.ws();
    const c = this.s[this.p];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return { kind: 'string', value: this.string() };
    for (const text of ['true', 'false', 'null', 'NaN', 'Infinity', '-Infinity'] as const) {
      if (this.s.startsWith(text, this.p)) {
        this.p += text.length;
        return { kind: 'literal', text };
      }
    }
    NUMBER.lastIndex = this.p;
    const m = NUMBER.exec(this.s);
    if (!m) throw new PythonJsonError(`unexpected character at ${this.p}`);
    this.p += m[0].length;
    return { kind: 'number', literal: m[0] };
  }

  private object(depth: number): PyValue {
    this.p++; // {
    const entries: [string, PyValue][] = [];
    const index = new Map<string, number>();
    this.ws();
    if (this.s[this.p] === '}') {
      this.p++;
      return { kind: 'object', entries };
    }
    for (;;) {
      this.ws();
      if (this.s[this.p] !== '"') throw new PythonJsonError(`expected a key at ${this.p}`);
      const key = this.string();
      this.ws();
      if (this.s[this.p] !== ':') throw new PythonJsonError(`expected ':' at ${this.p}`);
      this.p++;
      const v = this.value(depth + 1);
      // A repeated key: Python's dict keeps the first position and the last value.
      const at = index.get(key);
      if (at === undefined) {
        index.set(key, entries.length);
        entries.push([key, v]);
      } else entries[at]![1] = v;
      this.ws();
      const c = this.s[this.p++];
      if (c === '}') return { kind: 'object', entries };
      if (c !== ',') throw new PythonJsonError(`expected ',' or '}' at ${this.p - 1}`);
    }
  }

  private array(depth: number): PyValue {
    this.p++; // [
    const items: PyValue[] = [];
    this.ws();
    if (this.s[this.p] === ']') {
      this.p++;
      return { kind: 'array', items };
    }
    for (;;) {
      items.push(this.value(depth + 1));
      this.ws();
      const c = this.s[this.p++];
      if (c === ']') return { kind: 'array', items };
      if (c !== ',') throw new PythonJsonError(`expected ',' or ']' at ${this.p - 1}`);
    }
  }

  private string(): string {
    this.p++; // opening quote
    let out = '';
    let run = this.p;
    for (;;) {
      if (this.p >= this.s.length) throw new PythonJsonError('unterminated string');
      const code = this.s.charCodeAt(this.p);
      if (code === 0x22) {
        out += this.s.slice(run, this.p);
        this.p++;
        return out;
      }
      if (code < 0x20) throw new PythonJsonError('a control character inside a string'); // json.loads is strict
      if (code !== 0x5c) {
        this.p++;
        continue;
      }
      out += this.s.slice(run, this.p);
      const e = this.s[this.p + 1];
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e !== undefined && e in simple) {
        out += simple[e];
        this.p += 2;
      } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(this.s.slice(this.p + 2, this.p + 6))) {
        out += String.fromCharCode(parseInt(this.s.slice(this.p + 2, this.p + 6), 16));
        this.p += 6;
      } else throw new PythonJsonError(`a bad escape at ${this.p}`);
      run = this.p;
    }
  }
}

/** Parses JSON as Python's json.loads does (NaN and Infinity allowed, repeated keys merged). */
export function parsePythonJson(text: string): PyValue {
  return new Parser(text).parseDocument();
}

/** Python's repr() of a float, from JavaScript's shortest round-trip digits. */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mantissa, exp] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const e = Number(exp);
  const decpt = e + 1; // digits d1 d2 ... with the decimal point after `decpt` of them
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
    if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
    return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

/** A number literal as Python writes it back: ints unchanged (any size), floats by repr(). */
function pythonNumber(literal: string): string {
  if (!/[.eE]/.test(literal)) return literal === '-0' ? '0' : literal;
  return pythonFloatRepr(Number(literal));
}

/** A string as json.dumps writes it with ensure_ascii: only printable ASCII stays as it is. */
function pythonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += s[i];
  }
  return out + '"';
}

/** json.dumps(value) with Python's defaults. Depth is bounded by the parser that built `value`. */
export function pythonJsonDumps(v: PyValue): string {
  switch (v.kind) {
    case 'object':
      return `{${v.entries.map(([k, x]) => `${pythonString(k)}: ${pythonJsonDumps(x)}`).join(', ')}}`;
    case 'array':
      return `[${v.items.map(pythonJsonDumps).join(', ')}]`;
    case 'string':
      return pythonString(v.value);
    case 'number':
      return pythonNumber(v.literal);
    case 'literal':
      return v.text;
  }
}
