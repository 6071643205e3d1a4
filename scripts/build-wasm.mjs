// Compiles wasm/dwt-dct-kernels.ts (AssemblyScript) to WebAssembly with SIMD and writes it, as
// base64, to src/media/dwt-dct-wasm-bytes.ts (not in git: made by every build), which
// src/media/dwt-dct-wasm.ts instantiates. Run by `npm run build` before anything else, and by
// `npm run typecheck`, so the TypeScript that imports it always finds it. A few kilobytes: the
// base64 costs nothing measurable to decode at the first pixel check.
import { readFileSync, writeFileSync } from 'node:fs';
import asc from 'assemblyscript/asc';

const SOURCE = 'wasm/dwt-dct-kernels.ts';
const OUT = 'src/media/dwt-dct-wasm-bytes.ts';

let binary;
const { error, stderr } = await asc.main(
  [
    SOURCE,
    '--outFile', 'kernels.wasm',
    '--optimizeLevel', '3',
    '--shrinkLevel', '0',
    '--runtime', 'stub',
    '--noAssert',
    // No imports at all: no abort() (unreachable traps instead), no seed, no console.
    '--use', 'abort=',
    '--enable', 'simd',
    '--initialMemory', '1',
    ...(process.env.WASM_NAMES ? ['--debug'] : []),
  ],
  {
    readFile: (name) => {
      try {
        return readFileSync(name, 'utf8');
      } catch {
        return null;
      }
    },
    writeFile: (name, contents) => {
      if (name.endsWith('.wasm')) binary = contents;
    },
    listFiles: () => [],
  },
);
if (error || !binary) {
  process.stderr.write(stderr.toString());
  throw new Error(`build-wasm: ${SOURCE} did not compile${error ? `: ${error.message}` : ''}`);
}
// In lines of 96 characters joined at load: the bundles that carry it stay readable (Node prints
// an uncaught error's source line, and test/first-page.test.ts holds every line under 8 KB).
const lines = Buffer.from(binary).toString('base64').match(/.{1,96}/g) ?? [];
const text = `// Made by scripts/build-wasm.mjs from ${SOURCE}: do not edit (not in git; every build writes it).\nexport const DWT_DCT_WASM = [\n${lines.map((l) => `  '${l}',`).join('\n')}\n].join('');\n`;
let current = '';
try {
  current = readFileSync(OUT, 'utf8');
} catch {}
// Written only when it changed, so a rebuild does not touch what did not change.
if (current !== text) writeFileSync(OUT, text);
console.log(`build-wasm: ${SOURCE} -> ${OUT} (${binary.length} bytes of WebAssembly)`);
