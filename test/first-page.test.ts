// What a newcomer meets first (issue 24): help and its exit codes, help text that says what it
// means, one-sentence errors where Node's raw ones were, paths a shell user means, a daemon start
// that fails before it leaves anything behind, and library errors that print their message, not
// a page of bundle. Real files; the CLI in-process, or as a subprocess where the process matters.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProvenanceClient } from '../src/client/provenance-client.js';
import { makePki, tinyJpeg } from './fixtures/make.js';
import { ROOT } from './helpers/corpus.js';
import { parseLines, runBin, runCli } from './helpers/run-cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'prov-first-page-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('help: asked for on stdout with exit 0; shown for a missing subcommand on stderr with exit 2', () => {
  it.each(['daemon', 'cache', 'trust', 'config', 'help nope', ''])('provenance %s', async (args) => {
    const run = await runCli(args ? args.split(' ') : []);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^Usage: provenance/);
  });

  it.each(['help daemon', 'daemon --help', 'help', '--help', 'check --help'])('provenance %s', async (args) => {
    const run = await runCli(args.split(' '));
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^Usage: provenance/);
  });

  it('check --help shows no empty defaults, none twice, and says what --quiet hides', async () => {
    const help = (await runCli(['check', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).not.toContain('(default: false)');
    expect(help).not.toContain('(default: [])');
    expect(help).not.toMatch(/\(default: [^)]*\) \(default:/);
    expect(help).toContain('--case-sensitive --include/--exclude match letter case exactly (without it, *.jpg also matches IMG_1.JPG)');
    expect(help).toContain('-q, --quiet no progress display and no closing table on stderr');
  });

  it('daemon clock and daemon requests, which need a running daemon, offer no --store', async () => {
    for (const command of ['clock', 'requests']) {
      const help = (await runCli(['daemon', command, '--help'])).stdout.replace(/\s+/g, ' ');
      expect(help, command).not.toContain('--store');
      expect(help, command).toContain("--data-dir <dir> the running daemon's data directory");
      const run = await runCli(['daemon', command, '--store', 'postgres://db.invalid/x']);
      expect(run.code, command).toBe(2);
      expect(run.stderr, command).toBe(`provenance: unknown option '--store'. See \`provenance daemon ${command} --help\`.\n`);
    }
  });
});

describe('errors in the words the rest of the CLI uses', () => {
  it('daemon seed / import of a missing file: "no such file", not ENOENT', async () => {
    for (const [command, what] of [['seed', 'fixture file'], ['import', 'state file']] as const) {
      const run = await runCli(['daemon', command, 'nope.json', '--data-dir', join(dir, 'data-seed')]);
      expect(run.code, command).toBe(2);
      expect(run.stderr, command).toBe(`provenance: cannot read the ${what} nope.json: no such file.\n`);
    }
  });

  it('symbolic links that point at each other are a symlink_loop, named or found in a walk', async () => {
    const loops = join(dir, 'loops');
    mkdirSync(loops);
    symlinkSync('b.jpg', join(loops, 'a.jpg'));
    symlinkSync('a.jpg', join(loops, 'b.jpg'));
    writeFileSync(join(loops, 'ok.jpg'), tinyJpeg({ seed: 1 }));
    const named = await runCli(['check', '--json', join(loops, 'a.jpg')]);
    expect(named.code).toBe(1);
    expect(parseLines(named.stdout)[0].error).toEqual({
      type: 'symlink_loop',
      message: `${join(loops, 'a.jpg')}: symbolic links that lead back to themselves (or too many in a row); no file at the end.`,
    });
    const walked = parseLines((await runCli(['check', '--json', loops])).stdout);
    expect(walked.map((l) => [l.source.slice(loops.length + 1), l.error?.type ?? l.media.type])).toEqual([
      ['a.jpg', 'symlink_loop'],
      ['b.jpg', 'symlink_loop'],
      ['ok.jpg', 'image/jpeg'],
    ]);
  });

  it('a file whose name is not valid UTF-8 is not called missing: it is checked, its name escaped (more in byte-paths.test.ts)', async () => {
    const odd = join(dir, 'odd');
    mkdirSync(odd);
    writeFileSync(Buffer.concat([Buffer.from(`${odd}/bad`), Buffer.from([0xff]), Buffer.from('name.png')]), tinyJpeg({ seed: 2 }));
    const [line] = parseLines((await runCli(['check', '--json', odd])).stdout);
    expect(line.source).toBe(join(odd, 'bad\\xffname.png'));
    expect(line.error).toBeUndefined();
    expect(line.media.type).toBe('image/jpeg');
  });

  it('a path over the system limit: one sentence, the path shortened, not the raw ENAMETOOLONG', async () => {
    const long = join(dir, `${'n'.repeat(250)}/`.repeat(20), 'photo.jpg');
    const run = await runCli(['check', '--json', long]);
    expect(run.code).toBe(1);
    const [line] = parseLines(run.stdout);
    expect(line.source).toBe(long);
    expect(line.error.type).toBe('read_error');
    expect(line.error.message.length).toBeLessThan(300);
    expect(line.error.message).toMatch(/^\/.{119}….{60}: the path is longer than the system allows \(\d+ bytes\)\.$/);
    expect(line.error.message).not.toContain('ENAMETOOLONG');
    // The readable report heads the file with the path shortened the same way (the JSON source
    // above keeps it whole: a pipeline needs the file's identity): no line of 5 KB.
    const readable = await runCli(['check', long]);
    expect(readable.code).toBe(1);
    const lines = readable.stdout.split('\n');
    expect(lines[0]).toBe(`${long.slice(0, 120)}…${long.slice(-60)}`);
    for (const text of lines) expect(text.length).toBeLessThan(300);
  });

  it('a file of exactly 2 GiB is file_too_large, and the message says so (a sparse file, no disk used)', async () => {
    const big = join(dir, 'two-gib.bin');
    writeFileSync(big, '');
    truncateSync(big, 2 ** 31);
    try {
      const run = await runCli(['check', '--json', big]);
      expect(parseLines(run.stdout)[0].error).toEqual({ type: 'file_too_large', message: `${big}: the file is 2 GiB or larger; a check reads files smaller than 2 GiB.` });
    } finally {
      rmSync(big);
    }
  });

  it("new ProvenanceClient with no baseUrl suggests the daemon's own port, 8787", () => {
    expect(() => new ProvenanceClient({} as never)).toThrow(/e\.g\. http:\/\/127\.0\.0\.1:8787 \(the port `provenance daemon start` listens on\)/);
  });
});

describe('paths a shell user means', () => {
  it('config set trust_anchors takes a relative path from the working directory and stores it absolute', async () => {
    const work = join(dir, 'work');
    const config = join(dir, 'config-rel');
    mkdirSync(work);
    mkdirSync(config);
    writeFileSync(join(work, 'anchors.pem'), makePki(join(dir, 'pki')).rootPem);
    const env = { PROVENANCE_CONFIG_DIR: config };
    const set = await runBin(['config', 'set', 'trust_anchors', 'anchors.pem'], { cwd: work, env });
    expect(set.stderr).toBe('');
    expect(set.code).toBe(0);
    const got = await runBin(['config', 'get', 'trust_anchors'], { cwd: ROOT, env });
    expect(got.stdout).toBe(`${join(work, 'anchors.pem')}\n`);
    // From elsewhere, the same file: the stored anchors are used.
    const list = await runBin(['trust', 'list'], { cwd: ROOT, env });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(join(work, 'anchors.pem'));
  });
});

describe('a daemon start that fails leaves nothing behind', () => {
  let busy: Server;
  let port: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('--fixtures on a port in use: exit 1, one line, no data dir made and no fixture applied', async () => {
    const data = join(dir, 'never-made');
    const fixtures = join(dir, 'fixtures.json');
    writeFileSync(fixtures, JSON.stringify({ accounts: [{ email: 'ci@example.com' }] }));
    const run = await runCli(['daemon', 'start', '--port', String(port), '--data-dir', data, '--fixtures', fixtures, '--test-mode']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`provenance: port ${port} on 127.0.0.1 is in use by another program: stop it, or choose another --port (0 picks a free one).\n`);
    expect(existsSync(data)).toBe(false);
  });
});

describe('the name that is ours', () => {
  it('the package is provenance-check (the registry\'s `provenance` is another package); the command is still provenance', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('provenance-check');
    expect(pkg.bin).toEqual({ provenance: 'bin/provenance.js' });
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
    expect([lock.name, lock.packages[''].name]).toEqual(['provenance-check', 'provenance-check']);
    expect(JSON.parse(readFileSync(join(ROOT, 'typedoc.json'), 'utf8')).name).toBe('provenance-check');
  });
});

describe('npm install shows a newcomer no warning to review', () => {
  // npm 11 lists packages whose install scripts it holds back; package.json's allowScripts says
  // they were reviewed (esbuild, lmdb and msgpackr-extract load prebuilt binaries without them).
  const listed = spawnSync('npm', ['install-scripts', 'ls'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_offline: 'true' } });
  const hasCommand = listed.status === 0;
  it.skipIf(!hasCommand)('npm install-scripts ls: nothing unreviewed', () => {
    expect(listed.stdout.trim()).toBe('No packages with unreviewed install scripts.');
  });
  it('package.json denies the three scripts, by name', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.allowScripts).toEqual({ esbuild: false, lmdb: false, 'msgpackr-extract': false });
  });
});

describe('an uncaught library error', () => {
  it('prints its source line and message, not a page of minified bundle', () => {
    const scratch = join(ROOT, 'test', '.tmp', `first-page-${process.pid}`);
    mkdirSync(scratch, { recursive: true });
    const file = join(scratch, 'uncaught.mjs');
    writeFileSync(file, "import { check } from 'provenance-check';\nawait check('examples/does-not-exist.jpg');\n");
    try {
      const run = spawnSync(process.execPath, [file], { cwd: ROOT, encoding: 'utf8' });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('InputError: examples/does-not-exist.jpg: no such file or folder.');
      expect(run.stderr.length).toBeLessThan(4000);
      expect(Math.max(...run.stderr.split("\n").map((l) => l.length))).toBeLessThan(1000);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('dist/ stays readable: no line of the CLI or library bundles is longer than a few KB', () => {
    for (const file of ['dist/cli.js', 'dist/index.js', 'dist/detect-worker.js']) {
      const longest = Math.max(...readFileSync(join(ROOT, file), 'utf8').split('\n').map((l) => l.length));
      expect(longest, file).toBeLessThan(8000);
    }
  });
});
