// `provenance check` on a real pseudo-terminal (util-linux `script`) and under a real Ctrl-C:
// one file gets its report and nothing else, a folder scan ends with the table on a clean
// screen, and an interrupted scan leaves the terminal clean and every NDJSON line written whole.
import { spawn } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLE_MAKER_NOTE, exifApp1, tinyJpeg } from './fixtures/make.js';
import { ROOT } from './helpers/corpus.js';
import { parseLines } from './helpers/run-cli.js';
import { makeSignedSet, type SignedSet } from './helpers/signed.js';
import { HAS_SCRIPT, replay, runInTerminal, shellQuote } from './helpers/terminal.js';

const BIN = join(ROOT, 'bin', 'provenance.js');
const FRAME = /files \| [\d.]+ files\/s/;
const INTERRUPTED = /^provenance: interrupted after (\d+) inputs?; every line written is complete\.$/;

let dir: string;
let signed: SignedSet;

beforeAll(async () => {
  signed = await makeSignedSet();
  dir = mkdtempSync(join(tmpdir(), 'prov-terminal-'));
  writeFileSync(join(dir, 'one.jpg'), tinyJpeg({ seed: 1, exif: exifApp1({ make: 'Apple', makerNote: APPLE_MAKER_NOTE }) }));
  mkdirSync(join(dir, 'small'));
  for (let i = 0; i < 5; i++) writeFileSync(join(dir, 'small', `p${i}.jpg`), tinyJpeg({ seed: 10 + i }));
  // A scan that lasts several seconds on any machine: one signed file under 3,000 names (hard
  // links, so no disk space), each read through c2pa-rs.
  const source = join(dir, 'signed.jpg');
  writeFileSync(source, signed.jpeg);
  mkdirSync(join(dir, 'long'));
  for (let i = 0; i < 3000; i++) linkSync(source, join(dir, 'long', `s${String(i).padStart(4, '0')}.jpg`));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  signed?.cleanup();
});

const check = (args: string) => `exec ${shellQuote(process.execPath)} ${shellQuote(BIN)} check ${args}`;
const nonEmpty = (lines: string[]) => lines.filter((l) => l.trim() !== '');

describe.skipIf(!HAS_SCRIPT)('check on a terminal', () => {
  it('one file: its report and nothing else, no progress display and no table', async () => {
    const run = await runInTerminal(check(shellQuote(join(dir, 'one.jpg'))));
    expect(run.code).toBe(0);
    const screen = nonEmpty(replay(run.output).lines);
    expect(screen[0]).toContain('one.jpg');
    expect(screen.join('\n')).toMatch(/camera_reference\s+found/);
    expect(screen.join('\n')).not.toMatch(FRAME);
    expect(screen.join('\n')).not.toMatch(/^check\s+found\s+not found/m);
  });

  it('a short scan ends with the table, without ever drawing the display', async () => {
    const run = await runInTerminal(`${check(`--json ${shellQuote(join(dir, 'small'))}`)} > /dev/null`);
    expect(run.code).toBe(0);
    expect(run.output).not.toMatch(FRAME);
    expect(nonEmpty(replay(run.output).lines)).toEqual([
      expect.stringMatching(/^5 checked · 0 unreadable · [\d.]+ s · \d+ files\/s$/),
      'check                   found  not found  unavailable',
      'c2pa                        0          5            0',
      'watermark_a                 0          0            5',
      'watermark_b                 0          0            5',
      'open_content_seal           0          0            5',
      'camera_reference            0          5            0',
      'generator_metadata          0          5            0',
      'invisible_watermark         0          5            0',
    ]);
  });

  it('a long scan draws the display, then replaces it with the table, cursor shown', async () => {
    const out = join(dir, 'long.ndjson');
    const run = await runInTerminal(`${check(`--json ${shellQuote(join(dir, 'long'))} --concurrency 2`)} > ${shellQuote(out)}`);
    expect(run.code).toBe(0);
    expect(run.output).toMatch(FRAME);
    const screen = replay(run.output);
    expect(screen.cursorVisible).toBe(true);
    expect(screen.lines.join('\n')).not.toMatch(FRAME);
    expect(nonEmpty(screen.lines)[0]).toMatch(/^3,000 checked · 0 unreadable/);
    expect(parseLines(readFileSync(out, 'utf8'))).toHaveLength(3000);
  });

  it('Ctrl-C: exit 130, the display erased, the cursor shown, every line written whole', async () => {
    const out = join(dir, 'interrupted.ndjson');
    let typed = false;
    const run = await runInTerminal(`${check(`--json ${shellQuote(join(dir, 'long'))} --concurrency 2`)} > ${shellQuote(out)}`, (output, type) => {
      if (!typed && FRAME.test(output)) {
        typed = true;
        type('\x03');
      }
    });
    expect(typed).toBe(true);
    expect(run.code).toBe(130);
    const screen = replay(run.output);
    expect(screen.cursorVisible).toBe(true);
    const shown = nonEmpty(screen.lines);
    expect(shown).toHaveLength(1);
    const done = Number(INTERRUPTED.exec(shown[0]!)?.[1]);
    const lines = readFileSync(out, 'utf8').split('\n');
    expect(lines.pop()).toBe(''); // ends with a whole line
    expect(lines.length).toBe(done);
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(3000);
    for (const line of lines) expect(JSON.parse(line).media.type).toBe('image/jpeg');
  });
});

describe('check interrupted without a terminal', () => {
  it('SIGINT while writing to a pipe: exit 130, a note on stderr, every line written whole', async () => {
    const child = spawn(process.execPath, [BIN, 'check', '--json', join(dir, 'long')], { env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
      // A few hundred lines in, so that some are written and many are still to come.
      if (!sent && stdout.split('\n').length > 200) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(sent).toBe(true);
    expect(code).toBe(130);
    const done = Number(INTERRUPTED.exec(stderr.trim())?.[1]);
    const lines = stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.length).toBe(done);
    expect(done).toBeLessThan(3000);
    for (const line of lines) expect(JSON.parse(line).matches).toHaveLength(7);
  });
});
