// The scan cache's LMDB data file read without LMDB. LMDB trusts every page it maps: a damaged
// page ends the process (SIGSEGV, SIGBUS, or an assertion's abort(), none of which JavaScript can
// catch), or is written back into the tree and breaks it further. So the cache reads the file's
// header here before every open, and checks the whole file (verifyDataFile) before it trusts one
// that changed since a scan last closed it (scan-cache.ts, the seal).
//
// The layout is that of lmdb-js's LMDB (mdb.master3, 64-bit page numbers): each page starts with
// a 24-byte header; pages 0 and 1 are the meta pages (the newer transaction wins); the main tree
// and the free-page tree are B-trees of branch, leaf and overflow pages.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const HEADER_BYTES = 24;
// Page header: page number, transaction, (pad), flags, then lower/upper bounds of the free space
// (or, on an overflow page, the number of pages it spans).
const PGNO_AT = 0;
const TXNID_AT = 8;
const FLAGS_AT = 18;
const LOWER_AT = 20;
const UPPER_AT = 22;
const PAGES_AT = 20;
const P_BRANCH = 0x01;
const P_LEAF = 0x02;
const P_OVERFLOW = 0x04;
const P_META = 0x08;
// Meta record (after the page header): magic, version, fixed address, map size, the free and main
// trees' records, the last page in use, the transaction that wrote it.
const MAGIC_AT = 0x18;
const VERSION_AT = 0x1c;
const FREE_DB_AT = 0x30;
const MAIN_DB_AT = 0x60;
const LAST_PAGE_AT = 0x90;
const META_TXNID_AT = 0x98;
const META_BYTES = 0xa8;
const MDB_MAGIC = 0xbeefc0de;
const MDB_DATA_VERSION = 2;
const NO_PAGE = 0xffffffffffffffffn;
// A tree's record: page size (free tree) or 0, flags, depth, page counts, entries, root.
const DB_FLAGS = 4;
const DB_DEPTH = 6;
const DB_BRANCH = 8;
const DB_LEAF = 16;
const DB_OVERFLOW = 24;
const DB_ENTRIES = 32;
const DB_ROOT = 40;
/** The free tree's keys are transaction ids (MDB_INTEGERKEY). */
const MDB_INTEGERKEY = 0x08;
// A node: data size (leaf) or child page (branch) in two 16-bit words, flags (a branch's third
// word of the page number), key size; then the key and the data.
const NODE_BYTES = 8;
const F_BIGDATA = 0x01;
/** A big value's node holds where it is: first page, transaction, page count. */
const OVERFLOW_REF_BYTES = 24;
/** Deeper than any tree of a 64-bit file could be; a damaged depth is caught before the walk. */
const MAX_DEPTH = 64;

interface TreeRecord {
  flags: number;
  depth: number;
  branchPages: number;
  leafPages: number;
  overflowPages: number;
  entries: number;
  root: bigint;
}

/** What the header of a sound data file says. */
export interface DataFileHead {
  pageSize: number;
  /** The transaction of the newer meta page: every commit moves it on. */
  txnid: bigint;
  lastPage: number;
  size: number;
  main: TreeRecord;
  free: TreeRecord;
}

function treeRecord(meta: Buffer, at: number): TreeRecord {
  return {
    flags: meta.readUInt16LE(at + DB_FLAGS),
    depth: meta.readUInt16LE(at + DB_DEPTH),
    branchPages: Number(meta.readBigUInt64LE(at + DB_BRANCH)),
    leafPages: Number(meta.readBigUInt64LE(at + DB_LEAF)),
    overflowPages: Number(meta.readBigUInt64LE(at + DB_OVERFLOW)),
    entries: Number(meta.readBigUInt64LE(at + DB_ENTRIES)),
    root: meta.readBigUInt64LE(at + DB_ROOT),
  };
}

/**
 * Reads and checks the header (both meta pages) of an open data file: the sound head, or why the
 * file cannot be opened safely. An empty file is `null`: LMDB makes a new database in it.
 */
function readHead(fd: number): DataFileHead | null | string {
  const size = fstatSync(fd).size;
  if (size === 0) return null;
  const head = Buffer.alloc(0x100);
  if (readSync(fd, head, 0, head.length, 0) < head.length) return 'the file is cut short';
  // The page size is kept in the free tree's record (md_pad) of the first meta page.
  const pageSize = head.readUInt32LE(FREE_DB_AT);
  if (pageSize < 512 || pageSize > 65536 || pageSize & (pageSize - 1)) return 'its header is damaged';
  if (size < 2 * pageSize) return 'the file is cut short';
  let newest: DataFileHead | undefined;
  for (let n = 0; n < 2; n++) {
    const meta = Buffer.alloc(META_BYTES);
    readSync(fd, meta, 0, meta.length, n * pageSize);
    const isMeta = (meta.readUInt16LE(FLAGS_AT) & P_META) !== 0 && meta.readUInt32LE(MAGIC_AT) === MDB_MAGIC && meta.readUInt32LE(VERSION_AT) === MDB_DATA_VERSION;
    if (!isMeta || meta.readBigUInt64LE(PGNO_AT) !== BigInt(n)) return 'its header is damaged';
    const lastPage = meta.readBigUInt64LE(LAST_PAGE_AT);
    const main = treeRecord(meta, MAIN_DB_AT);
    const free = treeRecord(meta, FREE_DB_AT);
    for (const root of [main.root, free.root]) {
      if (root !== NO_PAGE && (root < 2n || root > lastPage)) return 'its header is damaged';
    }
    // The main tree is the cache's one plain database; the free tree is keyed by transaction.
    // Other flags (sorted duplicates, say) would make LMDB read its pages as what they are not.
    if (main.flags !== 0 || (free.flags & MDB_INTEGERKEY) === 0) return 'its header is damaged';
    if (main.depth > MAX_DEPTH || free.depth > MAX_DEPTH) return 'its header is damaged';
    const txnid = meta.readBigUInt64LE(META_TXNID_AT);
    if (!newest || txnid > newest.txnid) newest = { pageSize, txnid, lastPage: Number(lastPage), size, main, free };
  }
  // The roots are read first; every other page a tree points to, the whole-file check reads. The
  // last page in use may lie past the end of the file: LMDB counts a page it took for a commit
  // and freed again before writing it (a "loose" page, listed free), so the file need not reach
  // it. Free pages are written before LMDB reads them, never read as they are.
  const pages = Math.floor(size / pageSize);
  for (const root of [newest!.main.root, newest!.free.root]) {
    if (root !== NO_PAGE && root >= BigInt(pages)) return 'the file is cut short';
  }
  return newest!;
}

function withFile<T>(file: string, ifMissing: T, use: (fd: number) => T): T | string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ifMissing;
    return (err as Error).message;
  }
  try {
    return use(fd);
  } catch (err) {
    return (err as Error).message;
  } finally {
    closeSync(fd);
  }
}

/** The head of a data file, `null` when there is none yet (missing or empty), or why it is unsound. */
export function dataFileHead(file: string): DataFileHead | null | string {
  return withFile(file, null, readHead);
}

/** Why a data file cannot be opened safely, or undefined when its header is sound. */
export function validateDataFile(file: string): string | undefined {
  const head = dataFileHead(file);
  return typeof head === 'string' ? head : undefined;
}

/**
 * Walks both trees of the newest snapshot and the free-page lists: why LMDB could not use the
 * file safely, or undefined when every page it would read is what the tree says it is. One read
 * per page; loops are bounded by the file's pages, each visited once.
 *
 * What is checked is what LMDB takes on trust: every page a tree points to lies in the file, is
 * of the kind expected at that depth, carries its own number and a transaction no newer than the
 * snapshot, and belongs to one tree only; every node lies inside its page; keys are in order and
 * inside the range their parent gives them; the page and entry counts agree with the header; every
 * free page lies in the file and is in no tree (a free page in use would be written over).
 * The values' contents are the cache's concern: each carries a CRC that every hit checks.
 */
export function verifyDataFile(file: string): string | undefined {
  const outcome = withFile<string | undefined>(file, undefined, (fd) => {
    const head = readHead(fd);
    if (head === null || typeof head === 'string') return head ?? undefined;
    return new Walk(fd, head).run();
  });
  return outcome;
}

/** Keys as LMDB orders them: bytes (the main tree), or 64-bit transaction ids (the free tree). */
type Compare = (a: Buffer, aStart: number, aEnd: number, b: Buffer, bStart: number, bEnd: number) => number;
const byBytes: Compare = (a, aStart, aEnd, b, bStart, bEnd) => a.compare(b, bStart, bEnd, aStart, aEnd);
const byTxnid: Compare = (a, aStart, _aEnd, b, bStart) => {
  const x = a.readBigUInt64LE(aStart);
  const y = b.readBigUInt64LE(bStart);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** A 64-bit little-endian number (page numbers, transactions: far below 2^53). */
const u64 = (b: Buffer, at: number) => b.readUInt32LE(at) + b.readUInt32LE(at + 4) * 0x100000000;
const i64 = (b: Buffer, at: number) => b.readUInt32LE(at) + b.readInt32LE(at + 4) * 0x100000000;

/** Leaves that follow one another in the file are read together, this many pages at a time. */
const RUN_PAGES = 64;

class Damage extends Error {}

/** A page to visit, with the range of keys its parent gives it: [low, high). */
interface Pending {
  pgno: number;
  depth: number;
  low?: Buffer;
  high?: Buffer;
}

interface Tree {
  name: string;
  record: TreeRecord;
  compare: Compare;
  onValue?: (data: Buffer) => void;
  counted: { branch: number; leaf: number; overflow: number; entries: number };
}

class Walk {
  private readonly pageSize: number;
  private readonly txnid: number;
  /** 1: a page of a tree, 2: a free page. */
  private readonly owner: Uint8Array;
  private readonly buffer: Buffer;
  private readonly overflowHeader = Buffer.alloc(HEADER_BYTES);

  constructor(
    private readonly fd: number,
    private readonly head: DataFileHead,
  ) {
    this.pageSize = head.pageSize;
    this.txnid = Number(head.txnid);
    this.owner = new Uint8Array(head.lastPage + 1);
    this.buffer = Buffer.alloc(RUN_PAGES * head.pageSize);
  }

  run(): string | undefined {
    try {
      this.tree({ name: 'main', record: this.head.main, compare: byBytes, counted: { branch: 0, leaf: 0, overflow: 0, entries: 0 } });
      const freeLists: Buffer[] = [];
      this.tree({ name: 'free', record: this.head.free, compare: byTxnid, onValue: (data) => freeLists.push(Buffer.from(data)), counted: { branch: 0, leaf: 0, overflow: 0, entries: 0 } });
      for (const list of freeLists) this.freePages(list);
      return undefined;
    } catch (err) {
      if (err instanceof Damage) return err.message;
      throw err;
    }
  }

  /** `count` pages from `pgno` on, in a buffer the next read reuses. */
  private read(pgno: number, count: number): Buffer {
    const length = count * this.pageSize;
    if (readSync(this.fd, this.buffer, 0, length, pgno * this.pageSize) < length) throw new Damage('the file is cut short');
    return this.buffer;
  }

  /** Marks a page (or an overflow run) as a tree's, once. */
  private claim(pgno: number, count = 1): void {
    if (!(pgno >= 2 && pgno + count - 1 <= this.head.lastPage)) throw new Damage(`a page number is out of range (${pgno})`);
    for (let p = pgno; p < pgno + count; p++) {
      if (this.owner[p]) throw new Damage(`page ${p} is used twice`);
      this.owner[p] = 1;
    }
  }

  private tree(tree: Tree): void {
    const { name, record, counted } = tree;
    if (record.root === NO_PAGE) {
      if (record.depth || record.branchPages || record.leafPages || record.overflowPages || record.entries) throw new Damage(`the ${name} tree's header is damaged`);
      return;
    }
    // Depth first. The children of a branch just above the leaves are read in runs of pages
    // that follow one another in the file: the leaves are most of the pages.
    const stack: Pending[] = [{ pgno: Number(record.root), depth: 1 }];
    while (stack.length) {
      const pending = stack.pop()!;
      this.claim(pending.pgno);
      const children = this.visit(tree, this.read(pending.pgno, 1), 0, pending);
      if (!children) continue;
      if (pending.depth + 1 === record.depth) this.leaves(tree, children);
      else for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
    const { branch, leaf, overflow, entries } = counted;
    if (branch !== record.branchPages || leaf !== record.leafPages || overflow !== record.overflowPages || entries !== record.entries) {
      throw new Damage(`the ${name} tree does not match its header (pages or entries missing)`);
    }
  }

  private leaves(tree: Tree, children: Pending[]): void {
    children.sort((a, b) => a.pgno - b.pgno);
    for (let i = 0; i < children.length; ) {
      const first = children[i]!.pgno;
      let run = 1;
      while (i + run < children.length && run < RUN_PAGES && children[i + run]!.pgno === first + run) run++;
      for (let k = 0; k < run; k++) this.claim(first + k);
      const pages = this.read(first, run);
      for (let k = 0; k < run; k++) this.visit(tree, pages, k * this.pageSize, children[i + k]!);
      i += run;
    }
  }

  /**
   * Checks the page at `at` in `page` and its nodes: a branch's children (with their key ranges),
   * or undefined for a leaf.
   */
  private visit(tree: Tree, page: Buffer, at: number, { pgno, depth, low, high }: Pending): Pending[] | undefined {
    const { name, record, compare, counted } = tree;
    const { pageSize } = this;
    const end = at + pageSize;
    const where = `${name} tree page ${pgno}`;
    if (u64(page, at + PGNO_AT) !== pgno) throw new Damage(`${where} is damaged (another page's number)`);
    if (u64(page, at + TXNID_AT) > this.txnid) throw new Damage(`${where} is damaged (a later transaction)`);
    const flags = page.readUInt16LE(at + FLAGS_AT);
    const lower = page.readUInt16LE(at + LOWER_AT);
    const upper = page.readUInt16LE(at + UPPER_AT);
    const leaf = depth === record.depth;
    if (flags !== (leaf ? P_LEAF : P_BRANCH) || depth > record.depth) throw new Damage(`${where} is damaged (not a ${leaf ? 'leaf' : 'branch'} page)`);
    if (lower & 1 || lower < 2 || lower > upper || upper > pageSize - HEADER_BYTES) throw new Damage(`${where} is damaged (its bounds)`);
    const count = lower >> 1;
    if (leaf) counted.leaf++;
    else counted.branch++;
    const children: Pending[] = [];
    let previousAt = -1;
    let previousEnd = -1;
    // Each node's offset in the page and its size, to check that they tile its data area.
    const extents: number[] = [];
    for (let i = 0; i < count; i++) {
      const ptr = page.readUInt16LE(at + HEADER_BYTES + 2 * i);
      const node = at + HEADER_BYTES + ptr;
      if (ptr & 1 || ptr < upper || node + NODE_BYTES > end) throw new Damage(`${where} is damaged (a node outside the page)`);
      const lo = page.readUInt16LE(node);
      const hi = page.readUInt16LE(node + 2);
      const nodeFlags = page.readUInt16LE(node + 4);
      const keyAt = node + NODE_BYTES;
      const keyEnd = keyAt + page.readUInt16LE(node + 6);
      if (keyEnd > end) throw new Damage(`${where} is damaged (a key outside the page)`);
      // A branch's first key is not used: its child holds everything below the second.
      if (leaf || i > 0) {
        if (compare === byTxnid && keyEnd - keyAt !== 8) throw new Damage(`${where} is damaged (a key of the wrong size)`);
        if (
          (previousAt >= 0 && compare(page, previousAt, previousEnd, page, keyAt, keyEnd) >= 0) ||
          (low && compare(page, keyAt, keyEnd, low, 0, low.length) < 0) ||
          (high && compare(page, keyAt, keyEnd, high, 0, high.length) >= 0)
        ) {
          throw new Damage(`${where} is damaged (keys out of order)`);
        }
        previousAt = keyAt;
        previousEnd = keyEnd;
      }
      if (!leaf) {
        children.push({ pgno: lo + hi * 0x10000 + nodeFlags * 0x100000000, depth: depth + 1, low: i > 0 ? Buffer.from(page.subarray(keyAt, keyEnd)) : low });
        extents.push(ptr * 0x10000 + (keyEnd - node));
        continue;
      }
      counted.entries++;
      const dataSize = lo + hi * 0x10000;
      if (nodeFlags === 0) {
        if (keyEnd + dataSize > end) throw new Damage(`${where} is damaged (a value outside the page)`);
        tree.onValue?.(page.subarray(keyEnd, keyEnd + dataSize));
        extents.push(ptr * 0x10000 + (keyEnd + dataSize - node));
        continue;
      }
      if (nodeFlags !== F_BIGDATA || keyEnd + OVERFLOW_REF_BYTES > end) throw new Damage(`${where} is damaged (a node's flags)`);
      extents.push(ptr * 0x10000 + (keyEnd + OVERFLOW_REF_BYTES - node));
      const first = u64(page, keyEnd);
      const pages = u64(page, keyEnd + 16);
      if (!(pages >= Math.ceil((HEADER_BYTES + dataSize) / pageSize)) || first < 2 || first + pages - 1 > this.head.lastPage) throw new Damage(`${where} is damaged (a big value's pages)`);
      this.overflow(first, pages, dataSize, tree.onValue);
      counted.overflow += pages;
    }
    // LMDB keeps a page's nodes packed from its free space's upper bound to its end (each of an
    // even size), and moves them by those sizes when it writes the page: a size that lies
    // (a flipped bit) would have its next write scramble the page, which a later run meets.
    extents.sort((a, b) => a - b);
    let next = upper;
    for (const extent of extents) {
      const size = extent % 0x10000;
      if ((extent - size) / 0x10000 !== next) throw new Damage(`${where} is damaged (its nodes overlap or leave gaps)`);
      next += size + (size & 1);
    }
    if (next !== pageSize - HEADER_BYTES) throw new Damage(`${where} is damaged (its nodes overlap or leave gaps)`);
    if (leaf) return undefined;
    // Each child's keys lie below the next child's first key.
    for (let i = 0; i < children.length; i++) children[i]!.high = children[i + 1]?.low ?? high;
    return children;
  }

  private overflow(first: number, pages: number, dataSize: number, onValue?: (data: Buffer) => void): void {
    const header = this.overflowHeader;
    if (readSync(this.fd, header, 0, HEADER_BYTES, first * this.pageSize) < HEADER_BYTES) throw new Damage('the file is cut short');
    if (u64(header, PGNO_AT) !== first || header.readUInt16LE(FLAGS_AT) !== P_OVERFLOW || header.readUInt32LE(PAGES_AT) !== pages) {
      throw new Damage(`overflow page ${first} is damaged`);
    }
    if (u64(header, TXNID_AT) > this.txnid) throw new Damage(`overflow page ${first} is damaged (a later transaction)`);
    this.claim(first, pages);
    if (!onValue) return;
    const data = Buffer.alloc(dataSize);
    if (readSync(this.fd, data, 0, dataSize, first * this.pageSize + HEADER_BYTES) < dataSize) throw new Damage('the file is cut short');
    onValue(data);
  }

  /**
   * One record of the free tree: a count, then page numbers; a negative entry is the length of a
   * run of pages, the next entry its first page; 0 is an empty slot.
   */
  private freePages(list: Buffer): void {
    const slots = Math.floor(list.length / 8);
    const count = slots > 0 ? i64(list, 0) : -1;
    if (count < 0 || count >= slots) throw new Damage('a free-page list is damaged');
    for (let i = 1; i <= count; i++) {
      const entry = i64(list, i * 8);
      if (entry === 0) continue;
      let first = entry;
      let length = 1;
      if (entry < 0) {
        if (i === count) throw new Damage('a free-page list is damaged');
        length = -entry;
        first = i64(list, ++i * 8);
      }
      if (!(first >= 2 && length <= this.head.lastPage && first + length - 1 <= this.head.lastPage)) throw new Damage(`a free page is out of range (${first})`);
      for (let p = first; p < first + length; p++) {
        if (this.owner[p] === 1) throw new Damage(`page ${p} is both free and in use`);
        if (this.owner[p] === 2) throw new Damage(`page ${p} is listed free twice`);
        this.owner[p] = 2;
      }
    }
  }
}
