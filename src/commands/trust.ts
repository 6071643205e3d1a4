// `provenance trust add|list|remove`: the C2PA trust anchors in use. c2pa-rs checks the signer's
// certificate chain and reports `trusted` where it ends at one of them: an anchor of the C2PA
// Trust List or TSA Trust List (bundled, or updated with `trust update`: trust-update.ts), or one
// added by hand (kept in the user's config folder). docs/C2PA.md says where the lists come from.
import { colonFingerprint } from '../config/pem.js';
import {
  addAnchors,
  configuredAnchorFile,
  readAnchorFile,
  removeAnchor,
  storedAnchors,
  trustStorePath,
  TrustAnchorError,
} from '../config/trust-store.js';
import { bundledSource, staleListWarning, TRUST_LIST_FILES, TRUST_LIST_TITLES, trustListFiles, updatedOrigin } from '../config/trust-lists.js';
import { packageDataFile } from '../media/package-data.js';
import type { TrustListFile } from '../types.js';
import { EXIT, usageErrorsReported, type CommandIO } from './io.js';

function guarded(io: CommandIO, fn: () => Promise<number>): Promise<number> {
  return usageErrorsReported(io, (err) => err instanceof TrustAnchorError, fn);
}

export function runTrustAdd(options: { file: string }, io: CommandIO): Promise<number> {
  return guarded(io, async () => {
    const anchors = readAnchorFile(options.file);
    const { added, alreadyPresent, file } = await addAnchors(anchors, io.env);
    for (const a of added) io.stdout.write(`added    ${a.subject}\n         sha256 ${colonFingerprint(a.fingerprint)}\n`);
    for (const a of alreadyPresent) io.stdout.write(`present  ${a.subject} (already stored)\n`);
    const n = added.length;
    io.stdout.write(`${n} trust anchor${n === 1 ? '' : 's'} added to ${file}.\n`);
    return EXIT.ok;
  });
}

/** One list in use, its anchors read, for `trust list`. */
function describeList(list: TrustListFile, bundledDir: string) {
  const anchors = readAnchorFile(list.file).map(({ pem: _pem, ...rest }) => rest);
  if (list.origin === 'bundled') {
    const source = bundledSource(bundledDir);
    const name = TRUST_LIST_FILES[list.list];
    return {
      ...list,
      title: TRUST_LIST_TITLES[list.list],
      source: { repository: source.repository, commit: source.commit, path: source.files[name]?.path ?? null, last_changed: list.date },
      anchors,
    };
  }
  const origin = updatedOrigin(list.file);
  return { ...list, title: TRUST_LIST_TITLES[list.list], source: { taken: list.date, from: origin?.from ?? 'unknown' }, anchors };
}

export function runTrustList(options: { json: boolean; now?: () => Date }, io: CommandIO): Promise<number> {
  return guarded(io, async () => {
    const bundledDir = packageDataFile('c2pa');
    const inUse = trustListFiles(bundledDir, io.env);
    const lists = inUse.map((l) => describeList(l, bundledDir));
    const list = storedAnchors(io.env);
    const configured = configuredAnchorFile(io.env);
    const stale = staleListWarning(inUse, (options.now ?? (() => new Date()))());
    if (stale) io.stderr.write(`provenance: ${stale}\n`);
    if (options.json) {
      const anchors = list.map(({ pem: _pem, ...rest }, i) => ({ index: i + 1, ...rest }));
      io.stdout.write(`${JSON.stringify({ lists, store: trustStorePath(io.env), trust_anchors_setting: configured ?? null, anchors })}\n`);
      return EXIT.ok;
    }
    const now = Date.now();
    const expiry = (notAfter: string) => (Date.parse(notAfter) < now ? ' (EXPIRED)' : '');
    for (const l of lists) {
      const bundled = l.source as { repository?: string; commit?: string; path?: string | null; from?: string };
      const where =
        l.origin === 'bundled'
          ? `bundled with provenance: ${bundled.repository} at ${bundled.commit?.slice(0, 7)}, ${bundled.path ?? TRUST_LIST_FILES[l.list]}, last changed ${l.date.slice(0, 10)}`
          : `updated ${l.date} from ${bundled.from} (takes precedence over the bundled list)`;
      io.stdout.write(`${l.title}: ${l.anchors.length} anchors, ${where}\n  ${l.file}\n`);
      for (const a of l.anchors) io.stdout.write(`   -  ${a.subject}\n      sha256 ${colonFingerprint(a.fingerprint)}\n      valid until ${a.not_after}${expiry(a.not_after)}\n`);
    }
    if (list.length === 0) {
      io.stdout.write(`Added by hand: none (${trustStorePath(io.env)}).\n`);
    } else {
      io.stdout.write(`Added by hand: ${list.length} trust anchor${list.length === 1 ? '' : 's'} in ${trustStorePath(io.env)}:\n`);
      list.forEach((a, i) => {
        io.stdout.write(`${String(i + 1).padStart(3)}  ${a.subject}\n     sha256 ${colonFingerprint(a.fingerprint)}\n     valid until ${a.not_after}${expiry(a.not_after)}\n`);
      });
    }
    if (configured) io.stdout.write(`Also used: ${configured} (the trust_anchors setting in config.json).\n`);
    io.stdout.write('`provenance check --trust-anchors FILE` uses that file alone instead, for one run.\n');
    return EXIT.ok;
  });
}

export function runTrustRemove(options: { target: string }, io: CommandIO): Promise<number> {
  return guarded(io, async () => {
    const { removed, file } = await removeAnchor(options.target, io.env);
    io.stdout.write(`removed  ${removed.subject}\n         sha256 ${colonFingerprint(removed.fingerprint)}\nfrom ${file}.\n`);
    return EXIT.ok;
  });
}
