// docs/LIBRARY.md's examples are real: each ```js block runs as it is, importing the package by
// name (a package may import itself through its "exports"), from the project's root, against a
// daemon started here on 127.0.0.1 for the client examples.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemonProcess, BIN, type DaemonProcess } from './daemon/process.js';
import { ROOT } from './helpers/corpus.js';
import { createTestDatabase, unreachableReason, type TestDatabase } from './helpers/postgres.js';

const blocks = [...readFileSync(join(ROOT, 'docs', 'LIBRARY.md'), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
const scratch = join(ROOT, 'test', '.tmp', `library-docs-${process.pid}`);
const data = mkdtempSync(join(tmpdir(), 'prov-docs-'));

/** The queue of the distributed scan's example, when the test server answers (CI: always). */
const queue: TestDatabase | undefined = (await unreachableReason()) === undefined ? await createTestDatabase() : undefined;

describe('docs/LIBRARY.md examples', () => {
  let daemon: DaemonProcess;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    mkdirSync(scratch, { recursive: true });
    const config = join(data, 'config');
    const key = JSON.parse(execFileSync(process.execPath, [BIN, 'daemon', 'accounts', 'create', '--email', 'docs@example.test', '--data-dir', join(data, 'd'), '--json'], { encoding: 'utf8', env: { ...process.env, PROVENANCE_CONFIG_DIR: config } })).key.value;
    daemon = await startDaemonProcess(['--data-dir', join(data, 'd')], { PROVENANCE_CONFIG_DIR: config });
    env = { ...process.env, PROVENANCE_CONFIG_DIR: config, PROVENANCE_API_URL: daemon.url, PROVENANCE_API_KEY: key };
  });
  afterAll(async () => {
    if (daemon && daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    rmSync(scratch, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
    await queue?.drop();
  });

  it('has examples', () => expect(blocks.length).toBeGreaterThanOrEqual(7));

  it("the README's three-line example prints what it says", () => {
    const code = /```js\n([\s\S]*?)```/.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'))![1]!;
    expect(code.trim().split('\n')).toHaveLength(3);
    const file = join(scratch, 'readme.mjs');
    writeFileSync(file, code);
    const run = spawnSync(process.execPath, [file], { cwd: ROOT, env, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('found\n');
  });

  const expected: [RegExp, RegExp][] = [
    [/check\('examples\/signed\.jpg'\)/, /^found Provenance Test Signer valid\n$/],
    [/acceptUpload/, /^\{"ok":false,"why":"AI-generated, says its manifest"\}\n\{"ok":true,"sha256":"47f2cf56[0-9a-f]{56}"\}\n$/],
    [/verdict\.evidence/, /^examples\/sdxl-watermark\.png generated SDXL pixel_mark\nexamples\/comfyui\.png generated ComfyUI unsigned_record\nexamples\/camera\.jpg none_found Apple iPhone\/iPad camera unsigned_record\n$/],
    [/does-not-exist/, /examples\/signed\.jpg c2pa=found[\s\S]*does-not-exist\.jpg not checked: not_found\n$/],
    [/AbortController/, /^AbortError after 2 files\n$/],
    [/detectors\(\)/, /^c2pa available\n[\s\S]*camera_reference available\ngenerator_metadata available\ninvisible_watermark available\n$/],
    [/ProvenanceClient/, /^found 499 calls left this month\nvideo\/mp4\n$/],
    [/check\.cjs/, /^found\n$/],
    [/startScan/, /^queued 9 inputs in 1 batch\nfinished\n9 results\n$/],
  ];

  it.each(blocks.map((code, i) => [i, code] as const))('block %i runs and prints what it says', (i, code, ctx) => {
    // The distributed scan's example needs a queue: a database of its own on the test server.
    if (/startScan/.test(code) && !queue) return ctx.skip();
    const file = join(scratch, `block-${i}.${code.startsWith('// check.cjs') ? 'cjs' : 'mjs'}`);
    writeFileSync(file, code);
    const run = spawnSync(process.execPath, [file], { cwd: ROOT, env: { ...env, PROVENANCE_QUEUE: queue?.url ?? '' }, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const rule = expected.find(([which]) => which.test(code));
    expect(rule, 'an expected output for this block').toBeDefined();
    expect(run.stdout).toMatch(rule![1]);
  });
});
