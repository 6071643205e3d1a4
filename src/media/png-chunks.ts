// A PNG's header and text chunks (tEXt, zTXt, iTXt), read from bytes that are trusted in nothing.
//
// Image generators keep their records in text chunks: AUTOMATIC1111 `parameters`, ComfyUI
// `prompt` and `workflow`, NovelAI `Comment`, InvokeAI `invokeai_metadata`... Pillow (which most
// of them save with) writes the text chunks before the image data, but the format allows them
// after it too and editors put them there, so the walk goes on past IDAT to IEND: skipping an
// IDAT chunk costs one length read.
//
// Bounds, so that any file answers quickly and with bounded memory:
// - at most MAX_CHUNKS chunks are walked (a chunk is at least 12 bytes, so a 25 MB file has at
//   most ~2 M; each step is a length read);
// - only the keywords the caller asks for are decoded, the first chunk of each only, and at most
//   MAX_TEXT_CHUNKS of them (a file with 100,000 text chunks costs a walk, not 100,000 decodes);
// - a value is decoded up to MAX_TEXT_BYTES; a compressed one is inflated with zlib's
//   maxOutputLength at that cap, and all inflation of a file shares MAX_INFLATED_TOTAL, so a
//   50 MB zTXt bomb allocates at most the cap and then counts as unreadable.
// CRCs are not checked: a reader that rejected a text chunk for its CRC would lose a record that
// Pillow-based tools, which are what wrote it, read fine.
import { zlib } from './lazy-builtins.js';

export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const;
export const MAX_CHUNKS = 2_000_000;
export const MAX_TEXT_CHUNKS = 64;
export const MAX_TEXT_BYTES = 4 * 1024 * 1024;
export const MAX_INFLATED_TOTAL = 16 * 1024 * 1024;
/** A keyword is 1-79 bytes (PNG spec 11.3.4.2); we read a little past that before giving up. */
const MAX_KEYWORD = 80;

export type PngTextChunkType = 'tEXt' | 'zTXt' | 'iTXt';

export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  /** 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA. */
  colorType: number;
}

export interface PngText {
  chunk: PngTextChunkType;
  keyword: string;
  /** The value; undefined when it could not be read (past the caps, bad compressed data). */
  text?: string;
  /** Why the value could not be read, when it could not. */
  problem?: string;
}

export interface PngChunks {
  header?: PngHeader;
  /** The first text chunk of each wanted keyword, in file order. */
  texts: PngText[];
  /** The TIFF block of the first eXIf chunk (PNG 1.5's EXIF), when there is one. */
  exif?: Uint8Array;
  /** True once an IDAT chunk was passed: the records before the image data were all read. */
  sawImageData: boolean;
  /** What stopped the walk early, as a clause ("a chunk's length runs past the end of the file"). */
  damage?: string;
}

const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8');
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

export function isPng(b: Uint8Array): boolean {
  if (b.length < PNG_SIGNATURE.length) return false;
  return PNG_SIGNATURE.every((v, i) => b[i] === v);
}

function chunkType(b: Uint8Array, at: number): string {
  return String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);
}

function u32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

/**
 * tEXt and zTXt are Latin-1 by the spec, but some writers put UTF-8 there; text that is valid
 * UTF-8 with a multi-byte sequence in it is almost never meant as Latin-1, so it is read as UTF-8.
 */
function latin1OrUtf8(b: Uint8Array): string {
  for (let i = 0; i < b.length; i++) {
    if (b[i]! >= 0x80) {
      try {
        return utf8Strict.decode(b);
      } catch {
        return latin1.decode(b);
      }
    }
  }
  return latin1.decode(b);
}

/**
 * A value with the NULs some writers leave at its end (TensorArt) removed. A loop from the end,
 * not `/\0+$/`, which retries from every NUL of a long run that is not at the end (quadratic).
 */
function trimNuls(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0) end--;
  return end === text.length ? text : text.slice(0, end);
}

class Inflater {
  private spent = 0;

  /** `data` inflated, or a problem sentence when it is past the caps or is not zlib data. */
  inflate(data: Uint8Array): { bytes?: Uint8Array; problem?: string } {
    const allowance = Math.min(MAX_TEXT_BYTES, MAX_INFLATED_TOTAL - this.spent);
    if (allowance <= 0) return { problem: 'the file holds more compressed text than is read' };
    try {
      const out = zlib().inflateSync(data, { maxOutputLength: allowance });
      this.spent += out.length;
      return { bytes: out };
    } catch (err) {
      this.spent += allowance; // zlib stopped at the cap or at bad data: count the work done
      const tooLarge = (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError;
      return { problem: tooLarge ? `its compressed text inflates past ${allowance} bytes` : 'its compressed text is not valid zlib data' };
    }
  }
}

/** The keyword (up to the NUL) of a text chunk's data, and where the rest starts. */
function splitKeyword(data: Uint8Array): { keyword: string; rest: number } | undefined {
  const end = Math.min(data.length, MAX_KEYWORD);
  let keyword = String.fromCharCode(data[0] ?? 0); // Latin-1; char by char is faster than a TextDecoder for 1-79 bytes
  for (let i = 1; i < end; i++) {
    if (data[i] === 0) return { keyword, rest: i + 1 };
    keyword += String.fromCharCode(data[i]!);
  }
  return undefined;
}

function readText(type: PngTextChunkType, keyword: string, data: Uint8Array, rest: number, inflater: Inflater): PngText {
  const entry: PngText = { chunk: type, keyword };
  if (type === 'tEXt') {
    entry.text = trimNuls(latin1OrUtf8(data.subarray(rest, rest + MAX_TEXT_BYTES)));
    return entry;
  }
  if (type === 'zTXt') {
    if (data[rest] !== 0) return { ...entry, problem: 'it names an unknown compression method' };
    const out = inflater.inflate(data.subarray(rest + 1));
    if (out.bytes) entry.text = trimNuls(latin1OrUtf8(out.bytes));
    else entry.problem = out.problem;
    return entry;
  }
  // iTXt: compression flag, method, language tag\0, translated keyword\0, UTF-8 text.
  const compressed = data[rest] === 1;
  if (compressed && data[rest + 1] !== 0) return { ...entry, problem: 'it names an unknown compression method' };
  let p = rest + 2;
  for (let nuls = 0; nuls < 2; p++) {
    if (p >= data.length) return { ...entry, problem: 'its header is cut short' };
    if (data[p] === 0) nuls++;
  }
  const body = data.subarray(p);
  if (!compressed) {
    entry.text = trimNuls(utf8.decode(body.subarray(0, MAX_TEXT_BYTES)));
    return entry;
  }
  const out = inflater.inflate(body);
  if (out.bytes) entry.text = trimNuls(utf8.decode(out.bytes));
  else entry.problem = out.problem;
  return entry;
}

/**
 * The header and the wanted text chunks of PNG `b`. Never throws: damage stops the walk and is
 * reported in `damage`, with everything read before it kept. Undefined when `b` is not a PNG.
 */
export function readPngChunks(b: Uint8Array, wanted: (keyword: string) => boolean): PngChunks | undefined {
  if (!isPng(b)) return undefined;
  const out: PngChunks = { texts: [], sawImageData: false };
  const inflater = new Inflater();
  const decoded = new Set<string>();
  let p = PNG_SIGNATURE.length;
  for (let n = 0; ; n++) {
    if (n >= MAX_CHUNKS) {
      out.damage = `it has more than ${MAX_CHUNKS.toLocaleString('en-US')} chunks`;
      break;
    }
    if (p === b.length) {
      out.damage = 'it ends without an IEND chunk';
      break;
    }
    if (p + 12 > b.length) {
      out.damage = 'its last chunk is cut short';
      break;
    }
    const length = u32(b, p);
    const type = chunkType(b, p + 4);
    if (length > 0x7fffffff || p + 12 + length > b.length) {
      out.damage = `its ${JSON.stringify(type)} chunk's length runs past the end of the file`;
      break;
    }
    const data = b.subarray(p + 8, p + 8 + length);
    if (n === 0) {
      if (type !== 'IHDR' || length < 13) {
        out.damage = 'it does not start with an IHDR chunk';
        break;
      }
      out.header = { width: u32(data, 0), height: u32(data, 4), bitDepth: data[8]!, colorType: data[9]! };
    } else if (type === 'IEND') {
      break;
    } else if (type === 'IDAT') {
      out.sawImageData = true;
    } else if (type === 'eXIf') {
      out.exif ??= data;
    } else if (type === 'tEXt' || type === 'zTXt' || type === 'iTXt') {
      const split = splitKeyword(data);
      if (split && !decoded.has(split.keyword) && decoded.size < MAX_TEXT_CHUNKS && wanted(split.keyword)) {
        decoded.add(split.keyword);
        out.texts.push(readText(type, split.keyword, data, split.rest, inflater));
      }
    }
    p += 12 + length;
  }
  return out;
}

/** The value of the first wanted text chunk named `keyword`, when it was readable. */
export function pngText(chunks: PngChunks, keyword: string): PngText | undefined {
  return chunks.texts.find((t) => t.keyword === keyword);
}

/** True when the PNG's pixels carry an alpha channel (grey + alpha, or RGBA). */
export function pngHasAlpha(header: PngHeader | undefined): boolean {
  return header?.colorType === 4 || header?.colorType === 6;
}
