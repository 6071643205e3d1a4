// Inline `media` (SPEC: base64 in a JSON body) decoded to the file's bytes. It lives with the
// engine because the daemon runs it on the detection workers: on the main thread, decoding
// 2.5 MB of text per request was the largest piece of work left after the engine itself.
import { INLINE_MAX_BYTES } from '../types.js';
import { copyBytes } from './shared-memory.js';

export type DecodedMedia = { bytes: Buffer } | { tooLarge: true } | { invalid: true };

/**
 * Decodes `media` (a string, or the raw bytes json-body.ts kept), or says why not. Some
 * encoders wrap base64 at 76 columns, so ASCII whitespace is tolerated; standard and URL-safe
 * alphabets are both accepted. No regular expression runs over the (up to 5.6 MB) text on the
 * common path: node's decoder skips any character outside the alphabet, so a decoded length
 * short of what the text's length promises is what reveals a bad character.
 *
 * With `into` (a buffer of at least INLINE_MAX_BYTES) raw bytes are decoded straight into it,
 * 64 KiB of text at a time: each slice becomes a short-lived string in V8's young generation
 * instead of one 2.5 MB string per request. Anything that does not decode to exactly the
 * promised length there (whitespace, a bad character) is decided by the general path below.
 */
export function decodeBase64Media(value: string | Buffer, into?: Buffer): DecodedMedia {
  if (into && typeof value !== 'string') {
    const expected = promisedLength(value.length, (i) => value[i]!);
    if (typeof expected === 'number' && expected <= INLINE_MAX_BYTES && expected <= into.length) {
      let written = 0;
      for (let at = 0; at < value.length; at += DECODE_SLICE) {
        written += into.write(value.toString('latin1', at, Math.min(value.length, at + DECODE_SLICE)), written, 'base64');
      }
      if (written === expected) return { bytes: into.subarray(0, written) };
    }
  }
  // latin1 maps each raw byte to one character, so a non-ASCII byte stays a bad character.
  const text = typeof value === 'string' ? value : value.toString('latin1');
  const clean = hasWhitespace(value) ? text.replace(/[\t\n\r ]+/g, '') : text;
  const expected = promisedLength(clean.length, (i) => clean.charCodeAt(i));
  if (expected === 'invalid') return { invalid: true };
  // Refused from the length alone, before a byte is decoded.
  if (expected > INLINE_MAX_BYTES) return { tooLarge: true };
  const bytes = Buffer.from(clean, 'base64');
  return bytes.length === expected ? { bytes } : { invalid: true };
}

/** Text per slice when decoding into a buffer: a multiple of 4, and small enough for V8's young generation. */
const DECODE_SLICE = 64 * 1024;

/** The decoded length base64 text of this length (and these last characters) must give. */
function promisedLength(length: number, charAt: (i: number) => number): number | 'invalid' {
  let end = length;
  if (end > 0 && charAt(end - 1) === 0x3d) end--; // '='
  if (end > 0 && charAt(end - 1) === 0x3d) end--;
  if ((end < length && length % 4 !== 0) || end % 4 === 1) return 'invalid';
  return Math.floor((end * 3) / 4);
}

/** Native scans (memchr on a Buffer) rather than a regular expression over megabytes. */
function hasWhitespace(value: string | Buffer): boolean {
  if (typeof value === 'string') return value.includes('\n') || value.includes(' ') || value.includes('\r') || value.includes('\t');
  return value.includes(0x0a) || value.includes(0x20) || value.includes(0x0d) || value.includes(0x09);
}

/** What a worker answers for a decode: the length now in the caller's buffer, or why not. */
export type Base64Outcome = { length: number } | { tooLarge: true } | { invalid: true };

/** decodeBase64Media that always leaves the bytes in `into` (at least INLINE_MAX_BYTES long). */
export function decodeBase64Into(text: Buffer, into: Buffer): Base64Outcome {
  const decoded = decodeBase64Media(text, into);
  if (!('bytes' in decoded)) return decoded;
  // The general path (wrapped text) decoded into a buffer of its own.
  if (decoded.bytes.buffer !== into.buffer) copyBytes(into, decoded.bytes, 0);
  return { length: decoded.bytes.length };
}
