// Cold start: what `provenance` loads before it does anything is dist/cli.js and the chunks it
// imports statically. Heavy packages (ink, react, fastify, conf, the c2pa wasm, file-type) must
// be imported lazily by the runs that need them, never on that static path.
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

  it('is one file: every lazily loaded part is a bundle of its own in dist/lazy/', () => {
    expect(graph.files.map((f) => f.replace(`${ROOT}/`, ''))).toEqual(['dist/cli.js']);
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

  it('is one file with ink and react inside it: no package for the ES module loader to walk', () => {
    expect(graph.files.map((f) => f.replace(`${ROOT}/`, ''))).toEqual(['dist/lazy/ui-progress.js']);
    expect([...graph.packages]).toEqual([]);
  });

  it("has yoga-layout compile its wasm without fetch (which would load Node's HTTP client)", () => {
    expect(readFileSync(graph.files[0]!, 'utf8')).not.toMatch(/typeof fetch/);
  });
});
