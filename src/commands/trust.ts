// `provenance trust add|list|remove`: the C2PA trust anchors kept in the user's config folder.
// With anchors, c2pa-rs checks the signer's certificate chain and reports `trusted` where it
// ends at one of them. The project ships none: see docs/C2PA.md for the C2PA trust list.
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
import { EXIT, usageErrorsReported, type CommandIO } from './io.js';

export const TRUST_LIST_HINT =
  'The C2PA trust list (anchors of the certificate authorities under the C2PA conformance program) is published in the c2pa-org/conformance-public repository, folder trust-list/ (C2PA-TRUST-LIST.pem).';

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

export function runTrustList(options: { json: boolean }, io: CommandIO): Promise<number> {
  return guarded(io, async () => {
    const list = storedAnchors(io.env);
    const configured = configuredAnchorFile(io.env);
    if (options.json) {
      const anchors = list.map(({ pem: _pem, ...rest }, i) => ({ index: i + 1, ...rest }));
      io.stdout.write(`${JSON.stringify({ store: trustStorePath(io.env), trust_anchors_setting: configured ?? null, anchors })}\n`);
      return EXIT.ok;
    }
    if (list.length === 0) {
      io.stdout.write(`No trust anchors stored (${trustStorePath(io.env)}).\n`);
    } else {
      io.stdout.write(`${list.length} trust anchor${list.length === 1 ? '' : 's'} in ${trustStorePath(io.env)}:\n`);
      list.forEach((a, i) => {
        const expired = Date.parse(a.not_after) < Date.now() ? ' (EXPIRED)' : '';
        io.stdout.write(`${String(i + 1).padStart(3)}  ${a.subject}\n     sha256 ${colonFingerprint(a.fingerprint)}\n     valid until ${a.not_after}${expired}\n`);
      });
    }
    if (configured) io.stdout.write(`Also used: ${configured} (the trust_anchors setting in config.json).\n`);
    if (list.length === 0 && !configured) io.stdout.write(`${TRUST_LIST_HINT}\nAdd anchors with: provenance trust add FILE.pem\n`);
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
