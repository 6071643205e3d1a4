// The README's two commands, exactly as written, as real subprocesses. They run in a copy of the
// working tree so that `npm install` (which rebuilds dist/) cannot disturb the other test files
// running at the same time. The nested `npm test` runs one quick file (vitest.config.ts), or the
// suite would start itself forever.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/corpus.js';
import { runBin } from './helpers/run-cli.js';

function readmeCommands(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
  return blocks.slice(0, 2);
}

let copy: string;
beforeAll(() => {
  copy = join(mkdtempSync(join(tmpdir(), 'prov-readme-')), 'main');
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    mkdirSync(join(copy, dirname(file)), { recursive: true });
    cpSync(join(ROOT, file), join(copy, file));
  }
  // Already installed dependencies, so the test does not depend on the registry being reachable.
  cpSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), { recursive: true, verbatimSymlinks: true });
}, 120_000);
afterAll(() => rmSync(dirname(copy), { recursive: true, force: true }));

function sh(command: string, env: NodeJS.ProcessEnv = {}) {
  return spawnSync('sh', ['-c', command], {
    cwd: copy,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', npm_config_audit: 'false', npm_config_fund: 'false', ...env },
    timeout: 240_000,
  });
}

describe('README examples of output', () => {
  it('the C2PA card shown is what `provenance check examples/ai-generated.png` prints', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const shown = /`provenance check examples\/ai-generated\.png`:\n\n```text\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(shown, 'README has the card block').toBeDefined();
    const run = await runBin(['check', 'examples/ai-generated.png']);
    expect(run.stdout.startsWith(shown!)).toBe(true);
  });
});

describe('README quick start', () => {
  it('leads with exactly the two commands', () => {
    expect(readmeCommands()).toEqual(['npm install && npx provenance check examples/', 'npm test']);
  });

  it('the first command sets up and checks the examples, showing every kind of result', () => {
    const run = sh(readmeCommands()[0]!);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('examples/signed.jpg');
    expect(run.stdout).toContain('credential INVALID');
    expect(run.stdout).toContain('EXIF of an Apple iPhone/iPad camera');
    expect(run.stdout).toMatch(/unavailable: The media type application\/octet-stream/);
    expect(run.stdout).toContain('not found');
    expect(run.stdout).toMatch(/7 files checked; c2pa found in 4 \(1 invalid\), camera_reference found in 1\./);
  }, 240_000);

  it('the second command runs the tests', () => {
    const run = sh(readmeCommands()[1]!, { PROVENANCE_NESTED_TEST: '1', CI: 'true' });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/tests: \d+ passed, 0 failed/);
  }, 240_000);
});
