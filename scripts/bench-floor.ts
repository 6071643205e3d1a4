// The single-core floor of `npm run bench`: the same reads, hashes and detector calls as a scan,
// in a plain loop in one process, in the same order. Built once by bench-scan.ts and run as its
// own process, so its wall time compares with the scan's.
// `bench-floor.mjs DIR [K/N]`: with K/N, only every N-th file from the K-th (0-based) of the
// sorted list, so N of these at once split the folder evenly (signed files included) with no
// coordination at all: the bench's "ideal split".
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { detect } from '../src/engine/detect.js';
import { LineBatcher } from '../src/commands/line-batcher.js';
import { FileReader } from '../src/engine/file-reader.js';
import { readHints } from '../src/media/xmp-hints.js';

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

function partOf(files: string[], part: string | undefined): string[] {
  if (part === undefined) return files;
  const match = /^(\d+)\/(\d+)$/.exec(part);
  const [k, n] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
  if (!(n >= 1 && k >= 0 && k < n)) throw new Error(`bench-floor: the part is K/N with 0 <= K < N, not ${part}`);
  return files.filter((_, i) => i % n === k);
}

const files = new FileReader(); // the workers' reader: reads into buffers it uses again
const out = new LineBatcher(process.stdout); // and the CLI's output: a few lines per write
for (const path of partOf(listFiles(process.argv[2]!), process.argv[3])) {
  const file = files.read(path);
  const result = await detect(file.bytes);
  const hints = await readHints(file.bytes);
  file.release();
  out.write(`${JSON.stringify({ source: path, ...result, ...(hints ? { hints } : {}) })}\n`);
}
out.flush();
