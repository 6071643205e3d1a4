// The house rules (docs/ARCHITECTURE.md, .dependency-cruiser.cjs): imports go down only and never
// in a circle. The first test holds src/ to them; the others show on a small tree that the check
// really fails on an upward import, a circle, a daemon room reaching up, lowdb or pg outside the
// store, and a room importing what its row of the table does not allow.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/corpus.js';

const run = promisify(execFile);
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

async function cruise(cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG, '--output-type', 'err'], { cwd });
    return { code: 0, output: stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('layering check', () => {
  it('src/ has no upward import and no circle', async () => {
    const { code, output } = await cruise(ROOT);
    expect(output).toContain('no dependency violations found');
    expect(code).toBe(0);
  });

  const scratch = mkdtempSync(join(tmpdir(), 'prov-layers-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  function tree(name: string, files: Record<string, string>): string {
    const dir = join(scratch, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'tsconfig.json'), '{"compilerOptions":{"module":"NodeNext","moduleResolution":"NodeNext"}}');
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  }

  it('fails on an upward import (media -> engine)', async () => {
    const dir = tree('upward', {
      'src/types.ts': 'export type T = 1;\n',
      'src/engine/run.ts': "import type { T } from '../types.js';\nexport const run = (t: T) => t;\n",
      'src/media/read.ts': "import { run } from '../engine/run.js';\nexport const read = run;\n",
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain('media-is-the-floor: src/media/read.ts → src/engine/run.ts');
  });

  it('fails on an import circle', async () => {
    const dir = tree('circle', {
      'src/daemon/accounts/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/daemon/accounts/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain('no-circular');
  });

  it('fails on a daemon room reaching up (store -> http)', async () => {
    const dir = tree('daemon-up', {
      'src/daemon/http/app.ts': 'export const app = 1;\n',
      'src/daemon/store/file.ts': "import { app } from '../http/app.js';\nexport const file = app;\n",
    });
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain('store-below-services: src/daemon/store/file.ts → src/daemon/http/app.ts');
  });

  it('fails on lowdb or pg outside the store, and on the client reaching into the engine', async () => {
    const dir = tree('engines', {
      'src/daemon/store/file-store.ts': "import { Low } from 'lowdb';\nexport const Store = Low;\n",
      'src/daemon/http/routes/peek.ts': "import { Low } from 'lowdb';\nexport const peek = Low;\n",
      'src/daemon/accounts/direct.ts': "import pg from 'pg';\nexport const direct = pg;\n",
      'src/engine/detect.ts': 'export const detect = 1;\n',
      'src/client/api.ts': "import { detect } from '../engine/detect.js';\nexport const api = detect;\n",
    });
    // The packages resolve as they do in the project (the rule matches node_modules/lowdb|pg).
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    // (The symlink resolves to the project's own node_modules: the target is printed from there.)
    expect(output).toMatch(/store-owns-its-engines: src\/daemon\/http\/routes\/peek\.ts → \S*node_modules\/lowdb\//);
    expect(output).toMatch(/store-owns-its-engines: src\/daemon\/accounts\/direct\.ts → \S*node_modules\/pg\//);
    expect(output).not.toContain('src/daemon/store/file-store.ts →');
    expect(output).toContain('client-speaks-v1: src/client/api.ts → src/engine/detect.ts');
  });
});
