// The built CLI run by a user who cannot write a given folder, for the errors a permission
// problem must give. As root (who writes anywhere) the run drops to nobody (uid/gid 65534);
// otherwise the folder's mode 0555 is enough. `cwd` (and what the run reads) must be readable
// by that user: mkdtemp makes folders 0700, so callers chmod theirs 0755.
import { spawn } from 'node:child_process';
import { chmodSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './corpus.js';
import type { CliRun } from './run-cli.js';

const AS_ROOT = process.getuid?.() === 0;

/** Whether user `nobody` can reach `path`: every folder above it searchable by others. */
function reachableByOthers(path: string): boolean {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dirname(dir) === dir) return true;
  }
}

/**
 * Whether the run can happen here: as root, nobody must be able to run Node and read the built
 * CLI (a checkout under a 0700 home folder cannot; the tests that need it skip, with a notice).
 */
export const CAN_RUN_UNPRIVILEGED =
  !AS_ROOT ||
  (reachableByOthers(process.execPath) &&
    reachableByOthers(join(ROOT, 'dist', 'cli.js')) &&
    readdirSync(join(ROOT, 'dist')).every((f) => (statSync(join(ROOT, 'dist', f)).mode & 0o004) !== 0));
if (!CAN_RUN_UNPRIVILEGED) console.warn('[provenance tests] user nobody cannot read this checkout: the permission-error tests are skipped.');

export function runUnprivileged(args: string[], env: NodeJS.ProcessEnv, readOnly: string, cwd: string): Promise<CliRun> {
  chmodSync(readOnly, 0o555);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'provenance.js'), ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', ...env },
      ...(AS_ROOT ? { uid: 65534, gid: 65534 } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
