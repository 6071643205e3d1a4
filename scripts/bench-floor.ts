// The single-core floor of `npm run bench`: the same reads, hashes and detector calls as a scan,
// in a plain loop in one process, in the same order. Built once by bench-scan.ts and run as its
// own process, so its wall time compares with the scan's.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { detect } from '../src/engine/detect.js';
import { LineBatcher } from '../src/commands/line-batcher.js';
import { FileReader } from '../src/engine/file-reader.js';
import { readHints } from '../src/engine/xmp-hints.js';

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

let n = 0;
const files = new FileReader(); // the workers' reader: reads into buffers it uses again
const out = new LineBatcher(process.stdout); // and the CLI's output: a few lines per write
for (const path of listFiles(process.argv[2]!)) {
  const file = files.read(path);
  const result = await detect(file.bytes);
  const hints = await readHints(file.bytes);
  file.release();
  out.write(`${JSON.stringify({ source: path, ...result, ...(hints ? { hints } : {}) })}\n`);
  n++;
}
out.flush();
process.stderr.write(`floor: ${n} files\n`);
