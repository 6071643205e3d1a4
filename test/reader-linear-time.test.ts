// The readers of file text take time linear in the text: each is fed adversarial text (runs of
// spaces, NULs, repeated separators, nested brackets and braces, long digit runs, unterminated
// quotes, tags and CDATA left open...) at two sizes, 4x apart, and must not take much more than
// 4x as long; then once at its size limit, where it must answer in under a second. A regular
// expression that backtracks quadratically takes 16x as long at 4x the size (and hours at the
// limit), so the ratio check fails it quickly, before the run at the limit is tried.
//
// Robust on a loaded machine: each small-size time is the minimum of a few runs, the ratio allows
// 8x (linear is 4x) plus a fixed slack, and the bound at the limit is generous (a linear reader
// takes a few tens of milliseconds there).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkNovelAiSignature } from '../src/detectors/novelai-signature.js';
import { judgeGeneratorMetadata } from '../src/detectors/generator-metadata.js';
import { MAX_JSON_CHARS } from '../src/detectors/generator-fields.js';
import { parsePythonJson } from '../src/detectors/python-json.js';
import { MAX_FIELD_BYTES } from '../src/media/exif-text.js';
import { MAX_TEXT_BYTES } from '../src/media/png-chunks.js';
import { decodeUserComment } from '../src/media/user-comment.js';
import { IPTC_EXT_NAMESPACE, MAX_PACKET, xmpProperty } from '../src/media/xmp-hints.js';
import { makePng, patternPixels, pngChunk, tEXtBytes, tiffBlock, userComment } from './helpers/generator-fixtures.js';

const SMALL = 16 * 1024;
const RATIO = 8;
const SLACK_MS = 40;
const LIMIT_MS = 1000;
const REPS = 3;

const DC = 'http://purl.org/dc/elements/1.1/';
const XMP_HEAD = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description xmlns:I="${IPTC_EXT_NAMESPACE}" xmlns:dc="${DC}" xmlns:p='${IPTC_EXT_NAMESPACE}' `;

/** Pieces that hostile text repeats: each has made some regular expression quadratic somewhere. */
const UNITS = [
  ' ', '\t', '\n', '\r\n', '\0', ',', ', ', ':', ': ', ' : ', ',,', '"', "'", '\\', '\\"', '""',
  '{', '[', '{"a": ', '[1, ', '}', ']', '{[', '9', '-9', '1e', '0.', 'a', 'a ', 'k, ', 'k: ', 'k:v, ',
  'Steps: 1, ', 'Seed: "', '"x": "', 'signed_hash', '"signed_hash": ', 'Job ID: ', 'job id:0 ', ' -S ',
  '-s', '--seed ', '<', '>', '</', '/>', '<x ', '&#', '&#x', '&amp', '<![CDATA[', ']]', '<rdf:li ', '<rdf:li>',
  '</rdf:li ', '<I:DigitalSourceType ', '<I:DigitalSourceType>', '</I:DigitalSourceType ', '<p:DigitalSourceType rdf:resource="x" ',
  ' I:DigitalSourceType="', " p:DigitalSourceType='", 'rdf:resource="', `xmlns:q="${IPTC_EXT_NAMESPACE}" `,
  '<dc:description ', '<dc:description>', 'DALL-', 'Made with ', '/trainedAlgorithmicMedia ', '__1',
];
const SUFFIXES = ['', 'x', ' y', '"}', '"]}', ']', '}', '>', '\n', 'Job ID: 0', '"', ' ', '\0x'];

interface Reader {
  name: string;
  /** Characters of text at the reader's own cap (past it the text is not read). */
  limit: number;
  prefixes: string[];
  prepare(text: string): unknown;
  run(input: unknown): unknown;
}

const enc = new TextEncoder();
const png = 'image/png';
const judge = (bytes: unknown) => judgeGeneratorMetadata({ bytes: bytes as Uint8Array, type: png, sha256: '' });

/** A PNG whose text chunk `keyword` holds `text` (bytes as UTF-8), after `extra` chunks. */
function pngText(keyword: string, extra: Uint8Array[] = []): (text: string) => Uint8Array {
  return (text) => makePng(patternPixels(4, 4, 3), { before: [...extra, tEXtBytes(keyword, enc.encode(text))] });
}

/** A PNG whose eXIf chunk has `text` as the tag (ASCII) or as the UserComment. */
function pngExif(tag: number): (text: string) => Uint8Array {
  return (text) => {
    const field = tag === 0x9286 ? { tag, type: 7 as const, value: userComment(text, 'ascii') } : { tag, type: 2 as const, value: text };
    return makePng(patternPixels(4, 4, 3), { before: [pngChunk('eXIf', tiffBlock({ ifd0: [field] }))] });
  };
}

const GENERATOR_PREFIXES = ['', 'a prompt\nSteps: 20, Seed: 1, ', 'Steps: 20, Seed: 1, Size: 1x1, Prompt: "', 'a prompt ', '{"prompt": "', '"a prompt" '];
const JSON_PREFIXES = ['', '{"a": ', '[', '{"a": "', '{"a": 1', '{"prompt": "', '{"signed_hash": "', '{"request_type": "x", "signed_hash": 1, "a": ['];
const pixels = { width: 2, height: 2, channels: 4 as const, data: new Uint8Array(16) };

const READERS: Reader[] = [
  ...['parameters', 'Description', 'prompt', 'workflow', 'Dream', 'sd-metadata', 'invokeai_metadata', 'generation_data', 'parameters-json'].map(
    (keyword): Reader => ({ name: `generator_metadata, PNG tEXt ${keyword}`, limit: MAX_TEXT_BYTES, prefixes: GENERATOR_PREFIXES, prepare: pngText(keyword), run: judge }),
  ),
  {
    name: 'generator_metadata, PNG NovelAI Comment',
    limit: MAX_TEXT_BYTES,
    prefixes: JSON_PREFIXES,
    prepare: pngText('Comment', [tEXtBytes('Software', enc.encode('NovelAI'))]),
    run: judge,
  },
  {
    name: 'generator_metadata, PNG XMP',
    limit: MAX_TEXT_BYTES,
    prefixes: [XMP_HEAD, `${XMP_HEAD}><I:DigitalSourceType>`, `${XMP_HEAD}><dc:description><rdf:Alt>`, `${XMP_HEAD}><I:DigitalSourceType `],
    prepare: pngText('XML:com.adobe.xmp'),
    run: judge,
  },
  ...[0x9286, 0x010e, 0x0131, 0x0110].map(
    (tag): Reader => ({ name: `generator_metadata, EXIF tag 0x${tag.toString(16)}`, limit: MAX_FIELD_BYTES - 8, prefixes: GENERATOR_PREFIXES, prepare: pngExif(tag), run: judge }),
  ),
  {
    name: 'UserComment (UTF-16)',
    limit: MAX_FIELD_BYTES / 2 - 4,
    prefixes: ['', 'Steps: 20, '],
    prepare: (text) => userComment(text, 'utf16le'),
    run: (raw) => decodeUserComment(raw as Uint8Array, false),
  },
  ...['DigitalSourceType', 'description'].map(
    (name): Reader => ({
      name: `XMP property ${name}`,
      limit: MAX_PACKET,
      prefixes: [XMP_HEAD, `${XMP_HEAD}><I:${name}>`, `${XMP_HEAD}><dc:${name}><rdf:Alt>`, `${XMP_HEAD}><I:${name} `],
      prepare: (text) => text,
      run: (text) => xmpProperty(text as string, name === 'description' ? DC : IPTC_EXT_NAMESPACE, name),
    }),
  ),
  {
    name: "Python's json.loads",
    limit: MAX_JSON_CHARS,
    prefixes: JSON_PREFIXES,
    prepare: (text) => text,
    run: (text) => {
      try {
        return parsePythonJson(text as string);
      } catch {
        return undefined;
      }
    },
  },
  {
    name: 'NovelAI signature check',
    limit: MAX_JSON_CHARS,
    prefixes: JSON_PREFIXES,
    prepare: (text) => text,
    run: (text) => checkNovelAiSignature(pixels, `${text as string}signed_hash`),
  },
];

/** `prefix`, then `unit` repeated, then `suffix`: `size` characters in all (about). */
function hostile(prefix: string, unit: string, suffix: string, size: number): string {
  const body = Math.max(0, size - prefix.length - suffix.length);
  return prefix + unit.repeat(Math.ceil(body / unit.length)).slice(0, body) + suffix;
}

async function time(reader: Reader, input: unknown): Promise<number> {
  const t0 = performance.now();
  await reader.run(input);
  return performance.now() - t0;
}

/** The least of REPS runs, stopping early once one is under `enough`. */
async function minTime(reader: Reader, input: unknown, enough = 0): Promise<number> {
  let best = Infinity;
  for (let r = 0; r < REPS && best >= enough; r++) best = Math.min(best, await time(reader, input));
  return best;
}

const unit = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...UNITS) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(' ', ',', ':', '"', '\\', '{', '[', '<', '>', '9', 'a', '\n', '\0', '-'), minLength: 1, maxLength: 4 }) },
);

/** The shapes that were quadratic before (checked first, so that a regression fails at once). */
function examplesFor(reader: Reader): [string, string, string][] {
  const [first] = reader.prefixes as [string];
  const last = reader.prefixes[reader.prefixes.length - 1]!;
  return [
    [first, ' ', 'x'], // a trailing-space trim, `\s*Job ID` retried from every space
    [first, '\0', 'x'], // a trailing-NUL trim
    [first, '\t', 'Job ID: 0'],
    [last, ' ', '>'], // an XMP start tag left open over a run of spaces
    [first, '<I:DigitalSourceType ', '>'], // many start tags sharing one far `>`
    [first, '<![CDATA[', 'x'],
  ];
}

describe('the readers of file text take time linear in its length', () => {
  for (const reader of READERS) {
    it(reader.name, { timeout: 120_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...reader.prefixes), unit, fc.constantFrom(...SUFFIXES), async (prefix, u, suffix) => {
          const small = reader.prepare(hostile(prefix, u, suffix, SMALL));
          const large = reader.prepare(hostile(prefix, u, suffix, 4 * SMALL));
          const t1 = await minTime(reader, small);
          const bound = RATIO * t1 + SLACK_MS;
          const t4 = await minTime(reader, large, bound);
          expect(t4, `4x the text took ${t4.toFixed(1)} ms, against ${t1.toFixed(1)} ms`).toBeLessThan(bound);
          const atLimit = await minTime(reader, reader.prepare(hostile(prefix, u, suffix, reader.limit)), LIMIT_MS);
          expect(atLimit, `${reader.limit} characters took ${atLimit.toFixed(0)} ms`).toBeLessThan(LIMIT_MS);
        }),
        { numRuns: 8, endOnFailure: true, examples: examplesFor(reader) },
      );
    });
  }
});
