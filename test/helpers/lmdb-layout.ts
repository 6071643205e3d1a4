// Where the pages of an LMDB data file are, by kind, for tests that damage them on purpose
// (test/lmdb-file.test.ts, test/scan-cache-damage.test.ts). Read the way engine/lmdb-file.ts
// reads them: a 24-byte page header (number, txn, pad, flags, lower, upper), nodes of 8 bytes
// (two size/page words, flags, key size) before their key and data.
import { readFileSync } from 'node:fs';
import { dataFileHead, type DataFileHead } from '../../src/engine/lmdb-file.js';

export interface Layout {
  head: DataFileHead;
  pageSize: number;
  mainRoot: number;
  /** The free tree's root, or undefined when nothing was ever freed. */
  freeRoot?: number;
  branch: number[];
  leaf: number[];
  overflow: number[];
  /** Pages listed as free (their contents are old copies nobody reads). */
  free: number[];
}

export function layoutOf(file: string): Layout {
  const bytes = readFileSync(file);
  const head = dataFileHead(file);
  if (!head || typeof head === 'string') throw new Error(`${file}: no sound LMDB file (${head})`);
  const { pageSize } = head;
  const layout: Layout = { head, pageSize, mainRoot: Number(head.main.root), branch: [], leaf: [], overflow: [], free: [] };
  if (head.free.root !== 0xffffffffffffffffn) layout.freeRoot = Number(head.free.root);
  const walk = (root: number, onData: (data: Buffer) => void, into: boolean) => {
    const stack = [root];
    for (let guard = 0; stack.length && guard < 1_000_000; guard++) {
      const page = stack.pop()!;
      const at = page * pageSize;
      const flags = bytes.readUInt16LE(at + 18);
      const count = bytes.readUInt16LE(at + 20) >> 1;
      if (into) (flags === 1 ? layout.branch : layout.leaf).push(page);
      for (let i = 0; i < count; i++) {
        const node = at + 24 + bytes.readUInt16LE(at + 24 + 2 * i);
        const lo = bytes.readUInt16LE(node) + bytes.readUInt16LE(node + 2) * 0x10000;
        const data = node + 8 + bytes.readUInt16LE(node + 6);
        if (flags === 1) stack.push(lo);
        else if (bytes.readUInt16LE(node + 4) === 1) {
          const first = Number(bytes.readBigUInt64LE(data));
          if (into) layout.overflow.push(first);
          onData(bytes.subarray(first * pageSize + 24, first * pageSize + 24 + lo));
        } else onData(bytes.subarray(data, data + lo));
      }
    }
  };
  walk(layout.mainRoot, () => {}, true);
  if (layout.freeRoot !== undefined) {
    walk(layout.freeRoot, (list) => {
      const count = Number(list.readBigInt64LE(0));
      for (let i = 1; i <= count; i++) {
        const entry = Number(list.readBigInt64LE(i * 8));
        if (entry > 0) layout.free.push(entry);
        else if (entry < 0) {
          const first = Number(list.readBigInt64LE(++i * 8));
          for (let p = first; p < first - entry; p++) layout.free.push(p);
        }
      }
    }, false);
  }
  return layout;
}
