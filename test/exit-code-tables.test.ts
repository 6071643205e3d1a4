// Every table of exit codes says the same codes the code has (issue 34, item 11: 70, which
// bin/provenance.js gives an error no command handles, was in none of them). Held here to
// EXIT (src/commands/io.ts): the README's and docs/CLI.md's tables and `check --help`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../src/commands/io.js';
import { ROOT } from './helpers/corpus.js';
import { runCli } from './helpers/run-cli.js';

const CODES = [...new Set(Object.values(EXIT))].sort((a, b) => a - b);

/** The codes of the markdown table under `heading` (its first column). */
function tableCodes(file: string, heading: string): number[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  expect(at, `${file}: ${heading}`).toBeGreaterThan(0);
  const section = text.slice(at + heading.length + 2).split(/\n## /)[0]!;
  return [...section.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
}

describe('exit codes', () => {
  it('bin/provenance.js gives EXIT.internalError to an error no command handles', () => {
    expect(readFileSync(join(ROOT, 'bin', 'provenance.js'), 'utf8')).toContain(`process.exitCode = ${EXIT.internalError};`);
  });

  it.each([
    ['README.md', '## Exit codes'],
    ['docs/CLI.md', '## Exit codes'],
  ])('%s lists every code, each once', (file, heading) => {
    expect(tableCodes(file, heading)).toEqual(CODES);
  });

  it('check --help lists every code', async () => {
    const help = (await runCli(['check', '--help'])).stdout;
    const listed = [...help.slice(help.indexOf('Exit codes:')).matchAll(/^ {2}(\d+) {2}/gm)].map((m) => Number(m[1]));
    expect(listed).toEqual(CODES);
  });
});
