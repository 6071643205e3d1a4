// The single-core floor of `npm run bench`: the same reads, hashes and detector calls as a scan,
// in a plain loop in one process, in the same order. Built once by bench-scan.ts and run as its
// own process, so its wall time compares with the scan's.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detect } from '../src/engine/detect.js';
import { readHints } from '../src/engine/xmp-hints.js';

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

let n = 0;
for (const file of listFiles(process.argv[2]!)) {
  const bytes = readFileSync(file);
  const result = await detect(bytes);
  const hints = await readHints(bytes);
  process.stdout.write(`${JSON.stringify({ source: file, ...result, ...(hints ? { hints } : {}) })}\n`);
  n++;
}
process.stderr.write(`floor: ${n} files\n`);
