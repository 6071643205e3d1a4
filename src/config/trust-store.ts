// C2PA trust anchors: where `check` (and the daemon) get them, and the store that
// `provenance trust add|list|remove` keeps in the user's config folder.
//
// Reading is plain fs on purpose: `provenance check` looks here on every run and must not pay
// for loading conf (~130 ms). Only the commands that write the store load conf, lazily.
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { configDir, oneLine, TRUST_STORE_FILE, WRITE_REFUSED_EXIT, writeProblem } from './paths.js';
import { parseAnchors, TrustAnchorError, type Anchor } from './pem.js';
import { readSettings, SettingsError, settingsPath } from './settings.js';
import { trustListFiles } from './trust-lists.js';
import type { TrustOptions } from '../types.js';

export { TrustAnchorError } from './pem.js';

export interface StoredAnchor {
  fingerprint: string;
  subject: string;
  not_after: string;
  ca?: boolean;
  added_at: string;
  pem: string;
}

interface StoreShape {
  anchors: StoredAnchor[];
}

/** Trust anchors for one run, ready for c2pa-rs. */
export interface TrustAnchors {
  /** Every anchor, PEM, concatenated. */
  pem: string;
  count: number;
  /** Where they came from (files), for messages. */
  sources: string[];
}

export interface LoadTrustAnchorsOptions {
  /** A PEM file named on the command line (`--trust-anchors`): used instead of the stored ones. */
  file?: string;
  /** Environment for the config folder (`PROVENANCE_CONFIG_DIR`); process.env by default. */
  env?: NodeJS.ProcessEnv;
}

export function trustStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), TRUST_STORE_FILE);
}

function readText(file: string, label: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new TrustAnchorError(`${label} cannot be read: ${(err as Error).message}.`);
  }
}

/** A PEM bundle file, validated: TrustAnchorError when missing, empty or not PEM. */
export function readAnchorFile(file: string, label = file): Anchor[] {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // An address pasted from a trust list's page: nothing here downloads (no network unless an
    // API is asked), so say how to get the file rather than only that there is none.
    if (code === 'ENOENT' && /^https?:\/\//i.test(file)) {
      throw new TrustAnchorError(`${label} is an address, not a file: download the PEM first, e.g. curl -fsSL -o trust-list.pem '${file}', then give the file.`);
    }
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder, not a PEM file' : (err as Error).message;
    throw new TrustAnchorError(`${label} cannot be read: ${why}.`);
  }
  return parseAnchors(bytes, label);
}

/** The anchors added with `provenance trust add`, in the order they were added. */
export function storedAnchors(env: NodeJS.ProcessEnv = process.env): StoredAnchor[] {
  const file = trustStorePath(env);
  const text = readText(file, file);
  if (text === undefined || !text.trim()) return [];
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new TrustAnchorError(`${file} is damaged (${oneLine((err as Error).message)}): fix it or delete it and add the anchors again.`);
  }
  const anchors = (data as Partial<StoreShape> | null)?.anchors ?? [];
  if (!Array.isArray(anchors) || anchors.some((a) => typeof a?.pem !== 'string' || typeof a?.fingerprint !== 'string')) {
    throw new TrustAnchorError(`${file} is damaged (its "anchors" list is not as written by provenance): fix it or delete it.`);
  }
  return anchors as StoredAnchor[];
}

/** The `trust_anchors` setting of config.json: a PEM file path (relative to the config folder). */
export function configuredAnchorFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  let value: unknown;
  try {
    value = (readSettings(env) as Record<string, unknown>).trust_anchors;
  } catch (err) {
    // A damaged config.json is a usage error here as everywhere (exit 2), with the same words.
    if (err instanceof SettingsError) throw new TrustAnchorError(err.message);
    throw err;
  }
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new TrustAnchorError(`${settingsPath(env)}: the trust_anchors setting must be the path of a PEM file.`);
  return isAbsolute(value) ? value : resolve(configDir(env), value);
}

/**
 * The trust anchors for a run, or undefined when none are configured. An explicit file wins;
 * otherwise the `trust_anchors` setting and the stored anchors together. Throws
 * TrustAnchorError (a usage error: exit 2) for a missing, empty or non-PEM file.
 */
export function loadTrustAnchors(options: LoadTrustAnchorsOptions = {}): TrustAnchors | undefined {
  const env = options.env ?? process.env;
  const pems = new Map<string, string>();
  const sources: string[] = [];
  if (options.file) {
    for (const a of readAnchorFile(options.file)) pems.set(a.fingerprint, a.pem);
    sources.push(options.file);
  } else {
    const configured = configuredAnchorFile(env);
    if (configured) {
      for (const a of readAnchorFile(configured, `${configured} (the trust_anchors setting)`)) pems.set(a.fingerprint, a.pem);
      sources.push(configured);
    }
    const stored = storedAnchors(env);
    for (const a of stored) pems.set(a.fingerprint, a.pem.endsWith('\n') ? a.pem : `${a.pem}\n`);
    if (stored.length) sources.push(trustStorePath(env));
  }
  if (pems.size === 0) return undefined;
  return { pem: [...pems.values()].join(''), count: pems.size, sources };
}

/**
 * Every anchor a local check uses, as the engine takes them: `--trust-anchors FILE` alone when
 * given (it replaces the lists for the run); otherwise the C2PA Trust List and TSA Trust List
 * (updated, else bundled in `bundledDir`) plus the anchors added by hand. Throws
 * TrustAnchorError as loadTrustAnchors does.
 */
export function loadRunTrust(options: LoadTrustAnchorsOptions & { bundledDir: string }): TrustOptions {
  const own = loadTrustAnchors(options);
  if (options.file) return { trustAnchorsPem: own!.pem };
  return { trustLists: trustListFiles(options.bundledDir, options.env ?? process.env), ...(own ? { trustAnchorsPem: own.pem } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Writing the store (the `trust` command): through conf, loaded only here.

type ConfModule = typeof import('conf');
type ConfStore = InstanceType<ConfModule['default']>;

// A computed specifier keeps conf out of the CLI bundle (scripts/build.mjs), so it costs
// nothing on the runs that never write the store.
const importExternal = (specifier: string): Promise<unknown> => import(specifier);

async function openStore(env: NodeJS.ProcessEnv): Promise<ConfStore> {
  const { default: Conf } = (await importExternal('conf')) as ConfModule;
  try {
    return new Conf<StoreShape>({
      cwd: configDir(env),
      configName: TRUST_STORE_FILE.replace(/\.json$/, ''),
      defaults: { anchors: [] },
    }) as unknown as ConfStore;
  } catch (err) {
    throw storeError(err, env);
  }
}

/** A refused write is a permission (or disk) problem; anything else, a damaged file. */
function storeError(err: unknown, env: NodeJS.ProcessEnv): TrustAnchorError {
  const problem = writeProblem(err, trustStorePath(env));
  if (problem) return Object.assign(new TrustAnchorError(problem), { exitCode: WRITE_REFUSED_EXIT });
  return new TrustAnchorError(`${trustStorePath(env)} is damaged (${oneLine((err as Error).message)}): fix it or delete it.`);
}

function writeAnchors(store: ConfStore, anchors: StoredAnchor[], env: NodeJS.ProcessEnv): void {
  try {
    store.set('anchors', anchors);
  } catch (err) {
    const problem = writeProblem(err, trustStorePath(env));
    if (problem) throw Object.assign(new TrustAnchorError(problem), { exitCode: WRITE_REFUSED_EXIT });
    throw err;
  }
}

export interface AddResult {
  added: StoredAnchor[];
  alreadyPresent: Anchor[];
  file: string;
}

export async function addAnchors(anchors: Anchor[], env: NodeJS.ProcessEnv = process.env): Promise<AddResult> {
  storedAnchors(env); // a damaged store is reported, never overwritten
  const store = await openStore(env);
  const list = (store.get('anchors') ?? []) as StoredAnchor[];
  const known = new Set(list.map((a) => a.fingerprint));
  const added: StoredAnchor[] = [];
  const alreadyPresent: Anchor[] = [];
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  for (const a of anchors) {
    if (known.has(a.fingerprint)) {
      alreadyPresent.push(a);
      continue;
    }
    known.add(a.fingerprint);
    added.push({ fingerprint: a.fingerprint, subject: a.subject, not_after: a.not_after, ca: a.ca, added_at: now, pem: a.pem });
  }
  if (added.length) writeAnchors(store, [...list, ...added], env);
  return { added, alreadyPresent, file: store.path };
}

/**
 * The stored anchor a user means: a 1-based index as `trust list` shows it, or a SHA-256
 * fingerprint (hex, colons optional, any case), in full or as a unique prefix of 8+ digits.
 * Seven digits or fewer is an index, eight or more a fingerprint prefix.
 */
export function findAnchor(list: StoredAnchor[], target: string): StoredAnchor {
  const t = target.trim();
  // Up to 7 digits is an index; 8 or more is a fingerprint prefix, since a prefix of only
  // decimal digits happens (about 1 fingerprint in 100 starts with 10 of them).
  if (/^\d{1,7}$/.test(t)) {
    const i = Number(t);
    const found = list[i - 1];
    if (!found) {
      throw new TrustAnchorError(
        list.length ? `There is no anchor number ${t}: \`provenance trust list\` shows ${list.length}.` : 'No trust anchors are stored.',
      );
    }
    return found;
  }
  const hex = t.replace(/:/g, '').toLowerCase();
  if (!/^[0-9a-f]{8,64}$/.test(hex)) {
    throw new TrustAnchorError(`"${target}" is neither an index nor a SHA-256 fingerprint (8 to 64 hex digits, colons allowed).`);
  }
  const matches = list.filter((a) => a.fingerprint.startsWith(hex));
  if (matches.length === 0) throw new TrustAnchorError(`No stored trust anchor has the fingerprint ${target}.`);
  if (matches.length > 1) throw new TrustAnchorError(`${target} matches ${matches.length} anchors: give more digits.`);
  return matches[0]!;
}

export async function removeAnchor(target: string, env: NodeJS.ProcessEnv = process.env): Promise<{ removed: StoredAnchor; file: string }> {
  const list = storedAnchors(env);
  const removed = findAnchor(list, target);
  const store = await openStore(env);
  writeAnchors(
    store,
    list.filter((a) => a !== removed),
    env,
  );
  return { removed, file: store.path };
}
