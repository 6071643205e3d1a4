// Remote results cached by file SHA-256 + checks + API URL (SPEC 8.4: the same file gives the
// same result), so a second run over the same files spends no call. One small JSON file per
// entry under <cache dir>/results/, written atomically; a damaged or foreign entry is a miss.
// Entries older than CACHE_MAX_AGE_MS are misses too: an API's detectors change over time
// (planned ones become available), and a month-old answer should be asked for again.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DetectionResult } from '../types.js';
import { detectionResultProblem } from './v1-shapes.js';

export const CACHE_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

interface Entry {
  api_url: string;
  checks: string[];
  sha256: string;
  cached_at: string;
  result: DetectionResult;
}

export class ResultCache {
  constructor(
    /** The cache folder (paths.ts cacheDir). */
    readonly dir: string,
    readonly apiUrl: string,
    private readonly now: () => number = Date.now,
  ) {}

  private file(sha256: string, checks: readonly string[]): string {
    const key = createHash('sha256').update(JSON.stringify([this.apiUrl, [...checks], sha256])).digest('hex');
    return join(this.dir, 'results', key.slice(0, 2), `${key}.json`);
  }

  /** The cached result of this file and check list at this API, or undefined. */
  async get(sha256: string, checks: readonly string[]): Promise<DetectionResult | undefined> {
    let entry: Entry;
    try {
      entry = JSON.parse(await readFile(this.file(sha256, checks), 'utf8')) as Entry;
    } catch {
      return undefined;
    }
    const same = entry?.api_url === this.apiUrl && entry.sha256 === sha256 && JSON.stringify(entry.checks) === JSON.stringify(checks);
    const age = this.now() - Date.parse(entry?.cached_at);
    if (!same || !(age >= 0 && age < CACHE_MAX_AGE_MS) || entry.result?.media?.sha256 !== sha256) return undefined;
    // Written by an earlier version, which stored what the API said unchecked: held to the /v1
    // shape as a fresh answer is (api.ts), else a miss and the file is asked for again.
    if (detectionResultProblem(entry.result)) return undefined;
    return entry.result;
  }

  /** Stores a result; a cache that cannot be written is not an error for the run. */
  async put(sha256: string, checks: readonly string[], result: DetectionResult): Promise<boolean> {
    const file = this.file(sha256, checks);
    const entry: Entry = { api_url: this.apiUrl, checks: [...checks], sha256, cached_at: new Date(this.now()).toISOString(), result };
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await mkdir(join(file, '..'), { recursive: true });
      await writeFile(tmp, JSON.stringify(entry));
      await rename(tmp, file);
      return true;
    } catch {
      await rm(tmp, { force: true }).catch(() => {});
      return false;
    }
  }
}

/** Removes every cached result; says how many there were. */
export async function clearCache(dir: string): Promise<number> {
  const results = join(dir, 'results');
  let count = 0;
  try {
    for (const fan of await readdir(results)) {
      try {
        count += (await readdir(join(results, fan))).filter((n) => n.endsWith('.json')).length;
      } catch {
        // not a folder: removed below all the same
      }
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  await rm(results, { recursive: true, force: true });
  return count;
}
