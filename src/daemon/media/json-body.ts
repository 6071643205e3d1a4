// The JSON body of POST /v1/detect, parsed without turning a 5 MB base64 `media` value into a
// JavaScript string twice (UTF-8 decode, then JSON.parse) on the thread that serves every
// request. A small scanner finds the top-level `media` string in the raw bytes (jumping over
// strings with a native indexOf), hands its bytes on as they are, and JSON.parse reads the
// rest. Anything unusual (escapes or raw line breaks in that string, a repeated key, a short
// value) takes the plain JSON.parse path, so the result is always what JSON.parse would give.

/** The raw bytes of a base64 `media` value, between its quotes. */
export class RawBase64 {
  constructor(readonly bytes: Buffer) {}
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/**
 * Raw line breaks and tabs: JSON allows no raw control character inside a string, but the
 * base64 decoder skips these as wrapping, so a value holding them (`"$(base64 photo.jpg)"` in a
 * shell) would be accepted where JSON.parse refuses it. Other control bytes are not base64, and
 * the decoder refuses them itself.
 */
const RAW_WRAPPING = [0x0a, 0x0d, 0x09];
/** Below this a value is parsed the ordinary way: the shortcut only pays for large files. */
const SHORTCUT_MIN = 64 * 1024;

export function parseDetectJson(body: Buffer): unknown {
  const span = findMediaString(body);
  if (!span) return JSON.parse(body.toString('utf8'));
  const rest = `${body.toString('utf8', 0, span.open)}""${body.toString('utf8', span.close + 1)}`;
  const parsed = JSON.parse(rest) as Record<string, unknown>;
  parsed.media = new RawBase64(body.subarray(span.open + 1, span.close));
  return parsed;
}

/** Index of the quote that closes the string opened at `open`, or -1. */
function stringEnd(body: Buffer, open: number): number {
  let from = open + 1;
  for (;;) {
    const q = body.indexOf(QUOTE, from);
    if (q < 0) return -1;
    let backslashes = 0;
    // The opening quote at `open` ends this run, so it never reaches before the string.
    for (let i = q - 1; body[i] === BACKSLASH; i--) backslashes++;
    if (backslashes % 2 === 0) return q;
    from = q + 1;
  }
}

function findMediaString(body: Buffer): { open: number; close: number } | undefined {
  let depth = 0;
  // A string at depth 1 that follows `{` or `,` is a key; any other string there is taken for
  // the last key's value. That holds in every body that is JSON; in one that is not, the rest
  // keeps every token but the value's bytes, so JSON.parse refuses it all the same. Set at any
  // depth, the flag is read only at depth 1, where a nested value is always followed by `,` or `}`.
  let expectKey = false;
  let lastKey: string | undefined;
  let found: { open: number; close: number } | undefined;
  let mediaKeys = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === QUOTE) {
      const end = stringEnd(body, i);
      if (end < 0) return undefined;
      if (depth === 1 && expectKey) {
        // Keys are short; JSON.parse decodes any escapes in them (so "med\u0069a" is media).
        lastKey = JSON.parse(body.toString('utf8', i, end + 1)) as string;
        if (lastKey === 'media') mediaKeys++;
        expectKey = false;
      } else if (depth === 1 && lastKey === 'media' && end - i > SHORTCUT_MIN) {
        const escape = body.indexOf(BACKSLASH, i + 1);
        if (escape >= 0 && escape < end) return undefined;
        // Native scans (memchr), a fraction of a millisecond over megabytes.
        for (const c of RAW_WRAPPING) {
          const raw = body.indexOf(c, i + 1);
          if (raw >= 0 && raw < end) return undefined;
        }
        found = { open: i, close: end };
      }
      i = end;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      depth++;
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x2c) {
      expectKey = true;
    }
  }
  return mediaKeys === 1 ? found : undefined;
}
