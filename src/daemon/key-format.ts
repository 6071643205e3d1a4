// API key values and record ids. A key is `prv_` + 32 base62 characters + a 6-character
// base62 CRC32 of those 32 characters (CONTRACT "Keys"): the checksum lets a scanner recognise a
// leaked key offline, and lets the daemon refuse a mistyped key without a store lookup.
import { createHash, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIX = 'prv_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^prv_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

/** Uniform base62 (randomInt rejects biased draws, unlike `byte % 62`). */
export function randomBase62(length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += BASE62[randomInt(62)];
  return s;
}

function toBase62(n: number, width: number): string {
  let s = '';
  do {
    s = BASE62[n % 62] + s;
    n = Math.floor(n / 62);
  } while (n > 0);
  return s.padStart(width, '0');
}

let crcTable: Uint32Array | undefined;
/** CRC-32 (IEEE 802.3), the zlib/PNG one; zlib.crc32 only exists from Node 20.15. */
export function crc32(text: string): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let i = 0; i < 256; i++) {
      let c = i;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[i] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export function keyChecksum(random: string): string {
  return toBase62(crc32(random), CHECKSUM_LENGTH);
}

export function newKeyValue(): string {
  const random = randomBase62(RANDOM_LENGTH);
  return `${KEY_PREFIX}${random}${keyChecksum(random)}`;
}

/** true when the value has the key format and its checksum matches. */
export function isWellFormedKey(value: string): boolean {
  const m = KEY_PATTERN.exec(value);
  return m !== null && keyChecksum(m[1]!) === m[2];
}

/** Keys and sign-in tokens are stored only as this digest. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export const newId = (prefix: 'acct' | 'key' | 'upl') => `${prefix}_${randomBase62(prefix === 'upl' ? 24 : 16)}`;
