// The package as a user gets it: `npm pack`, installed into a new project, used from TypeScript.
// A small strict program (no `any`; the library's own types are checked not to be `any` either)
// calls check, scan and ProvenanceClient on examples/ and against a daemon started here on
// 127.0.0.1, and its results must equal `provenance check --json` on the same files (apart from
// id and duration_ms). The install comes from the npm cache when it can (--prefer-offline).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemonProcess, type DaemonProcess } from './daemon/process.js';
import { ROOT } from './helpers/corpus.js';

const EXAMPLES = join(ROOT, 'examples');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const dir = mkdtempSync(join(tmpdir(), 'prov-package-'));
const project = join(dir, 'project');
const config = join(dir, 'config');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PROGRAM = `import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  ApiError,
  check,
  CheckSelectionError,
  InputError,
  detectors,
  ProvenanceClient,
  scan,
  type DetectionResult,
  type DetectorId,
  type RemoteDetectionResult,
  type ScanEntry,
} from 'provenance-check';

// The library's types are real types, not any.
type IsAny<T> = 0 extends 1 & T ? true : false;
const notAny: [
  IsAny<Awaited<ReturnType<typeof check>>>,
  IsAny<ScanEntry>,
  IsAny<RemoteDetectionResult>,
  IsAny<ReturnType<typeof detectors>>,
  IsAny<ApiError['requestId']>,
] = [false, false, false, false, false];

type Line = { source: string; result?: DetectionResult; error?: { type: string; message: string } };

async function main(): Promise<void> {
  const [folder, baseUrl, apiKey] = process.argv.slice(2) as [string, string, string];
  const files = readdirSync(folder).sort().map((name) => join(folder, name));
  const ids: DetectorId[] = (await detectors()).map((d) => d.id);

  const checked: Line[] = [];
  for (const file of files) checked.push({ source: file, result: await check(file, { checks: ids }) });

  const scanned: Line[] = [];
  for await (const entry of scan([folder, join(folder, 'missing.jpg')], { concurrency: 2 })) {
    scanned.push(entry.ok ? { source: entry.source, result: entry.result } : { source: entry.source, error: entry.error });
  }

  // The global fetch passed as it is: its type must fit the option's.
  const client = new ProvenanceClient({ apiKey, baseUrl, fetch });
  const remote: Line[] = [];
  let remaining: number | undefined;
  for (const file of files) {
    try {
      const result = await client.detect({ file });
      remaining = result.quota?.remaining;
      remote.push({ source: file, result });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      remote.push({ source: file, error: { type: err.type, message: err.message } });
    }
  }
  // Errors thrown inside the lazily loaded engine are the classes the package exports.
  const errors: string[] = [];
  try {
    await check(join(folder, 'missing.jpg'));
  } catch (err) {
    errors.push(err instanceof InputError ? \`InputError \${err.type}\` : String(err));
  }
  try {
    await check(files[0]!, { checks: ['nope' as DetectorId] });
  } catch (err) {
    errors.push(err instanceof CheckSelectionError ? \`CheckSelectionError \${err.param}\` : String(err));
  }
  console.log(JSON.stringify({ checked, scanned, remote, remaining, errors, notAny }));
}

await main();
`;

const COMMONJS = `// CommonJS reaches the ES module with a dynamic import.
async function main() {
  const { check } = await import('provenance-check');
  const result = await check(process.argv[2]);
  console.log(JSON.stringify(result.matches.map((m) => m.result)));
}
main();
`;

type Json = Record<string, unknown>;
// Without the verdict (issue 31): the library's check() and scan() and the CLI's lines carry one,
// the /v1 client's answers keep the hosted shape; the verdicts are compared on their own below.
// `signals` (issue 38) is read on this machine from a manifest's crJSON: a remote answer has none.
const comparable = ({ id: _id, duration_ms: _d, hints: _h, source: _s, verdict: _v, signals: _g, ...rest }: Json) => rest;

describe('npm pack, installed into a new TypeScript project', () => {
  let daemon: DaemonProcess;
  let key: string;
  let output: { checked: Json[]; scanned: Json[]; remote: Json[]; remaining: number; errors: string[] };
  let cli: Json[];

  beforeAll(async () => {
    mkdirSync(project);
    const tarball = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').at(-1)!;
    const typesNode = (await import(join(ROOT, 'node_modules', '@types', 'node', 'package.json'), { with: { type: 'json' } })).default.version as string;
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'uses-provenance', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent', join(dir, tarball), `@types/node@${typesNode}`], { cwd: project, stdio: 'pipe' });
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noImplicitAny: true, outDir: 'out', types: ['node'], skipLibCheck: false },
        files: ['program.ts'],
      }),
    );
    writeFileSync(join(project, 'program.ts'), PROGRAM);
    writeFileSync(join(project, 'commonjs.cjs'), COMMONJS);

    const env = { ...process.env, PROVENANCE_CONFIG_DIR: config, PROVENANCE_API_KEY: '', NO_COLOR: '1' };
    const data = join(dir, 'daemon');
    const bin = join(project, 'node_modules', 'provenance-check', 'bin', 'provenance.js');
    key = JSON.parse(execFileSync(process.execPath, [bin, 'daemon', 'accounts', 'create', '--email', 'lib@example.test', '--data-dir', data, '--json'], { env, encoding: 'utf8' })).key.value;
    daemon = await startDaemonProcess(['--data-dir', data], { PROVENANCE_CONFIG_DIR: config });
    // Exit 1: one input (missing.jpg) could not be read; every other line is a result.
    const run = spawnSync(process.execPath, [bin, 'check', '--json', '--local', EXAMPLES, join(EXAMPLES, 'missing.jpg')], { env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(1);
    cli = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Json);
  }, 240_000);

  afterAll(async () => {
    if (daemon && daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  });

  it('type-checks a strict program against the installed declarations', () => {
    execFileSync(process.execPath, [TSC, '-p', join(project, 'tsconfig.json')], { cwd: project, encoding: 'utf8' });
  }, 120_000);

  it('runs it: check, scan and the client give what `provenance check --json` prints', () => {
    const out = execFileSync(process.execPath, [join(project, 'out', 'program.js'), EXAMPLES, daemon.url, key], { cwd: project, encoding: 'utf8' });
    output = JSON.parse(out);
    const files = readdirSync(EXAMPLES).sort().map((n) => join(EXAMPLES, n));
    const bySource = new Map(cli.map((l) => [l.source as string, l]));
    expect(cli.map((l) => l.source)).toEqual([...files, join(EXAMPLES, 'missing.jpg')]);
    for (const line of output.checked) {
      expect(comparable(line.result as Json), line.source as string).toEqual(comparable(bySource.get(line.source as string)!));
      expect((line.result as Json).verdict, line.source as string).toEqual(bySource.get(line.source as string)!.verdict);
    }
    expect(output.scanned.map((l) => l.source)).toEqual(cli.map((l) => l.source));
    for (const line of output.scanned) {
      const expected = bySource.get(line.source as string)!;
      if (line.result) expect(comparable(line.result as Json)).toEqual(comparable(expected));
      else expect(line.error).toEqual(expected.error);
    }
    // The daemon runs the same engine: the same results, one call per file.
    expect(output.remote.map((l) => l.source)).toEqual(files);
    for (const line of output.remote) {
      if (line.result) expect(comparable(line.result as Json), line.source as string).toEqual(comparable(bySource.get(line.source as string)!));
      else expect.fail(`${line.source as string}: ${JSON.stringify(line.error)}`);
    }
    expect(output.remaining).toBe(500 - files.length);
    expect(output.errors).toEqual(['InputError not_found', 'CheckSelectionError checks']);
  }, 120_000);

  it('is reached from CommonJS with await import()', () => {
    const out = execFileSync(process.execPath, [join(project, 'commonjs.cjs'), join(EXAMPLES, 'signed.jpg')], { cwd: project, encoding: 'utf8' });
    expect(JSON.parse(out)[0]).toBe('found');
  });
});
