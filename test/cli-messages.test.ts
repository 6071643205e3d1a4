// What a new user meets (issue 17): every error one `provenance: ...` line that says what to do,
// and CI gates that cannot pass unseen. Real files, the CLI in-process or as a subprocess.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commanderErrorLine } from '../src/cli.js';
import { localScanBounds } from '../src/commands/check-gates.js';
import { MAX_WORKERS_PER_CORE, SCAN_BATCH, WINDOW_PER_CORE } from '../src/library/scan-pool.js';
import { makePki, tinyJpeg } from './fixtures/make.js';
import { ROOT } from './helpers/corpus.js';
import { parseLines, runBin, runCli, type CliRun } from './helpers/run-cli.js';
import { HAS_SCRIPT, runInTerminal, shellQuote } from './helpers/terminal.js';
import { CAN_RUN_UNPRIVILEGED, runUnprivileged } from './helpers/unprivileged.js';

let dir: string;
let anchorPem: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'prov-messages-'));
  chmodSync(dir, 0o755); // the unprivileged runs below must reach into it
  mkdirSync(join(dir, 'photos', 'raw'), { recursive: true });
  writeFileSync(join(dir, 'photos', 'IMG_1.JPG'), tinyJpeg({ seed: 1 }));
  writeFileSync(join(dir, 'photos', 'b.jpg'), tinyJpeg({ seed: 2 }));
  writeFileSync(join(dir, 'photos', 'raw', 'C.Jpeg'), tinyJpeg({ seed: 3 }));
  mkdirSync(join(dir, 'empty'));
  anchorPem = join(dir, 'anchor.pem');
  writeFileSync(anchorPem, makePki(join(dir, 'pki')).rootPem);
  chmodSync(anchorPem, 0o644);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const names = (run: CliRun) => parseLines(run.stdout).map((l) => l.source.slice(dir.length + 1));

describe.skipIf(!CAN_RUN_UNPRIVILEGED)('a config folder that cannot be written (points 9, 10)', () => {
  it('config set / unset: one line naming the file and what to do, exit 1, no stack trace', async () => {
    const cfg = join(dir, 'cfg-ro');
    mkdirSync(cfg);
    for (const args of [['config', 'set', 'cache', 'false'], ['config', 'unset', 'cache']]) {
      const run = await runUnprivileged(args, { PROVENANCE_CONFIG_DIR: cfg, HOME: dir }, cfg, dir);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toBe(`provenance: cannot write ${join(cfg, 'config.json')}: permission denied. Make ${cfg} writable, or set PROVENANCE_CONFIG_DIR to a folder you can write.\n`);
    }
  });

  it('trust add: a permission problem, not a "damaged" file', async () => {
    const cfg = join(dir, 'cfg-ro-trust');
    mkdirSync(cfg);
    const run = await runUnprivileged(['trust', 'add', anchorPem], { PROVENANCE_CONFIG_DIR: cfg, HOME: dir }, cfg, dir);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/damaged/);
    expect(run.stderr).toBe(`provenance: cannot write ${join(cfg, 'trust-anchors.json')}: permission denied. Make ${cfg} writable, or set PROVENANCE_CONFIG_DIR to a folder you can write.\n`);
  });
});

describe('settings are checked when they are set (point 18)', () => {
  it('config set trust_anchors refuses a file that is missing or not PEM, and keeps a good one', async () => {
    const cfg = mkdtempSync(join(tmpdir(), 'prov-messages-cfg-'));
    const env = { PROVENANCE_CONFIG_DIR: cfg };
    const missing = await runCli(['config', 'set', 'trust_anchors', '/nonexistent.pem'], undefined, env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('provenance: trust_anchors: /nonexistent.pem cannot be read: no such file. Nothing was changed.\n');
    const notPem = await runCli(['config', 'set', 'trust_anchors', join(dir, 'photos', 'b.jpg')], undefined, env);
    expect(notPem.code).toBe(2);
    expect(notPem.stderr).toMatch(/^provenance: trust_anchors: .*b\.jpg is not a PEM certificate file/);
    expect((await runCli(['config', 'get', 'trust_anchors'], undefined, env)).code).toBe(1); // still unset
    // And so every later check still works.
    expect((await runCli(['check', '--json', join(dir, 'photos', 'b.jpg')], undefined, env)).code).toBe(0);
    const good = await runCli(['config', 'set', 'trust_anchors', anchorPem], undefined, env);
    expect(good.code, good.stderr).toBe(0);
    expect((await runCli(['config', 'get', 'trust_anchors'], undefined, env)).stdout).toBe(`${anchorPem}\n`);
    rmSync(cfg, { recursive: true, force: true });
  });
});

describe('inputs a user can act on (points 11, 13)', () => {
  it('an http:// URL checked on this machine says that only https:// is read (and nothing is requested)', async () => {
    // https:// URLs are read here (test/https-source.test.ts); an address nothing listens on, in case.
    const run = await runCli(['check', '--json', 'http://127.0.0.1:9/photo.jpg']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'provenance: http://127.0.0.1:9/photo.jpg: not read: only https:// URLs are checked on this machine (over http:// anyone on the way could change the bytes checked); give its https:// address.\n',
    );
  });

  it('a broken symbolic link is named as one, with where it points', async () => {
    const link = join(dir, 'broken-link.jpg');
    symlinkSync(join(dir, 'gone.jpg'), link);
    const run = await runCli(['check', '--json', link]);
    expect(parseLines(run.stdout)[0].error).toEqual({
      type: 'not_found',
      message: `${link}: a broken symbolic link (it points to ${join(dir, 'gone.jpg')}, which does not exist).`,
    });
    const missing = await runCli(['check', '--json', join(dir, 'nothing-here.jpg')]);
    expect(parseLines(missing.stdout)[0].error.message).toBe(`${join(dir, 'nothing-here.jpg')}: no such file or folder.`);
  });

  it('file_too_large states the 2 GiB limit (a sparse file, no disk used)', async () => {
    const big = join(dir, 'big.bin');
    writeFileSync(big, '');
    truncateSync(big, 2 ** 31 + 1);
    try {
      const run = await runCli(['check', '--json', big]);
      expect(parseLines(run.stdout)[0].error).toEqual({ type: 'file_too_large', message: `${big}: the file is 2 GiB or larger; a check reads files smaller than 2 GiB.` });
    } finally {
      rmSync(big);
    }
  });

  it('a damaged trust-anchors file is reported on one line', async () => {
    const cfg = mkdtempSync(join(tmpdir(), 'prov-messages-cfg-'));
    // JSON.parse quotes the text it failed on, line breaks and all: `Unexpected token 'o', "{...\n oops" ...`.
    writeFileSync(join(cfg, 'trust-anchors.json'), '{"anchors": [\n oops');
    const run = await runCli(['trust', 'list'], undefined, { PROVENANCE_CONFIG_DIR: cfg });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^provenance: \S+trust-anchors\.json is damaged \(.+\): fix it or delete it and add the anchors again\.\n$/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    rmSync(cfg, { recursive: true, force: true });
  });

  it("commander's own errors read like the tool's: one `provenance:` line naming the command's --help", async () => {
    const unknownOption = await runCli(['check', '--bogus', 'x']);
    expect(unknownOption).toMatchObject({ code: 2, stderr: "provenance: unknown option '--bogus'. See `provenance check --help`.\n" });
    const unknownCommand = await runCli(['chek']);
    expect(unknownCommand).toMatchObject({ code: 2, stderr: "provenance: unknown command 'chek'. Did you mean check? See `provenance --help`.\n" });
    const missingArgument = await runCli(['trust', 'add']);
    expect(missingArgument).toMatchObject({ code: 2, stderr: "provenance: missing required argument 'file'. See `provenance trust add --help`.\n" });
    const badValue = await runCli(['check', '--concurrency', 'x', 'a']);
    expect(badValue.stderr).toBe("provenance: option '--concurrency <n>' argument 'x' is invalid. A whole number from 1 to 256 is needed. See `provenance check --help`.\n");
    expect(commanderErrorLine("error: unknown option '--x'\n(Did you mean one of --a, --b?)\n", 'provenance daemon start')).toBe(
      "provenance: unknown option '--x'. Did you mean one of --a, --b? See `provenance daemon start --help`.\n",
    );
  });
});

describe('CI gates that cannot pass unseen (points 14, 15)', () => {
  it('--fail-on naming a check that does not run is a usage error', async () => {
    const run = await runCli(['check', '--fail-on', 'c2pa=not_found', '--checks', 'camera_reference', join(dir, 'photos')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'provenance: --fail-on c2pa=not_found: the c2pa check does not run (--checks camera_reference), so it could never fire; add c2pa to --checks.\n',
    );
    expect(run.stdout).toBe('');
    const ok = await runCli(['check', '--json', '--fail-on', 'c2pa=found', '--checks', 'c2pa,camera_reference', join(dir, 'photos')]);
    expect(ok.code).toBe(0);
  });

  it('a scan that checks no file says so on stderr; exit 0 without a gate', async () => {
    const run = await runCli(['check', '--json', join(dir, 'empty')]);
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: 'provenance: no file was checked: the inputs held no files.\n' });
    const typo = await runCli(['check', '--json', '--include', '*.jgp', join(dir, 'photos')]);
    expect(typo).toMatchObject({ code: 0, stderr: 'provenance: no file was checked: the inputs held no files (do --include/--exclude match any file?).\n' });
  });

  it('with --fail-on, no file checked is exit 4 unless --allow-empty', async () => {
    const gate = await runCli(['check', '--json', '--fail-on', 'c2pa=not_found', join(dir, 'empty')]);
    expect(gate.code).toBe(4);
    expect(gate.stderr).toBe('provenance: no file was checked: the inputs held no files. With --fail-on that is exit 4 (--allow-empty to accept it).\n');
    const allowed = await runCli(['check', '--json', '--fail-on', 'c2pa=not_found', '--allow-empty', join(dir, 'empty')]);
    expect(allowed.code).toBe(0);
    // Only unreadable inputs: still nothing checked, so the gate fails too.
    const unreadable = await runCli(['check', '--json', '--fail-on', 'c2pa=found', join(dir, 'nothing-here.jpg')]);
    expect(unreadable.code).toBe(4);
    expect(unreadable.stderr).toMatch(/no file was checked: with --fail-on that is exit 4/);
  });
});

describe('globs ignore letter case by default (point 16)', () => {
  it('--include *.jpg finds IMG_1.JPG and C.Jpeg; --case-sensitive opts out', async () => {
    const any = await runCli(['check', '--json', '--include', '*.jpg', '--include', '*.jpeg', join(dir, 'photos')]);
    expect(names(any)).toEqual(['photos/IMG_1.JPG', 'photos/b.jpg', 'photos/raw/C.Jpeg']);
    const exact = await runCli(['check', '--json', '--case-sensitive', '--include', '*.jpg', join(dir, 'photos')]);
    expect(names(exact)).toEqual(['photos/b.jpg']);
    const excluded = await runCli(['check', '--json', '--exclude', 'RAW/**', join(dir, 'photos')]);
    expect(names(excluded)).toEqual(['photos/IMG_1.JPG', 'photos/b.jpg']);
  });
});

describe('worker threads are capped (point 17)', () => {
  it('--concurrency over 4 per core uses 4 per core, with one line saying so; results unchanged', async () => {
    const cap = 4 * availableParallelism();
    const run = await runBin(['check', '--json', '--concurrency', '256', join(dir, 'photos')]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(`provenance: --concurrency 256 is more than 4 worker threads per core; using ${cap} (${availableParallelism()} cores).\n`);
    expect(names(run)).toEqual(['photos/IMG_1.JPG', 'photos/b.jpg', 'photos/raw/C.Jpeg']);
    const within = await runBin(['check', '--json', '--concurrency', String(cap), join(dir, 'photos')]);
    expect(within.stderr).toBe('');
  });

  it('the files in flight depend on the cores, never on the worker count, so memory stays flat', () => {
    // The bound runCheck uses (check.ts), for every --concurrency on machines of several sizes:
    // no timing, the numbers themselves. One worker checks in this thread, one file at a time.
    for (const cores of [1, 2, 3, 8, 64]) {
      const cap = MAX_WORKERS_PER_CORE * cores;
      const windows = new Set<number>();
      for (let requested = 2; requested <= 256; requested++) {
        const { workers, inFlight } = localScanBounds(requested, cores);
        expect(workers, `${requested} on ${cores} cores`).toBe(Math.min(requested, cap));
        windows.add(inFlight);
      }
      expect([...windows], `${cores} cores`).toEqual([WINDOW_PER_CORE * cores]);
      expect(localScanBounds(1, cores)).toEqual({ workers: 1, inFlight: 1 });
    }
    // And no worker at the cap waits for want of files: each can have a batch of eight under way.
    expect(WINDOW_PER_CORE).toBeGreaterThanOrEqual(MAX_WORKERS_PER_CORE * SCAN_BATCH);
  });
});

describe.skipIf(!HAS_SCRIPT)('standard input on a terminal (point 22)', () => {
  it('`check -` says it reads standard input until Ctrl-D, then checks what was typed', async () => {
    let typing: NodeJS.Timeout | undefined;
    // `timeout` bounds the run should the line never come (the old code waited in silence).
    // --foreground: without it `timeout` may put node in a process group of its own, in the
    // terminal's background, where reading the terminal stops it (SIGTTIN) until the bound.
    // Ctrl-D is typed again every second until the run ends (at most 15 times): one ^D that
    // reaches the terminal before anything reads it has been seen lost once in CI, and an
    // extra ^D after the end of input changes nothing.
    const run = await runInTerminal(`timeout --foreground -k 2 20 node ${shellQuote(join(ROOT, 'bin', 'provenance.js'))} check --json -`, (output, type) => {
      if (!typing && output.includes('Ctrl-D')) {
        let times = 0;
        type('\x04');
        typing = setInterval(() => {
          if (++times >= 15) clearInterval(typing);
          else type('\x04');
        }, 1000);
      }
    }, { NO_COLOR: '1' }, 40_000).finally(() => clearInterval(typing));
    expect(run.output).toContain('provenance: reading the file from standard input (the terminal) until Ctrl-D.');
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/"source":"-"/);
  });

  it('Ctrl-C while `check -` waits for the terminal ends the run at once (exit 130), not at a second Ctrl-C', async () => {
    let typed = false;
    // No `timeout` here (the run's bound is runInTerminal's): it would pass the terminal's SIGINT
    // on to node a second time, and a second Ctrl-C rightly ends the run without its last line.
    const run = await runInTerminal(`node ${shellQuote(join(ROOT, 'bin', 'provenance.js'))} check --json -`, (output, type) => {
      if (!typed && output.includes('Ctrl-D')) {
        typed = true;
        type('\x03');
      }
    }, { NO_COLOR: '1' }, 40_000);
    expect(run.code, run.output).toBe(130);
    expect(run.output).toContain('provenance: interrupted after 0 inputs; every line written is complete.');
    expect(run.output).not.toMatch(/"source"/);
  });
});
