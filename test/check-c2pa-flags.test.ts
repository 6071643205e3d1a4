// check --crjson and check --rubric take some of check's flags and refuse the rest (src/cli.ts
// C2PA_OUTPUT_FLAGS, the rest derived from commander's own list): every flag `check --help` lists
// is run beside each of them, and is either taken (exit 0, the file's document printed) or refused
// by name (exit 2, nothing printed). A flag added to check later is in the help, so it is run here
// too, and refused until it is named in C2PA_OUTPUT_FLAGS. The modes' own flags (--trust-list,
// --tsa-trust-list, --validation-time) are test/c2pa-output.test.ts's.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { C2PA_OUTPUT_FLAGS } from '../src/cli.js';
import { makePki, signC2pa, simpleManifest, tinyJpeg } from './fixtures/make.js';
import { runCli } from './helpers/run-cli.js';

const OWN = ['--crjson', '--rubric', '--trust-list', '--tsa-trust-list', '--validation-time'];
const MODES = [['--crjson'], ['--rubric', 'signals']];

let dir: string;
let signed: string;
/** Each flag of `check --help` and whether it takes a value, in the help's order. */
let flags: { flag: string; takesValue: boolean }[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-check-c2pa-flags-'));
  const pki = makePki(join(dir, 'pki'));
  writeFileSync(join(dir, 'root.pem'), pki.rootPem);
  signed = join(dir, 'signed.jpg');
  writeFileSync(signed, await signC2pa(tinyJpeg({ seed: 5 }), 'image/jpeg', simpleManifest('signed.jpg', 'image/jpeg'), pki));
  // An empty list: the file named on the command line is the one input either way.
  writeFileSync(join(dir, 'list.txt'), '');
  const help = await runCli(['check', '--help']);
  flags = [...help.stdout.matchAll(/^ {2}(?:-\w, )?(--[a-z0-9-]+)( <[^>]+>)?/gm)]
    .map((m) => ({ flag: m[1]!, takesValue: m[2] !== undefined }))
    .filter(({ flag }) => flag !== '--help');
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A value commander takes for a flag (its parser checks some); any value will do for the rest. */
function valueOf(flag: string): string {
  const values: Record<string, string> = {
    '--concurrency': '2',
    '--read-timeout': '60',
    '--trust-anchors': join(dir, 'root.pem'),
    '--files-from': join(dir, 'list.txt'),
    '--include': '*.jpg',
    '--exclude': 'nothing-*',
    '--html': join(dir, 'report.html'),
    '--fail-on': 'c2pa=found',
    '--checks': 'c2pa',
    '--catalogue': 'full',
    '--cache-max': '1GB',
  };
  return values[flag] ?? 'x';
}

it("the help lists check's flags, and every flag taken with --crjson/--rubric is one of them", () => {
  const names = flags.map((f) => f.flag);
  expect(names.length).toBeGreaterThan(25);
  for (const flag of [...C2PA_OUTPUT_FLAGS, ...OWN]) expect(names, flag).toContain(flag);
});

describe.each(MODES)('check %s', (...mode) => {
  it('beside every other flag of check: the flag is taken, or refused by name with exit 2', async () => {
    const seen = { taken: [] as string[], refused: [] as string[] };
    for (const { flag, takesValue } of flags.filter(({ flag }) => !OWN.includes(flag))) {
      const run = await runCli(['check', ...mode, flag, ...(takesValue ? [valueOf(flag)] : []), signed]);
      if (C2PA_OUTPUT_FLAGS.has(flag)) {
        expect({ flag, code: run.code, stderr: run.stderr }).toEqual({ flag, code: 0, stderr: '' });
        const lines = run.stdout.trimEnd().split('\n');
        expect(lines, flag).toHaveLength(1);
        const doc = JSON.parse(lines[0]!);
        if (mode[0] === '--rubric') expect(doc.rubricName, flag).toBe('C2PA Asset Signals Rubric (Local)');
        else expect(doc.manifests, flag).toHaveLength(1);
        seen.taken.push(flag);
      } else {
        expect({ flag, code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
          flag,
          code: 2,
          stdout: '',
          stderr: `provenance: ${flag} does not go with ${mode[0]}, which prints one JSON document per file with a manifest, read on this machine.\n`,
        });
        seen.refused.push(flag);
      }
    }
    // The readable check's own flags are among those refused, and what is taken is all there is.
    expect(seen.refused).toEqual(expect.arrayContaining(['--json', '--html', '--remote', '--incremental', '--fail-on', '--summary', '--explain', '--checks', '--catalogue', '--cache-max', '--allow-empty']));
    expect([...seen.taken, ...OWN].sort()).toEqual([...C2PA_OUTPUT_FLAGS].sort());
  }, 120_000);
});

it('two refused flags are named together, in the order of the help', async () => {
  const run = await runCli(['check', '--crjson', '--summary', '--checks', 'c2pa', '--json', signed]);
  expect(run.code).toBe(2);
  expect(run.stderr).toBe('provenance: --checks, --json, --summary do not go with --crjson, which prints one JSON document per file with a manifest, read on this machine.\n');
});
