// Facts of the contributor's and operator's guides held to what they describe (issue 40, 17 and
// 18): PERFORMANCE.md's pointers name their sections (they said "the last section" of one that is
// no longer last), every bench's gauge is the one PERFORMANCE.md defines and the fleet bench's
// rounds are said with its default, TESTING.md counts the files vitest.config.ts lists, and
// CONTRIBUTING.md's command table has a row for every bench script of package.json.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/corpus.js';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const flat = (file: string) => read(file).replace(/\s+/g, ' ');

describe('docs/PERFORMANCE.md', () => {
  const text = flat('docs/PERFORMANCE.md');

  it('points at sections by name (a link the doc-links test resolves), never by place', () => {
    expect(text).not.toMatch(/\b(?:the )?(?:last|next-to-last|first) section\b/i);
    expect(text).toContain("[the pixel check's section](#the-ai-marks-checks-the-pixel-check-issue-32)");
  });

  it('every bench prints the gauge it defines: SHA-256 of 1.9 MB', () => {
    expect(text).toContain('(scripts/machine-speed.ts: SHA-256 of 1.9 MB, one thread; 1.0 to 1.23 ms when quiet)');
    const bytes = 1957448;
    for (const script of readdirSync(join(ROOT, 'scripts')).filter((f) => /^bench-.*\.ts$/.test(f))) {
      const source = read(`scripts/${script}`);
      for (const [call, argument] of source.matchAll(/sha256Ms\(([^)]*\)?)\)/g)) {
        // A literal buffer is the defined 1.9 MB; a variable is a file the bench names (bench-daemon, bench-store).
        if (/alloc|Uint8Array/.test(argument!)) expect(argument, `${script}: ${call}`).toContain(String(bytes));
      }
    }
    expect(read('scripts/bench-fleet.ts')).toContain(`sha256Ms(Buffer.alloc(${bytes}, 7))`);
  });

  it("the fleet bench's rounds are said with BENCH_RUNS and its default", () => {
    const fallback = /const runs = Number\(process\.env\.BENCH_RUNS \?\? (\d+)\)/.exec(read('scripts/bench-fleet.ts'))![1];
    const section = text.slice(text.indexOf('## Scans past one machine'));
    expect(section).toContain(`\`BENCH_RUNS\` rounds (default ${fallback})`);
    // The fleet bench's figures (up to the queue-choice paragraph): other than the default
    // number of rounds, they say how they were run.
    const fleet = section.slice(0, section.indexOf('**The queue: pg-boss'));
    for (const [phrase, rounds, env] of fleet.matchAll(/(?<!of )\b(\d+) rounds\b(?: \(`BENCH_RUNS=(\d+)`\))?/g)) {
      if (rounds !== fallback) expect(env, phrase).toBe(rounds);
    }
    expect(section).toContain('5 rounds (`BENCH_RUNS=5`)');
  });
});

describe("docs/SCALE.md's queue library", () => {
  it('names the pg-boss release package.json pins', () => {
    const pin = (JSON.parse(read('package.json')) as { dependencies: Record<string, string> }).dependencies['pg-boss']!;
    const [, major, minor] = /^~(\d+)\.(\d+)\.\d+$/.exec(pin)!;
    const scale = flat('docs/SCALE.md');
    expect(scale).toContain(`The queue is pg-boss ${major},`);
    expect(scale).toContain(`so pg-boss is held to ${major}.${minor}.x in package.json`);
  });
});

describe('docs/TESTING.md', () => {
  it('counts the contract and page files vitest.config.ts runs in the dist and postgres projects', () => {
    const config = read('vitest.config.ts');
    const count = (name: string) => {
      const body = new RegExp(`const ${name} = \\[([\\s\\S]*?)\\];`).exec(config)![1]!;
      return [...body.matchAll(/'test\/[^']+\.test\.ts'/g)].length;
    };
    const files = count('CONTRACT_FILES') + count('PAGE_FILES');
    expect(files).toBeGreaterThan(20);
    expect(flat('docs/TESTING.md')).toContain(`the ${files} files (\`CONTRACT_FILES\` and \`PAGE_FILES\`)`);
  });
});

describe("CONTRIBUTING.md's commands", () => {
  it('has a row for every bench script of package.json', () => {
    const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);
    const table = read('CONTRIBUTING.md');
    const benches = scripts.filter((s) => s === 'bench' || s.startsWith('bench:'));
    expect(benches).toContain('bench:fleet');
    expect(benches).toContain('bench:queue-choice');
    for (const bench of benches) expect(table, bench).toMatch(new RegExp(`^\\| \`npm run ${bench}\` \\| `, 'm'));
  });
});
