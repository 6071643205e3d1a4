// The README's two commands, exactly as written, as real subprocesses. They run in a copy of the
// working tree so that `npm install` (which rebuilds dist/) cannot disturb the other test files
// running at the same time. The nested `npm test` runs one quick file (vitest.config.ts), or the
// suite would start itself forever.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/corpus.js';
import { runBin } from './helpers/run-cli.js';
import { DEFAULT_TEST_DATABASE_URL } from './helpers/postgres.js';

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

describe('README as a first page', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const lines = readme.split('\n');

  it('is at most 200 lines, and shows its first output within its first 60', () => {
    expect(lines.length).toBeLessThanOrEqual(200);
    const firstOutput = lines.findIndex((l) => l === '```text');
    expect(firstOutput).toBeGreaterThan(0);
    expect(firstOutput + 1).toBeLessThanOrEqual(60);
  });

  it('never shows `npx provenance`, which outside the clone would run the registry\'s unrelated package', () => {
    for (const file of ['README.md', 'CONTRIBUTING.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]) {
      const text = readFileSync(join(ROOT, file), 'utf8').replace(/never run `npx provenance` outside the clone/g, '');
      expect(text, file).not.toMatch(/npx provenance\b/);
    }
  });

  it('every card shown after "`provenance check examples/FILE`:" is what that command prints', async () => {
    const cards = [...readme.matchAll(/`provenance check (examples\/[^`\s]+)`:\n\n```text\n([\s\S]*?)```/g)];
    expect(cards.map(([, file]) => file)).toEqual(['examples/comfyui.png']);
    for (const [, file, shown] of cards) {
      const run = await runBin(['check', file!]);
      // The whole card, to the blank line before the closing lines: no line of it left out.
      expect(shown, file).toBe(`${run.stdout.split('\n\n')[0]}\n`);
    }
  });
});

describe('README: what `npm test` takes and needs', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
  it("names the test server's default URL, Chromium's path, and how the suite skips without them", () => {
    const CHROMIUM = /const CHROMIUM = '([^']+)'/.exec(readFileSync(join(ROOT, 'test', 'daemon', 'browser.test.ts'), 'utf8'))![1];
    expect(readme).toContain(`else ${DEFAULT_TEST_DATABASE_URL}) and Chromium (\`${CHROMIUM}\`)`);
    expect(readme).toContain('outside CI the tests needing either are skipped with a notice (with `CI` set, a missing PostgreSQL fails the run)');
    expect(readme).toContain('about 30 minutes on two cores');
  });
});

describe('README: the trusted card (issue 38)', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  it('the card shown after "`provenance check --trust-anchors ROOT FILE`:" is that command\'s output, with its trusted line', async () => {
    const cards = [...readme.matchAll(/`provenance check --trust-anchors (\S+) (\S+)`:\n\n```text\n([\s\S]*?)```/g)];
    expect(cards.map(([, root, file]) => [root, file])).toEqual([['docs/trust-example/test-root.pem', 'docs/trust-example/ai-generated.png']]);
    for (const [, root, file, shown] of cards) {
      expect(shown).toMatch(/^ {23}trust {10}trusted: /m);
      const run = await runBin(['check', '--trust-anchors', root!, file!]);
      expect(run.code).toBe(0);
      expectExcerpt(shown!, run.stdout);
      // Without the test root the same file's signer is only a name it gave itself.
      const untrusted = await runBin(['check', file!]);
      expect(untrusted.stdout).toContain(', as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)');
      expect(untrusted.stdout).not.toMatch(/trust {10}trusted:/);
    }
  });
});

describe('README: the AI examples', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  it('the watermark example gets the words the README quotes', async () => {
    expect(readme).toContain('`examples/sdxl-watermark.png` gets `AI mark: SDXL invisible watermark (48/48 bits)`');
    const run = await runBin(['check', 'examples/sdxl-watermark.png']);
    // The verdict, the card's second line, under the file's name.
    expect(run.stdout.split('\n')[1]).toBe('  AI mark: SDXL invisible watermark (48/48 bits)');
    expect(run.stdout).toMatch(/^ {2}invisible_watermark {2}found: invisible watermark: SDXL \(48\/48 bits\)$/m);
  });
});

/** Lines of `shown` other than "…" appear in `real`, in that order, each whole; "…" stands for lines left out. */
function expectExcerpt(shown: string, real: string): void {
  const realLines = real.split('\n');
  let at = 0;
  for (const line of shown.trimEnd().split('\n')) {
    if (line === '…') continue;
    const found = realLines.indexOf(line, at);
    expect(found, `README line not in the real output (in this order): ${line}`).toBeGreaterThanOrEqual(0);
    at = found + 1;
  }
}

describe('README quick start', () => {
  it('leads with exactly the two commands', () => {
    expect(readmeCommands()).toEqual(['npm install && node bin/provenance.js check examples/', 'npm test']);
  });

  it('the first command sets up and checks the examples, showing every kind of result, as the README shows it', () => {
    const run = sh(readmeCommands()[0]!);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('examples/signed.jpg');
    expect(run.stdout).toContain('credential INVALID');
    expect(run.stdout).toContain('EXIF of an Apple iPhone/iPad camera');
    expect(run.stdout).toMatch(/unavailable: The media type application\/octet-stream/);
    expect(run.stdout).toContain('not found');
    expect(run.stdout).toMatch(/\d+ files checked; c2pa found in 4 \(1 invalid\), camera_reference found in 1\b/);
    const shown = /```sh\nnpm install && node bin\/provenance\.js check examples\/\n```[\s\S]*?```text\n([\s\S]*?)```/.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'))?.[1];
    expect(shown, 'the README shows its output').toBeDefined();
    // Its first card opens with the file's verdict (issue 31).
    expect(shown!).toMatch(/^examples\/camera\.jpg\n {2}No AI marker found \(that proves nothing\)\n/m);
    expectExcerpt(shown!, run.stdout);
    // npm's own lines, and no warning a newcomer would have to review (install scripts: allowScripts).
    expect(run.stderr).not.toMatch(/install scripts not yet covered/);
  }, 240_000);

  // How fast a check starts is a bench figure (npm run bench:cold, docs/PERFORMANCE.md), not a
  // bound here: a timed assertion fails on a loaded machine, not on slow code. What this
  // holds is that nothing stands before it: no rebuild (dist/ unchanged), and no read of the
  // standard input, which is left open here (a check that waited on it would never print).
  it('after the install, the check neither rebuilds nor waits on its standard input before its first result', async () => {
    const [, check] = readmeCommands()[0]!.split(' && ') as [string, string];
    const built = statSync(join(copy, 'dist', 'cli.js')).mtimeMs;
    const child = spawn('sh', ['-c', check], { cwd: copy, env: { ...process.env, NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    const firstOutput = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      child.on('error', reject);
      child.on('exit', (code) => reject(new Error(`exited ${code} before printing`)));
    });
    await new Promise((resolve) => child.on('close', resolve));
    expect(child.exitCode).toBe(0);
    expect(firstOutput).toMatch(/^examples\//);
    expect(statSync(join(copy, 'dist', 'cli.js')).mtimeMs).toBe(built);
  }, 60_000);

  it('the second command runs the tests', () => {
    const run = sh(readmeCommands()[1]!, { PROVENANCE_NESTED_TEST: '1', CI: 'true' });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/tests: \d+ passed, 0 failed/);
  }, 240_000);
});
