// Key format pinned to fixed values (issue 18, "Tests that pin behaviour"): a checksum computed
// independently (Python's zlib.crc32, then base62 by hand) so a broken CRC or base62 loop cannot
// agree with itself; the pattern anchored at both ends; and the auth path refusing a wrong
// checksum before any store lookup, over real HTTP on 127.0.0.1. And the final comparison of a
// key's digest: constant-time, made on a hit and on a miss alike (checked by what runs, not by
// timing).
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as keyFormat from '../../src/daemon/accounts/key-format.js';
import { crc32, isWellFormedKey, KEY_PREFIX, keyChecksum, newId, randomBase62, sameKeyDigest, sha256Hex } from '../../src/daemon/accounts/key-format.js';
import { b64, expectError, http, listen, makeApp, SUITE_DIST, type TestApp } from './helpers.js';
import { tinyJpeg } from '../fixtures/make.js';

// python3 -c "import zlib; print(zlib.crc32(b'0'*32))" and so on; base62 with 0-9A-Za-z.
const KNOWN: [random: string, crc: number, checksum: string][] = [
  ['00000000000000000000000000000000', 0xa0f292d0, '2wjyrI'],
  ['abcdefghijklmnopqrstuvwxyzABCDEF', 0x6154d22a, '1mVgZW'],
  ['Zz9Zz9Zz9Zz9Zz9Zz9Zz9Zz9Zz9Zz9Q1', 0x2ba00db0, '0nX16m'],
  ['provenanceTestKey000000000000001', 0x9985afb6, '2oJGoI'],
];

describe('key checksum, against values computed elsewhere', () => {
  it.each(KNOWN)('%s: CRC32 %i, checksum %s', (random, crc, checksum) => {
    expect(crc32(random)).toBe(crc);
    expect(keyChecksum(random)).toBe(checksum);
    expect(isWellFormedKey(`prv_${random}${checksum}`)).toBe(true);
  });

  it('CRC32 agrees with zlib on other strings (empty, one byte, non-ASCII)', () => {
    for (const s of ['', 'a', '123456789', 'prv_', 'é€😀', randomBase62(32), randomBase62(32)]) {
      expect(crc32(s), s).toBe(zlibCrc32(Buffer.from(s, 'utf8')));
    }
    expect(crc32('123456789')).toBe(0xcbf43926); // the CRC-32 check value
  });

  it('base62 checksums are padded to 6 characters and use the full alphabet', () => {
    // CRC 0 and small CRCs: the loop must still produce a digit and pad with zeros.
    const small = Array.from({ length: 5000 }, () => randomBase62(32)).map(keyChecksum);
    for (const c of small) expect(c).toMatch(/^[0-9A-Za-z]{6}$/);
    expect(new Set(small.join('')).size).toBe(62);
  });

  it('randomBase62 gives the asked length over the whole alphabet', () => {
    expect(randomBase62(0)).toBe('');
    const s = randomBase62(6200);
    expect(s).toMatch(/^[0-9A-Za-z]{6200}$/);
    expect(new Set(s).size).toBe(62);
  });
});

describe('record ids', () => {
  it('acct_ and key_ ids have 16 base62 characters, upl_ ids 24 (uploads are named by id alone)', () => {
    expect(newId('acct')).toMatch(/^acct_[0-9A-Za-z]{16}$/);
    expect(newId('key')).toMatch(/^key_[0-9A-Za-z]{16}$/);
    expect(newId('upl')).toMatch(/^upl_[0-9A-Za-z]{24}$/);
  });

  it('sha256Hex is the SHA-256 of the UTF-8 bytes, in hex', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('é')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c'); // python3: hashlib.sha256('é'.encode()).hexdigest()
  });
});

describe('the key pattern is anchored at both ends', () => {
  const [random, , checksum] = KNOWN[1]!;
  const key = `${KEY_PREFIX}${random}${checksum}`;
  it.each([
    ['a prefix before prv_', `x${key}`],
    ['a space before', ` ${key}`],
    ['a character after', `${key}A`],
    ['a newline after', `${key}\n`],
    ['a key inside other text', `Bearer ${key} thanks`],
    ['two keys back to back', `${key}${key}`],
    ['another prefix', `sk_${random}${checksum}`],
    ['one character short', key.slice(0, -1)],
    ['a non-base62 character', `${KEY_PREFIX}${random.slice(0, -1)}-${checksum}`],
    ['the checksum of another random part', `${KEY_PREFIX}${random}${KNOWN[0]![2]}`],
    ['a checksum with one character changed', `${key.slice(0, -1)}${key.at(-1) === 'W' ? 'X' : 'W'}`],
  ])('refuses %s', (_name, value) => {
    expect(isWellFormedKey(value)).toBe(false);
  });
});

describe('authentication: a wrong checksum is refused before any store lookup', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await makeApp();
    base = await listen(t.app);
  });
  afterAll(() => t.close());

  it('401 "malformed" without calling Accounts.authenticate; a well-formed unknown key does reach it', async () => {
    const { key } = await t.account('checksum');
    const lookups = vi.spyOn(t.app.services.accounts, 'authenticate');
    try {
      // The real key with its last checksum character changed.
      const wrong = `${key.slice(0, -1)}${key.at(-1) === 'A' ? 'B' : 'A'}`;
      const r = await http(base, 'POST', '/v1/detect', { key: wrong, json: { media: b64(tinyJpeg()) } });
      expect(expectError(r, 401, 'authentication_error').message).toMatch(/malformed/);
      expect(lookups).not.toHaveBeenCalled();

      const [random, , checksum] = KNOWN[3]!;
      const unknown = await http(base, 'POST', '/v1/detect', { key: `prv_${random}${checksum}`, json: { media: b64(tinyJpeg()) } });
      expect(expectError(unknown, 401, 'authentication_error').message).toMatch(/unknown or has been revoked/);
      expect(lookups).toHaveBeenCalledTimes(1);

      expect((await http(base, 'POST', '/v1/detect', { key, json: { media: b64(tinyJpeg()) } })).status).toBe(200);
      expect(lookups).toHaveBeenCalledTimes(2);
    } finally {
      lookups.mockRestore();
    }
  });

  it('Accounts.authenticate itself refuses a value that fails its checksum, even if its hash were stored', async () => {
    const { key } = await t.account('seam');
    const accounts = t.app.services.accounts;
    expect((await accounts.authenticate(key))?.key.sha256).toBe(sha256Hex(key));
    expect(await accounts.authenticate(`${key} `)).toBeUndefined();
    // Plant a record under the hash of a malformed value: the checksum gate still says no.
    const store = t.app.services.store;
    const record = (await store.keyByHash(sha256Hex(key)))!;
    const malformed = 'prv_short';
    await store.insertKey({ ...record, id: 'key_planted', sha256: sha256Hex(malformed) });
    expect(await store.keyByHash(sha256Hex(malformed))).toBeDefined();
    expect(await accounts.authenticate(malformed)).toBeUndefined();
  });
});

describe("comparing a key's digest: constant-time, on a hit and on a miss alike", () => {
  const digest = sha256Hex(`${KEY_PREFIX}${KNOWN[2]![0]}${KNOWN[2]![2]}`);
  const other = sha256Hex(`${KEY_PREFIX}${KNOWN[3]![0]}${KNOWN[3]![2]}`);

  it('sameKeyDigest answers right: equal digests only; no record, or a record that is not a digest, never matches', () => {
    expect(sameKeyDigest(digest, digest)).toBe(true);
    expect(sameKeyDigest(digest, other)).toBe(false);
    // One hex digit apart, at the start and at the end.
    expect(sameKeyDigest(digest, `${digest[0] === '0' ? '1' : '0'}${digest.slice(1)}`)).toBe(false);
    expect(sameKeyDigest(digest, `${digest.slice(0, -1)}${digest.at(-1) === '0' ? '1' : '0'}`)).toBe(false);
    expect(sameKeyDigest(digest, undefined)).toBe(false);
    // Not 64 lower-case hex digits: refused without throwing (timingSafeEqual throws on unequal lengths).
    for (const bad of ['', digest.slice(1), `${digest}0`, `x${digest}`, digest.toUpperCase(), `${digest.slice(0, -1)}g`]) {
      expect(sameKeyDigest(digest, bad), bad).toBe(false);
      expect(sameKeyDigest(bad, digest), bad).toBe(false);
    }
    expect(sameKeyDigest('', '')).toBe(false);
  });

  it('makes exactly one timingSafeEqual of 64 bytes whatever it is given', () => {
    const compare = vi.spyOn(crypto, 'timingSafeEqual');
    syncBuiltinESMExports();
    try {
      for (const [a, b] of [[digest, digest], [digest, other], [digest, undefined], [digest, 'short'], ['short', digest]] as const) {
        compare.mockClear();
        sameKeyDigest(a, b);
        expect(compare, `${a} ${b}`).toHaveBeenCalledTimes(1);
        const [x, y] = compare.mock.calls[0]! as [Buffer, Buffer];
        expect([x.length, y.length]).toEqual([64, 64]);
      }
    } finally {
      compare.mockRestore();
      syncBuiltinESMExports();
    }
  });

  describe('Accounts.authenticate', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await makeApp();
    });
    afterAll(() => t.close());

    it('compares the digest with the record found, and with nothing (a fixed digest) when none is: one constant-time comparison either way', async () => {
      const { key } = await t.account('compare');
      const accounts = t.app.services.accounts;
      const helper = vi.spyOn(keyFormat, 'sameKeyDigest');
      const compare = vi.spyOn(crypto, 'timingSafeEqual');
      syncBuiltinESMExports();
      try {
        expect((await accounts.authenticate(key))?.key.sha256).toBe(sha256Hex(key));
        // The helper is spied on in src/; the built daemon (PROVENANCE_SUITE_DIST) carries its
        // own, bundled: there, the count of node:crypto's comparisons below is what is checked.
        const viaHelper = !SUITE_DIST;
        if (viaHelper) expect(helper).toHaveBeenCalledTimes(1);
        if (viaHelper) expect(helper).toHaveBeenLastCalledWith(sha256Hex(key), sha256Hex(key));
        const onHit = compare.mock.calls.length;

        helper.mockClear();
        compare.mockClear();
        const [random, , checksum] = KNOWN[0]!;
        const unknown = `${KEY_PREFIX}${random}${checksum}`;
        expect(await accounts.authenticate(unknown)).toBeUndefined();
        if (viaHelper) expect(helper).toHaveBeenCalledTimes(1);
        if (viaHelper) expect(helper).toHaveBeenLastCalledWith(sha256Hex(unknown), undefined);
        expect(compare.mock.calls.length).toBe(onHit);
        expect(onHit).toBe(1);
      } finally {
        helper.mockRestore();
        compare.mockRestore();
        syncBuiltinESMExports();
      }
    });
  });
});
