// engine/lmdb-file.ts: the scan cache's LMDB data file read without LMDB. Real files written by
// lmdb (big values on overflow pages, deletions that leave free-page lists, many transactions)
// pass the whole-file check; each kind of damage LMDB would take on trust is named instead.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataFileHead, validateDataFile, verifyDataFile, type DataFileHead } from '../src/engine/lmdb-file.js';
import { layoutOf, type Layout } from './helpers/lmdb-layout.js';

let dir: string;
let sound: string;
let head: DataFileHead;

/** A copy of the sound file with `change` applied to its bytes. */
function damaged(name: string, change: (bytes: Buffer, layout: Layout) => void): string {
  const file = join(dir, `${name}.mdb`);
  copyFileSync(sound, file);
  const bytes = readFileSync(file);
  change(bytes, layoutOf(sound));
  writeFileSync(file, bytes);
  return file;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-lmdb-file-'));
  sound = join(dir, 'sound.mdb');
  // Like the scan cache: binary keys of 32 bytes; values of a few hundred bytes to several pages.
  const db = open<Buffer, Buffer>({ path: sound, encoding: 'binary', keyEncoding: 'binary', commitDelay: 0 });
  const key = (i: number) => Buffer.concat([Buffer.alloc(16, 7), Buffer.from(i.toString(16).padStart(32, '0'), 'hex')]);
  const value = (i: number) => Buffer.alloc(i % 10 === 0 ? 9000 : 300 + (i % 7) * 200, i % 251);
  // Several transactions, then deletions and rewrites, so that the free tree holds page lists
  // (single pages and runs) from many of them.
  for (let round = 0; round < 6; round++) {
    await db.transaction(() => {
      for (let i = round * 200; i < (round + 1) * 200; i++) void db.put(key(i), value(i));
    });
  }
  await db.transaction(() => {
    for (let i = 0; i < 1200; i += 3) void db.remove(key(i));
  });
  await db.transaction(() => {
    for (let i = 1; i < 600; i += 5) void db.put(key(i), value(i + 3));
  });
  await db.close();
  head = dataFileHead(sound) as DataFileHead;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a sound file', () => {
  it('passes, its header read without LMDB', () => {
    expect(typeof head).toBe('object');
    expect(head.main.entries).toBe(840); // 1,200 - 400 removed + 40 of them put back
    expect(head.main.depth).toBeGreaterThanOrEqual(2);
    expect(head.main.overflowPages).toBeGreaterThan(0);
    expect(head.free.root).not.toBe(0xffffffffffffffffn);
    expect(validateDataFile(sound)).toBeUndefined();
    expect(verifyDataFile(sound)).toBeUndefined();
  });

  it('a missing or empty file is no database yet, not a damaged one', () => {
    const empty = join(dir, 'empty.mdb');
    writeFileSync(empty, '');
    expect(dataFileHead(empty)).toBeNull();
    expect(dataFileHead(join(dir, 'missing.mdb'))).toBeNull();
    expect(verifyDataFile(empty)).toBeUndefined();
    expect(verifyDataFile(join(dir, 'missing.mdb'))).toBeUndefined();
  });
});

describe('a file that ends before its last page in use', () => {
  it('is sound when that page is free (LMDB took it for a commit and freed it unwritten), and LMDB goes on using it', async () => {
    // What a scan that pruned entries left once (CI): the header's last page in use one past the
    // end of the file, that page listed free. Made here from the sound file: the newest meta's last
    // page moved one on, and a free list's first (highest) page replaced by that page.
    const file = damaged('free-past-end', (b, l) => {
      const at = l.freeRoot! * l.pageSize;
      expect(b.readUInt16LE(at + 18)).toBe(2); // the free tree is one leaf
      const count = b.readUInt16LE(at + 20) >> 1;
      const lists = Array.from({ length: count }, (_, i) => at + 24 + b.readUInt16LE(at + 24 + 2 * i))
        .filter((node) => b.readUInt16LE(node + 4) === 0)
        .map((node) => node + 8 + b.readUInt16LE(node + 6));
      const list = lists.find((data) => Number(b.readBigInt64LE(data)) > 0 && Number(b.readBigInt64LE(data + 8)) > 0)!;
      const newest = head.txnid === b.readBigUInt64LE(0x98) ? 0 : 1;
      const past = BigInt(l.head.lastPage + 1);
      b.writeBigUInt64LE(past, newest * l.pageSize + 0x90);
      b.writeBigInt64LE(past, list + 8);
    });
    const changed = dataFileHead(file) as DataFileHead;
    expect(typeof changed).toBe('object');
    expect((changed.lastPage + 1) * changed.pageSize).toBeGreaterThan(changed.size);
    expect(validateDataFile(file)).toBeUndefined();
    expect(verifyDataFile(file)).toBeUndefined();
    // LMDB writes the page before it reads it: new entries over several commits, read back.
    const db = open<Buffer, Buffer>({ path: file, encoding: 'binary', keyEncoding: 'binary', commitDelay: 0 });
    const key = (i: number) => Buffer.from(`after-${String(i).padStart(6, '0')}`);
    for (let round = 0; round < 4; round++) {
      await db.transaction(() => {
        for (let i = round * 100; i < (round + 1) * 100; i++) void db.put(key(i), Buffer.alloc(700, i % 251));
      });
    }
    await db.close();
    expect(verifyDataFile(file)).toBeUndefined();
    const again = open<Buffer, Buffer>({ path: file, encoding: 'binary', keyEncoding: 'binary', readOnly: true });
    try {
      for (let i = 0; i < 400; i++) expect(again.get(key(i))?.equals(Buffer.alloc(700, i % 251))).toBe(true);
      expect(again.getCount()).toBe(840 + 400);
    } finally {
      await again.close();
    }
  });

  it('is cut short when a root lies past the end', () => {
    const file = damaged('root-past-end', () => {});
    const { pageSize, main } = head;
    writeFileSync(file, readFileSync(file).subarray(0, Number(main.root) * pageSize));
    expect(validateDataFile(file)).toBe('the file is cut short');
  });
});

describe('damage the header check lets through, the whole-file check finds', () => {
  const zero = (bytes: Buffer, page: number, pageSize: number) => bytes.fill(0, page * pageSize, (page + 1) * pageSize);
  const cases: [string, (bytes: Buffer, l: Layout) => void, RegExp][] = [
    ['the main root zeroed', (b, l) => zero(b, l.mainRoot, l.pageSize), /main tree page \d+ is damaged/],
    ['a leaf page zeroed', (b, l) => zero(b, l.leaf[3]!, l.pageSize), /main tree page \d+ is damaged/],
    ['a branch page made a leaf', (b, l) => b.writeUInt16LE(2, l.branch.at(-1)! * l.pageSize + 18), /not a branch page/],
    ['a node pointer out of its page', (b, l) => b.writeUInt16LE(l.pageSize - 4, l.leaf[5]! * l.pageSize + 24), /a node outside the page/],
    ['a node\'s key size past the page', (b, l) => {
      const at = l.leaf[6]! * l.pageSize;
      b.writeUInt16LE(0xfff0, at + 24 + b.readUInt16LE(at + 24) + 6);
    }, /a key outside the page/],
    ['a value\'s size past the page', (b, l) => {
      const at = l.leaf[7]! * l.pageSize;
      const node = at + 24 + b.readUInt16LE(at + 24);
      if (b.readUInt16LE(node + 4) !== 0) throw new Error('expected a small value first');
      b.writeUInt16LE(0x7fff, node);
    }, /a value outside the page|a big value's pages/],
    ['a value\'s size off by eight, still inside its page', (b, l) => {
      // LMDB would move the page's nodes by the wrong size at its next write there.
      const at = l.leaf[10]! * l.pageSize;
      const node = at + 24 + b.readUInt16LE(at + 24);
      if (b.readUInt16LE(node + 4) !== 0) throw new Error('expected a small value first');
      b.writeUInt16LE(b.readUInt16LE(node) - 8, node);
    }, /its nodes overlap or leave gaps/],
    ['a child pointing at a page past the end', (b, l) => {
      const at = l.mainRoot * l.pageSize;
      b.writeUInt16LE(0xfff0, at + 24 + b.readUInt16LE(at + 24 + 2) + 2);
    }, /out of range/],
    ['two keys swapped', (b, l) => {
      const at = l.leaf[8]! * l.pageSize;
      const first = b.readUInt16LE(at + 24);
      b.writeUInt16LE(b.readUInt16LE(at + 26), at + 24);
      b.writeUInt16LE(first, at + 26);
    }, /keys out of order/],
    ['an overflow page\'s header zeroed', (b, l) => b.fill(0, l.overflow[2]! * l.pageSize, l.overflow[2]! * l.pageSize + 24), /overflow page \d+ is damaged/],
    ['a free-tree page zeroed', (b, l) => zero(b, l.freeRoot!, l.pageSize), /free tree page \d+ is damaged/],
    ['a page another txn wrote later', (b, l) => b.writeBigUInt64LE(head.txnid + 5n, l.leaf[9]! * l.pageSize + 8), /a later transaction/],
    ['a leaf counted once too many in the header', (b) => {
      for (const m of [0, 1]) b.writeBigUInt64LE(b.readBigUInt64LE(m * head.pageSize + 0x70) + 1n, m * head.pageSize + 0x70);
    }, /does not match its header/],
  ];
  for (const [what, change, reason] of cases) {
    it(what, () => {
      const file = damaged(what.replace(/\W+/g, '-'), change);
      expect(validateDataFile(file)).toBeUndefined();
      expect(verifyDataFile(file)).toMatch(reason);
    });
  }

  it('a free page that is in use (LMDB would write over it)', () => {
    // The free tree's first record lists a page of the main tree: rewrite its first entry.
    const file = damaged('free-in-use', (b, l) => {
      const at = l.freeRoot! * l.pageSize;
      const node = at + 24 + b.readUInt16LE(at + 24);
      const inNode = node + 8 + b.readUInt16LE(node + 6);
      // The list is in the node, or (a long one) on overflow pages after their header.
      const data = b.readUInt16LE(node + 4) === 0 ? inNode : Number(b.readBigUInt64LE(inNode)) * l.pageSize + 24;
      expect(Number(b.readBigInt64LE(data))).toBeGreaterThan(0);
      const entry = Number(b.readBigInt64LE(data + 8));
      b.writeBigInt64LE(BigInt(l.leaf[0]!), entry < 0 ? data + 16 : data + 8);
    });
    expect(verifyDataFile(file)).toMatch(/both free and in use/);
  });

  it('the main tree flagged as sorted duplicates in the header', () => {
    // LMDB would read every leaf node as a sub-database ("Invalid dupdata flag").
    const file = damaged('dupsort', (b) => {
      for (const m of [0, 1]) b.writeUInt16LE(0x04, m * head.pageSize + 0x64);
    });
    expect(validateDataFile(file)).toBe('its header is damaged');
  });
});

describe('a data file written by the scan cache', () => {
  it('passes, with its free lists, after entries were pruned', async () => {
    const { ScanCache, scanScope } = await import('../src/engine/scan-cache.js');
    const cacheDir = join(dir, 'cache');
    mkdirSync(join(dir, 'files'));
    const files = Array.from({ length: 120 }, (_, i) => {
      const path = join(dir, 'files', `f${i}.png`);
      writeFileSync(path, `file ${i}`);
      return path;
    });
    const result = (i: number) => ({ id: 'chk_x', media: { type: 'image/png', bytes: 3, sha256: String(i).padStart(64, '0') }, matches: [], checks_run: [], duration_ms: 1 }) as never;
    const later = Date.now() + 10_000;
    let cache = await ScanCache.open({ dir: cacheDir, scope: scanScope({ engine: 'test', checks: [] }), startedAt: later, warn: (m) => expect.fail(m) });
    for (const [i, f] of files.entries()) cache.put(cache.identify(f)!, { result: result(i) });
    await cache.close();
    const full = dataFileHead(join(cacheDir, 'scan.mdb')) as DataFileHead;
    // A bound of half the data prunes about half the entries, and frees their pages.
    cache = await ScanCache.open({ dir: cacheDir, scope: scanScope({ engine: 'test', checks: [] }), startedAt: later, maxBytes: ((full.main.leafPages + full.main.branchPages) * full.pageSize) / 2, warn: (m) => expect.fail(m) });
    await cache.close();
    const pruned = dataFileHead(join(cacheDir, 'scan.mdb')) as DataFileHead;
    expect(pruned.main.entries).toBeLessThan(120);
    expect(pruned.free.entries).toBeGreaterThan(0);
    expect(verifyDataFile(join(cacheDir, 'scan.mdb'))).toBeUndefined();
  });
});
