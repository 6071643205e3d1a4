// `node scripts/run-ts.mjs scripts/make-camera-folder.ts [--count 1000] [--out .bench/camera-1000]`:
// writes the mixed camera folder (test/helpers/camera-folder.ts) from the shared corpus's camera
// files: the AI-marks checks' false-positive set, and the bench's full-vs-hosted row.
import { resolve } from 'node:path';
import { benchOption } from './bench-kit.js';
import { cameraSources, makeCameraFolder } from '../test/helpers/camera-folder.js';

const count = Number(benchOption('count', '1000'));
const out = resolve(benchOption('out', `.bench/camera-${count}`));
if (!Number.isInteger(count) || count < 1) {
  console.error('--count takes a whole number of files (1 or more).');
  process.exit(2);
}
// From the working directory (the repository), as every bench runs: the bundled script's own
// location is a cache folder.
const corpusFiles = resolve('../shared/corpus/files');
const sources = cameraSources(corpusFiles);
if (!sources.length) {
  console.error('The shared corpus (../shared/corpus/files) is absent or holds no camera file: nothing to make the folder from.');
  process.exit(1);
}
const started = performance.now();
const paths = await makeCameraFolder(out, count, corpusFiles, sources);
console.log(`${paths.length} pictures in ${out} from ${sources.length} camera files (${sources.join(', ')}), ${((performance.now() - started) / 1000).toFixed(1)} s`);
