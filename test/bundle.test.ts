// Cold start: what `provenance` loads before it does anything is dist/cli.js and the chunks it
// imports statically. Heavy packages (ink, react, fastify, conf, the c2pa wasm, file-type) must
// be imported lazily by the runs that need them, never on that static path. Since issue 34 the
// build splits code (scripts/build.mjs: one copy of each module per process), so that path is
// dist/cli.js plus the chunks of code it shares with the lazy parts, and never a lazy part itself.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/corpus.js';

const STATIC_IMPORT = /(?:^|[;}\s])import\s*(?:[\w*{}\s,$]+from\s*)?["']([^"']+)["']/g;

function staticGraph(entry: string): { files: string[]; packages: Set<string> } {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    for (const [, spec] of code.matchAll(STATIC_IMPORT)) {
      if (spec!.startsWith('.')) visit(resolve(dirname(file), spec!));
      else if (!spec!.startsWith('node:')) packages.add(spec!);
    }
  };
  visit(entry);
  return { files: [...seen], packages };
}

describe('dist/cli.js start-up path', () => {
  const graph = staticGraph(join(ROOT, 'dist', 'cli.js'));

  it('imports no package statically (they are bundled or loaded lazily)', () => {
    expect([...graph.packages]).toEqual([]);
  });

  it('is dist/cli.js and shared chunks only: every lazily loaded part stays out of it', () => {
    const [entry, ...rest] = graph.files.map((f) => f.replace(`${ROOT}/`, ''));
    expect(entry).toBe('dist/cli.js');
    for (const file of rest) expect(file).toMatch(/^dist\/lazy\/chunk-[A-Z0-9]+\.js$/);
  });

  it('does not carry the daemon, the progress display or the trust store', () => {
    const code = graph.files.map((f) => readFileSync(f, 'utf8')).join('\n');
    for (const lazy of ['fastify', 'yoga-layout', 'ink', 'lowdb', 'ajv']) {
      expect(code.includes(`from"${lazy}"`) || code.includes(`from "${lazy}"`), lazy).toBe(false);
    }
  });
});

describe('dist/lazy/ui-progress.js, the progress display', () => {
  const graph = staticGraph(join(ROOT, 'dist', 'lazy', 'ui-progress.js'));

  it('has ink and react inside it: no package for the ES module loader to walk, and no other lazy part', () => {
    const [entry, ...rest] = graph.files.map((f) => f.replace(`${ROOT}/`, ''));
    expect(entry).toBe('dist/lazy/ui-progress.js');
    for (const file of rest) expect(file).toMatch(/^dist\/lazy\/chunk-[A-Z0-9]+\.js$/);
    expect([...graph.packages]).toEqual([]);
    expect(readFileSync(graph.files[0]!, 'utf8')).toMatch(/node_modules\/ink\//);
  });

  it("has yoga-layout compile its wasm without fetch (which would load Node's HTTP client)", () => {
    for (const file of graph.files) expect(readFileSync(file, 'utf8')).not.toMatch(/typeof fetch/);
  });
});
