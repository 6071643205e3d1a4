// What importing the library costs in modules: a fresh Node process imports the built entry
// (dist/index.js) with a module-resolution hook that reports every module it resolves, and with
// WebAssembly's compile entry points counted. Importing must load no wasm, no HTTP stack, no
// daemon and no terminal UI; the c2pa-rs wasm loads on the first file with a C2PA marker.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/corpus.js';

const dir = mkdtempSync(join(tmpdir(), 'prov-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

writeFileSync(
  join(dir, 'hooks.mjs'),
  `let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  port.postMessage(resolved.url);
  return resolved;
}
`,
);

// Runs the steps named on the command line and prints, after each, the modules resolved so far
// and how many wasm modules were compiled.
writeFileSync(
  join(dir, 'probe.mjs'),
  `import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const loaded = [];
let waiting;
port1.on('message', (url) => { loaded.push(url); if (url.startsWith('data:') && waiting) waiting(); });
register(new URL('./hooks.mjs', import.meta.url), { data: { port: port2 }, transferList: [port2] });
let compiled = 0;
const W = WebAssembly;
const Original = W.Module;
W.Module = class extends Original { constructor(...a) { super(...a); compiled++; } };
for (const name of ['compile', 'instantiate', 'compileStreaming', 'instantiateStreaming']) {
  const f = W[name];
  if (f) W[name] = function (...a) { compiled++; return f.apply(this, a); };
}
// Every URL resolved before this marker has been reported once the marker is.
let n = 0;
async function settle() {
  const seen = new Promise((r) => (waiting = r));
  await import('data:text/javascript,export default ' + n++);
  await seen;
}
const [entry, ...steps] = process.argv.slice(2);
const lib = await import(entry);
await settle();
const report = (step) => console.log(JSON.stringify({ step, loaded: loaded.filter((u) => !u.startsWith('data:')), compiled }));
report('import');
for (const step of steps) {
  if (step === 'client') new lib.ProvenanceClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'prv_x' });
  else await lib.check(step);
  await settle();
  report(step);
}
port1.close();
`,
);

interface Report {
  step: string;
  loaded: string[];
  compiled: number;
}

function probe(...steps: string[]): Report[] {
  const out = execFileSync(process.execPath, [join(dir, 'probe.mjs'), join(ROOT, 'dist', 'index.js'), ...steps], { encoding: 'utf8' });
  return out.trim().split('\n').map((l) => JSON.parse(l) as Report);
}

const HEAVY = /c2pa-wasm|node_modules\/(ink|react|fastify|@fastify|undici|lowdb|nodemailer|file-type|conf)\/|\/dist\/lazy\/|\/dist\/lib\/(?!chunk-)/;

describe('importing provenance (dist/index.js)', () => {
  it('resolves only the entry, the chunks it shares with the engine and Node built-ins, and compiles no wasm', () => {
    const [imported] = probe();
    expect(imported!.compiled).toBe(0);
    const ours = imported!.loaded.filter((u) => !u.startsWith('node:')).map((u) => u.replace(`file://${ROOT}/`, ''));
    // The chunks hold what the entry shares with the engine's lazy part (dist/lib/library-local.js),
    // the error classes among them: one copy each (scripts/build.mjs, issue 34).
    expect(ours[0]).toBe('dist/index.js');
    for (const file of ours.slice(1)) expect(file).toMatch(/^dist\/lib\/chunk-[A-Z0-9]+\.js$/);
    // The engine's built-ins (crypto, the file system's promises and streams) wait for the first call.
    const builtins = imported!.loaded.filter((u) => u.startsWith('node:'));
    for (const heavy of ['node:crypto', 'node:fs/promises', 'node:stream', 'node:worker_threads', 'node:v8']) expect(builtins).not.toContain(heavy);
  });

  it('creating a ProvenanceClient loads no HTTP stack', () => {
    const [, client] = probe('client');
    expect(client!.loaded.filter((u) => HEAVY.test(u))).toEqual([]);
    expect(client!.loaded).not.toContain('node:http');
  });

  it('loads the c2pa-rs wasm on the first file with a C2PA marker, not before', () => {
    const [imported, plain, signed] = probe(join(ROOT, 'examples', 'plain.png'), join(ROOT, 'examples', 'signed.jpg'));
    expect(imported!.loaded.filter((u) => HEAVY.test(u))).toEqual([]);
    expect(plain!.compiled).toBe(0);
    expect(plain!.loaded.filter((u) => /c2pa-wasm/.test(u))).toEqual([]);
    // The AWS SDK waits for an s3:// input (engine/s3-source.ts).
    expect([...plain!.loaded, ...signed!.loaded].filter((u) => /@aws-sdk|@smithy/.test(u))).toEqual([]);
    expect(signed!.compiled).toBe(1);
    expect(signed!.loaded.some((u) => /node_modules\/@contentauth\/c2pa-wasm\//.test(u))).toBe(true);
  });
});
