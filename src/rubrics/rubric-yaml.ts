// The YAML the C2PA's rubric files are written in, read without a general YAML package. The
// official evaluators read them with PyYAML (`yaml.safe_load_all`); a general parser (the `yaml`
// package) took 120 to 170 ms to import and 35 to 100 ms to parse the signals rubric on this
// machine, against a budget of 10 ms for everything a signed file adds to a cold check (issue
// 38). The rubric files are PyYAML's own output (`yaml.dump`): block mappings and sequences,
// plain, single- and double-quoted scalars (folded over lines, double quotes with escapes and
// `\` line joins), literal and folded block scalars, documents split by `---`. That is what this
// reads, with YAML 1.1's plain-scalar types as PyYAML resolves them; anything else (anchors,
// aliases, tags, flow collections, complex keys) is refused with its line, never guessed.
// test/rubric-yaml.test.ts holds every shipped rubric to the `yaml` package's reading, so a
// rubric release that needs more fails there, at data-update time.

export class RubricYamlError extends Error {
  constructor(message: string, line: number) {
    super(`rubric YAML line ${line + 1}: ${message}`);
    this.name = 'RubricYamlError';
  }
}

interface Line {
  /** Index in the file (for messages). */
  n: number;
  indent: number;
  /** The line without its indentation (comments kept: only the scalar readers know quotes). */
  text: string;
  raw: string;
}

/** Every document of a YAML stream (as yaml.safe_load_all gives them). */
export function parseYamlDocuments(source: string): unknown[] {
  const raws = source.replace(/\r\n?/g, '\n').split('\n');
  const docs: Line[][] = [[]];
  let started = false;
  raws.forEach((raw, n) => {
    if (/^---(\s|$)/.test(raw)) {
      if (raw.slice(3).trim() && !raw.slice(3).trim().startsWith('#')) throw new RubricYamlError('content after --- is not supported', n);
      if (started || docs[docs.length - 1]!.length) docs.push([]);
      started = true;
      return;
    }
    if (/^\.\.\.(\s|$)/.test(raw)) return;
    if (/^%/.test(raw)) throw new RubricYamlError('directives are not supported', n);
    const indent = raw.length - raw.trimStart().length;
    if (raw.slice(0, indent).includes('\t')) throw new RubricYamlError('tabs in indentation', n);
    docs[docs.length - 1]!.push({ n, indent, text: raw.slice(indent), raw });
    started = true;
  });
  return docs.filter((lines) => lines.some(isContent)).map((lines) => new Reader(lines).document());
}

const isContent = (l: Line) => l.text !== '' && !l.text.startsWith('#');

class Reader {
  private i = 0;
  private readonly lines: Line[];
  constructor(lines: Line[]) {
    this.lines = lines;
  }

  document(): unknown {
    this.skipBlank();
    const first = this.lines[this.i];
    if (!first) return null;
    const value = this.node(first.indent);
    this.skipBlank();
    if (this.i < this.lines.length) throw new RubricYamlError('unexpected content', this.lines[this.i]!.n);
    return value;
  }

  private skipBlank(): void {
    while (this.i < this.lines.length && !isContent(this.lines[this.i]!)) this.i += 1;
  }

  /** A block node starting at the current line, at `indent`. */
  private node(indent: number): unknown {
    this.skipBlank();
    const line = this.lines[this.i];
    if (!line || line.indent < indent) return null;
    if (line.text === '-' || line.text.startsWith('- ')) return this.sequence(line.indent);
    if (keyOf(line.text)) return this.mapping(line.indent);
    return this.multiLineScalar(line.indent - 1, line.text, line.n);
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      this.skipBlank();
      const line = this.lines[this.i];
      if (!line || line.indent !== indent || !(line.text === '-' || line.text.startsWith('- '))) break;
      const rest = line.text.slice(1).trimStart();
      const restIndent = line.indent + (line.text.length - rest.length);
      if (rest === '' || rest.startsWith('#')) {
        this.i += 1;
        out.push(this.childNode(indent));
      } else if (keyOf(rest)) {
        // `- key: value` opens a mapping whose keys sit at the column after the dash.
        this.lines[this.i] = { ...line, indent: restIndent, text: rest };
        out.push(this.mapping(restIndent));
      } else if (rest === '-' || rest.startsWith('- ')) {
        this.lines[this.i] = { ...line, indent: restIndent, text: rest };
        out.push(this.sequence(restIndent));
      } else {
        out.push(this.inlineValue(rest, line, indent));
      }
    }
    return out;
  }

  /** The node below a key or dash with nothing after it: more indented, or a sequence at the key's indent. */
  private childNode(parentIndent: number, allowSameIndentSequence = false): unknown {
    this.skipBlank();
    const next = this.lines[this.i];
    if (!next) return null;
    if (next.indent > parentIndent) return this.node(next.indent);
    if (allowSameIndentSequence && next.indent === parentIndent && (next.text === '-' || next.text.startsWith('- '))) return this.sequence(next.indent);
    return null;
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (;;) {
      this.skipBlank();
      const line = this.lines[this.i];
      if (!line || line.indent !== indent) break;
      const key = keyOf(line.text);
      if (!key) throw new RubricYamlError('expected a "key:" line', line.n);
      const rest = line.text.slice(key.end).trimStart();
      if (Object.prototype.hasOwnProperty.call(out, key.name)) throw new RubricYamlError(`key "${key.name}" twice`, line.n);
      if (rest === '' || rest.startsWith('#')) {
        this.i += 1;
        out[key.name] = this.childNode(indent, true);
      } else {
        out[key.name] = this.inlineValue(rest, line, indent);
      }
    }
    return out;
  }

  /** A value that starts on the current line after a key or a dash; `parentIndent` is the key's. */
  private inlineValue(rest: string, line: Line, parentIndent: number): unknown {
    const c = rest[0]!;
    if (c === '|' || c === '>') {
      this.i += 1;
      return this.blockScalar(rest, line.n, parentIndent);
    }
    if (c === "'" || c === '"') return this.quoted(rest, line, parentIndent);
    if ('[{&*!%@`?'.includes(c)) throw new RubricYamlError(`"${c}" (flow collections, anchors, aliases, tags) is not supported`, line.n);
    return this.multiLineScalar(parentIndent, rest, line.n);
  }

  /** A plain scalar, folded over the following more-indented lines (blank lines are newlines). */
  private multiLineScalar(parentIndent: number, first: string, n: number): unknown {
    this.i += 1;
    const parts = [stripComment(first).trimEnd()];
    let blanks = 0;
    while (this.i < this.lines.length) {
      const l = this.lines[this.i]!;
      if (l.text === '') {
        blanks += 1;
        this.i += 1;
        continue;
      }
      if (l.indent <= parentIndent || l.text.startsWith('#')) break;
      parts.push(blanks ? '\n'.repeat(blanks) : ' ', stripComment(l.text).trimEnd());
      blanks = 0;
      this.i += 1;
    }
    // Blank lines that end the scalar belong to nobody: step back onto them is not needed, they are skipped.
    const text = parts.join('');
    if (parts.length === 1) return resolvePlain(text, n);
    return text;
  }

  private quoted(rest: string, line: Line, parentIndent: number): string {
    const quote = rest[0]!;
    // The quoted text may span lines: gather until the closing quote.
    let buf = rest.slice(1);
    const pieces: string[] = [];
    let index = this.i;
    for (;;) {
      const close = findClose(buf, quote);
      if (close >= 0) {
        pieces.push(buf.slice(0, close));
        const after = buf.slice(close + 1).trim();
        if (after && !after.startsWith('#')) throw new RubricYamlError('content after a quoted scalar', this.lines[index]!.n);
        break;
      }
      pieces.push(buf);
      index += 1;
      const next = this.lines[index];
      if (!next) throw new RubricYamlError('quoted scalar without its closing quote', line.n);
      if (next.text !== '' && next.indent <= parentIndent) throw new RubricYamlError('quoted scalar without its closing quote', line.n);
      buf = next.text;
    }
    this.i = index + 1;
    return quote === "'" ? foldSingle(pieces) : foldDouble(pieces, line.n);
  }

  private blockScalar(header: string, n: number, parentIndent: number): string {
    const m = /^([|>])([+-]?)([1-9]?)([+-]?)\s*(#.*)?$/.exec(header);
    if (!m) throw new RubricYamlError(`block scalar header "${header}" is not supported`, n);
    const literal = m[1] === '|';
    const chomp = m[2] || m[4];
    const lines: { indent: number; raw: string }[] = [];
    let j = this.i;
    while (j < this.lines.length) {
      const l = this.lines[j]!;
      if (l.text !== '' && l.indent <= parentIndent) break;
      lines.push({ indent: l.indent, raw: l.raw });
      j += 1;
    }
    this.i = j;
    const contentIndent = m[3] ? parentIndent + Number(m[3]) : (lines.find((l) => l.raw.trim() !== '')?.indent ?? parentIndent + 1);
    const body = lines.map((l) => (l.raw.trim() === '' ? '' : l.raw.slice(contentIndent)));
    let end = body.length;
    while (end > 0 && body[end - 1] === '') end -= 1;
    const trailing = body.length - end;
    const content = body.slice(0, end);
    let text: string;
    if (literal) {
      text = content.join('\n');
    } else {
      // Folded: lines joined by a space; n empty lines between are n newlines; around a
      // more-indented line the line break itself is kept too.
      const moreIndented = (line: string) => line.startsWith(' ') || line.startsWith('\t');
      text = content[0] ?? '';
      let prev = text;
      let blanks = 0;
      for (const cur of content.slice(1)) {
        if (cur === '') {
          blanks += 1;
          continue;
        }
        const kept = moreIndented(prev) || moreIndented(cur);
        text += (kept ? '\n' : blanks ? '' : ' ') + '\n'.repeat(blanks) + cur;
        prev = cur;
        blanks = 0;
      }
    }
    if (content.length === 0) return chomp === '+' ? '\n'.repeat(trailing) : '';
    if (chomp === '-') return text;
    if (chomp === '+') return `${text}\n${'\n'.repeat(trailing)}`;
    return `${text}\n`;
  }
}

/** A mapping key at the start of `text`: plain (up to `: ` or a final `:`) or quoted. */
function keyOf(text: string): { name: string; end: number } | undefined {
  if (text.startsWith("'") || text.startsWith('"')) {
    const close = findClose(text.slice(1), text[0]!);
    if (close < 0) return undefined;
    const after = close + 2;
    if (text[after] !== ':' || !(after + 1 === text.length || text[after + 1] === ' ')) return undefined;
    const inner = text.slice(1, close + 1);
    return { name: text[0] === "'" ? inner.replace(/''/g, "'") : foldDouble([inner], 0), end: after + 1 };
  }
  if (text.startsWith('- ') || text === '-' || text.startsWith('#')) return undefined;
  const m = /^([^\s#'"[\]{},&*!|>%@`?][^#]*?):(?: |$)/.exec(text);
  if (!m) return undefined;
  return { name: m[1]!, end: m[0]!.length - (m[0]!.endsWith(' ') ? 1 : 0) };
}

function findClose(s: string, quote: string): number {
  for (let k = 0; k < s.length; k += 1) {
    const c = s[k];
    if (quote === "'" && c === "'") {
      if (s[k + 1] === "'") {
        k += 1;
        continue;
      }
      return k;
    }
    if (quote === '"') {
      if (c === '\\') {
        k += 1;
        continue;
      }
      if (c === '"') return k;
    }
  }
  return -1;
}

function stripComment(text: string): string {
  const hash = text.search(/\s#/);
  return hash >= 0 ? text.slice(0, hash) : text;
}

/** Multi-line flow scalar folding: a line break is a space, each blank line a newline. */
function fold(pieces: string[], map: (s: string) => string = (s) => s): string {
  if (pieces.length === 1) return map(pieces[0]!);
  let out = map(pieces[0]!.replace(/[ \t]+$/, ''));
  let blanks = 0;
  for (let k = 1; k < pieces.length; k += 1) {
    const last = k === pieces.length - 1;
    const piece = last ? pieces[k]!.replace(/^[ \t]+/, '') : pieces[k]!.trim();
    if (piece === '' && !last) {
      blanks += 1;
      continue;
    }
    out += blanks ? '\n'.repeat(blanks) : ' ';
    out += map(piece);
    blanks = 0;
  }
  return out;
}

function foldSingle(pieces: string[]): string {
  return fold(pieces, (s) => s.replace(/''/g, "'"));
}

const ESCAPES: Record<string, string> = {
  '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b',
  ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\x85', _: '\xa0', L: '\u2028', P: '\u2029',
};

/** Double-quoted: escapes, and a line that ends in `\` joins the next without a space. */
function foldDouble(pieces: string[], n: number): string {
  let out = '';
  let pendingBreak = false;
  let blanks = 0;
  for (let k = 0; k < pieces.length; k += 1) {
    const first = k === 0;
    const last = k === pieces.length - 1;
    let piece = pieces[k]!;
    if (!first) piece = piece.replace(/^[ \t]+/, '');
    const escapedBreak = !last && /(^|[^\\])(\\\\)*\\$/.test(piece);
    if (!last && !escapedBreak) piece = piece.replace(/[ \t]+$/, '');
    if (!first && pendingBreak) {
      if (piece === '' && !last) {
        blanks += 1;
        continue;
      }
      out += blanks ? '\n'.repeat(blanks) : ' ';
    }
    blanks = 0;
    const body = escapedBreak ? piece.slice(0, -1) : piece;
    out += unescapeDouble(body, n);
    pendingBreak = !escapedBreak;
  }
  return out;
}

function unescapeDouble(s: string, n: number): string {
  return s.replace(/\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/g, (_, e: string) => {
    if (e.length > 1) return String.fromCodePoint(parseInt(e.slice(1), 16));
    const v = ESCAPES[e];
    if (v === undefined) throw new RubricYamlError(`unknown escape \\${e}`, n);
    return v;
  });
}

/** A one-line plain scalar as PyYAML's resolver (YAML 1.1) types it. */
function resolvePlain(text: string, n: number): unknown {
  if (text === '' || text === '~' || /^(null|Null|NULL)$/.test(text)) return null;
  if (/^(yes|Yes|YES|true|True|TRUE|on|On|ON)$/.test(text)) return true;
  if (/^(no|No|NO|false|False|FALSE|off|Off|OFF)$/.test(text)) return false;
  if (/^[-+]?(0|[1-9][0-9_]*)$/.test(text)) return Number(text.replace(/_/g, ''));
  if (/^[-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+][0-9]+)?$/.test(text) && /[0-9]/.test(text)) return Number(text.replace(/_/g, ''));
  // Octal, hex, sexagesimal numbers and timestamps: PyYAML types them; no rubric writes one bare.
  if (/^[-+]?0[0-7_]+$|^[-+]?0x[0-9a-fA-F_]+$|^[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$|^\d{4}-\d\d?-\d\d?([Tt ]|$)|^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$/.test(text)) {
    throw new RubricYamlError(`the plain scalar "${text}" needs a YAML 1.1 type this reader does not give`, n);
  }
  return text;
}
