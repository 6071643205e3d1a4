// `provenance check` when standard output stops taking bytes (issue 18), as real subprocesses of
// the built CLI: a reader that closes the pipe (`| head -1`) ends the run quietly with exit 0; a
// full disk (/dev/full, ENOSPC) is one line on stderr and exit 1, never a stack trace.
// Run `npm run build` first (dist/ is what bin/provenance.js loads).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/corpus.js';

const BIN = join(ROOT, 'bin', 'provenance.js');
const ENOSPC_LINE = 'provenance: cannot write to standard output: no space left on device (ENOSPC)\n';
const HAS_DEV_FULL = existsSync('/dev/full');
if (!HAS_DEV_FULL) console.warn('[cli-output-errors.test] /dev/full is absent: the full-disk cases are SKIPPED');

let dir: string;
let folder: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'prov-output-'));
  folder = join(dir, 'many');
  mkdirSync(folder);
  // 300 files: their NDJSON (about 180 KB) is far more than a pipe holds (64 KB), so the run is
  // still writing when the reader goes away.
  for (let i = 0; i < 300; i++) writeFileSync(join(folder, `f${String(i).padStart(3, '0')}.txt`), `not media ${i}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = { ...process.env, NO_COLOR: '1' };

/** Runs the CLI with stdout on the file descriptor `fd`; resolves with the exit code and stderr. */
function runTo(fd: number, args: string[]): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', fd, 'pipe'] });
    const err: Buffer[] = [];
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr: Buffer.concat(err).toString() }));
  });
}

describe('a closed pipe', () => {
  it('`check --json DIR | head -1` (bash): one complete line reaches head; the CLI exits 0 with nothing on stderr', () => {
    const errFile = join(dir, 'head.err');
    const script = `"${process.execPath}" "${BIN}" check --json "${folder}" 2>"${errFile}" | head -1; echo "status=\${PIPESTATUS[0]}" >&2`;
    const run = spawnSync('bash', ['-c', script], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).source).toBe(join(folder, 'f000.txt'));
    expect(run.stderr.trim()).toBe('status=0');
    expect(spawnSync('cat', [errFile], { encoding: 'utf8' }).stdout).toBe('');
  });

  it('a reader that stops after the first line (the pipe closed from our side)', async () => {
    const child = spawn(process.execPath, [BIN, 'check', '--json', folder], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const err: Buffer[] = [];
    child.stderr.on('data', (c: Buffer) => err.push(c));
    let first = '';
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (c: Buffer) => {
        first += c.toString();
        if (first.includes('\n')) {
          child.stdout.destroy();
          resolve();
        }
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(JSON.parse(first.split('\n')[0]!).source).toBe(join(folder, 'f000.txt'));
    expect(code).toBe(0);
    expect(Buffer.concat(err).toString()).toBe('');
  });
});

describe.skipIf(!HAS_DEV_FULL)('a full disk (/dev/full)', () => {
  it.each([
    ['NDJSON', ['--json']],
    ['the text report', []],
    ['one file', ['--json', '--concurrency', '1']],
  ])('%s: one clear line on stderr, exit 1, no stack trace', async (_name, flags) => {
    const full = openSync('/dev/full', 'w');
    try {
      const inputs = _name === 'one file' ? [join(folder, 'f000.txt')] : [folder];
      const run = await runTo(full, ['check', ...flags, ...inputs]);
      expect(run.signal).toBeNull();
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(ENOSPC_LINE);
    } finally {
      closeSync(full);
    }
  });

  it('--help to a full disk: the same line and exit 1', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const run = await runTo(full, ['check', '--help']);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(ENOSPC_LINE);
    } finally {
      closeSync(full);
    }
  });
});
