// API key values and record ids. A key is `prv_` + 32 base62 characters + a 6-character
// base62 CRC32 of those 32 characters (CONTRACT "Keys"): the checksum lets a scanner recognise a
// leaked key offline, and lets the daemon refuse a mistyped key without a store lookup.
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

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

/** CRC-32 (IEEE 802.3), the zlib/PNG one, byte by byte; zlib.crc32 only exists from Node 20.15. */
const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, i) => {
  let c = i;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 of the text's UTF-8 bytes. */
export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text)) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
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
  return createHash('sha256').update(value).digest('hex');
}

const DIGEST = /^[0-9a-f]{64}$/;
/** What a miss is compared with: a digest no key has (its preimage is not a well-formed key). */
const ABSENT_DIGEST = sha256Hex('provenance: the digest a key lookup that found nothing is compared with');

/**
 * Whether a presented key's digest is the stored record's, compared with crypto.timingSafeEqual.
 * With no record (`stored` undefined) the same comparison runs against ABSENT_DIGEST and the
 * answer is false, so a hit and a miss do the same work here (docs/SECURITY.md).
 */
export function sameKeyDigest(computed: string, stored: string | undefined): boolean {
  const usable = DIGEST.test(computed) && stored !== undefined && DIGEST.test(stored);
  const same = timingSafeEqual(Buffer.from(usable ? computed : ABSENT_DIGEST), Buffer.from(usable ? stored : ABSENT_DIGEST));
  return usable && same;
}

export const newId = (prefix: 'acct' | 'key' | 'upl') => `${prefix}_${randomBase62(prefix === 'upl' ? 24 : 16)}`;
