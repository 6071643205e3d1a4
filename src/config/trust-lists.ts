// The C2PA Trust List and the C2PA TSA Trust List in use: the copies `provenance trust update`
// put in the config folder, else those shipped in the package (data/c2pa/, with source.json
// naming their commit and dates). Only paths and dates are worked out here, on every run: the
// lists themselves are read by the c2pa check when it finds a manifest (media/trust-anchor-text.ts).
// The package's folder is given by the caller (media/package-data.ts): config stands alone.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { TrustListFile } from '../types.js';
import { configDir, oneLine, WRITE_REFUSED_EXIT, writeProblem } from './paths.js';
import { TrustAnchorError } from './trust-anchor-error.js';

export type TrustListName = TrustListFile['list'];

/** Each list's file name, as the C2PA publishes it (conformance-public/trust-list/) and as kept here. */
export const TRUST_LIST_FILES: Record<TrustListName, string> = {
  'c2pa-trust-list': 'C2PA-TRUST-LIST.pem',
  'c2pa-tsa-trust-list': 'C2PA-TSA-TRUST-LIST.pem',
};

export const TRUST_LIST_TITLES: Record<TrustListName, string> = {
  'c2pa-trust-list': 'C2PA Trust List',
  'c2pa-tsa-trust-list': 'C2PA TSA Trust List',
};

/** The folder of the config folder that `trust update` writes. */
export const UPDATED_LISTS_DIR = 'trust-lists';

/** A bundled list older than this (since it last changed at its source) is worth a warning. */
export const STALE_AFTER_DAYS = 180;

/**
 * The first line `trust update` writes above a list it installs (the rest is the list as
 * fetched): where and when it came from. A comment line, as the published lists have between
 * their certificates; PEM readers skip it.
 */
const HEADER = /^# provenance trust update: (\S+) taken (\S+) from (.+)$/;

export interface BundledSource {
  repository: string;
  commit: string;
  commit_date: string;
  files: Record<string, { path: string; last_changed: string }>;
}

export function updatedListsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), UPDATED_LISTS_DIR);
}

/** data/c2pa/source.json: the bundled lists' repository, commit and dates. */
export function bundledSource(bundledDir: string): BundledSource {
  return JSON.parse(readFileSync(join(bundledDir, 'source.json'), 'utf8')) as BundledSource;
}

/** The first line of a file (at most 512 bytes), or undefined when there is no such file. */
function firstLine(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TrustAnchorError(`${file} cannot be read: ${(err as Error).message}.`);
  }
  try {
    const buf = Buffer.alloc(512);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8').split('\n', 1)[0];
  } finally {
    closeSync(fd);
  }
}

export interface UpdatedOrigin {
  /** ISO 8601: when `trust update` took it. */
  date: string;
  /** The address or file it was taken from. */
  from: string;
}

/** What `trust update` recorded of an updated list (undefined: none is installed). */
export function updatedOrigin(file: string): UpdatedOrigin | undefined {
  const line = firstLine(file);
  if (line === undefined) return undefined;
  const m = HEADER.exec(line);
  // A file there that `trust update` did not write is still the user's list: used, dated unknown.
  return m ? { date: m[2]!, from: m[3]! } : { date: 'unknown', from: 'unknown' };
}

/**
 * The two lists in use: for each, the updated copy in the config folder when there is one (it
 * takes precedence), else the bundled one. Reads source.json and each updated list's first line,
 * never a certificate.
 */
export function trustListFiles(bundledDir: string, env: NodeJS.ProcessEnv = process.env): TrustListFile[] {
  let source: BundledSource | undefined;
  return (Object.keys(TRUST_LIST_FILES) as TrustListName[]).map((list) => {
    const name = TRUST_LIST_FILES[list];
    const updated = join(updatedListsDir(env), name);
    const origin = updatedOrigin(updated);
    if (origin) return { list, file: updated, origin: 'updated', date: origin.date };
    source ??= bundledSource(bundledDir);
    return { list, file: join(bundledDir, name), origin: 'bundled', date: source.files[name]?.last_changed ?? source.commit_date };
  });
}

/**
 * One line for stderr when a bundled list in use last changed more than 180 days before `now`
 * (the oldest is named), else undefined. Never an error: the list still works, it may lack
 * certificate authorities admitted since.
 */
export function staleListWarning(lists: readonly TrustListFile[], now: Date): string | undefined {
  const stale = lists
    .filter((l) => l.origin === 'bundled' && now.getTime() - Date.parse(l.date) > STALE_AFTER_DAYS * 86_400_000)
    .sort((a, b) => Date.parse(a.date) - Date.parse(b.date))[0];
  if (!stale) return undefined;
  const days = Math.floor((now.getTime() - Date.parse(stale.date)) / 86_400_000);
  return `warning: the bundled ${TRUST_LIST_TITLES[stale.list]} last changed ${stale.date.slice(0, 10)}, ${days} days ago; \`provenance trust update\` fetches the current lists.`;
}

export interface ListToInstall {
  list: TrustListName;
  /** The list as published (every certificate already checked by the caller). */
  text: string;
  /** The address or file it came from. */
  from: string;
}

/**
 * Puts checked lists in the config folder. Each file is written beside its place, flushed to disk
 * and renamed over it, so a reader sees the old list or the new one, never part of one; on any
 * failure nothing written so far replaces anything, and the temporary files are removed.
 */
export function installTrustLists(lists: readonly ListToInstall[], now: Date, env: NodeJS.ProcessEnv = process.env): string[] {
  const dir = updatedListsDir(env);
  const refused = (err: unknown, file: string) => {
    const problem = writeProblem(err, file);
    return problem
      ? Object.assign(new TrustAnchorError(`${problem} The lists in use are unchanged.`), { exitCode: WRITE_REFUSED_EXIT })
      : Object.assign(new TrustAnchorError(`cannot write ${file}: ${oneLine((err as Error).message)}. The lists in use are unchanged.`), { exitCode: WRITE_REFUSED_EXIT });
  };
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw refused(err, dir);
  }
  const taken = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const temps: { temp: string; file: string }[] = [];
  try {
    for (const l of lists) {
      const file = join(dir, TRUST_LIST_FILES[l.list]);
      const temp = `${file}.${process.pid}.tmp`;
      const header = `# provenance trust update: ${l.list} taken ${taken} from ${oneLine(l.from)}\n`;
      temps.push({ temp, file });
      const fd = openSync(temp, 'w', 0o644);
      try {
        writeSync(fd, header + l.text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  } catch (err) {
    for (const t of temps) rmSync(t.temp, { force: true });
    throw refused(err, temps.at(-1)?.file ?? dir);
  }
  for (const t of temps) renameSync(t.temp, t.file);
  return temps.map((t) => t.file);
}
