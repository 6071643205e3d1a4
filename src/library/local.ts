// The engine side of the library in one module, loaded by entry.ts on the first local call: it
// brings the engine, node:crypto, the file system and the pool, which an import of the package
// must not pay for.
export { check, crJson, detectors, rubric } from './check.js';
export { scan } from './scan.js';
