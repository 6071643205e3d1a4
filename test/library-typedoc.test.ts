// The API reference (`npm run docs:api`, TypeDoc over src/index.ts) is not committed, so nothing
// would notice it rot: a type that a public signature uses but the package does not export, a
// broken {@link}, a comment TypeDoc cannot read. Here it is built with typedoc.json as it stands,
// writing nothing (--emit none still converts and validates), and any warning fails the test.
// Type errors are left to `npm run typecheck` (--skipErrorChecking), which halves the time.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/corpus.js';

const TYPEDOC = join(ROOT, 'node_modules', 'typedoc', 'bin', 'typedoc');

describe('the TypeDoc API reference', () => {
  it('builds from src/index.ts without a warning', () => {
    const run = spawnSync(process.execPath, [TYPEDOC, '--emit', 'none', '--treatWarningsAsErrors', '--skipErrorChecking'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      timeout: 120_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(output).not.toMatch(/\[(warning|error)\]/);
    expect(run.status, output).toBe(0);
  });
});
