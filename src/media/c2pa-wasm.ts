// Loads the official c2pa-rs WebAssembly build once per process. The module is imported and
// compiled lazily: a file without any C2PA marker never pays for the 9 MB wasm.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { v8 } from './lazy-builtins.js';

type C2paWasm = typeof import('@contentauth/c2pa-wasm');

let loaded: Promise<C2paWasm> | undefined;

const WASM_TIERING_BUDGET = 40_000_000;

/**
 * V8 hands a wasm function to its optimising compiler once it has run through a budget of code,
 * 1.8 MB by default in Node 20 (13 MB in Node 22 and 24). For c2pa-rs, a 9 MB module, the Node 20
 * default spends more CPU compiling than the optimised code wins back: 100 signed JPEGs read in
 * one thread took 1.02 s of CPU (0.58 s wall) by default and 0.42 s (0.35 s wall) with 40 MB;
 * 3,000 took the same 6.7 s either way; the benchmark folder scan went from 1.09 to 0.80 s and a
 * cold signed check from 275 to 176 ms (docs/PERFORMANCE.md). Far higher budgets (1e9, close to
 * never optimising) made long runs 10 % slower. Kept on Node 22, the floor since issue 40, whose
 * default is higher: the same 100-file read (examples/signed.jpg x 100, `check --checks c2pa
 * --concurrency 1`, Node 22.23.3, 2026-12-02, a loaded machine: gauge 5.98 ms) took 2.09, 1.83
 * and 1.74 s of CPU with it against 2.55, 2.36 and 2.08 s without, rounds interleaved. The flag is
 * process-wide and is set before the module is compiled.
 */
export function loadC2paWasm(): Promise<C2paWasm> {
  loaded ??= (async () => {
    const mod: C2paWasm = await import('@contentauth/c2pa-wasm');
    const require = createRequire(import.meta.url);
    const wasmPath = require.resolve('@contentauth/c2pa-wasm/c2pa.wasm');
    v8().setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
    mod.initSync({ module: new WebAssembly.Module(readFileSync(wasmPath)) });
    return mod;
  })();
  return loaded;
}

/**
 * The extended key usages a C2PA signing certificate may carry, one OID a line: c2pa-rs's own
 * default set (sdk/src/crypto/cose/valid_eku_oids.cfg, the EKUs the C2PA specification's trust
 * model accepts; the `store.cfg` c2patool is given with the C2PA Trust List): emailProtection,
 * documentSigning, timeStamping, OCSPSigning, Microsoft's C2PA signing, c2pa-kp-claimSigning.
 * The wasm reader (c2pa-rs 0.91.3) does not apply that default: without trust_config, given
 * settings or not, it accepts only the EKUs it knows by flag (emailProtection, timeStamping,
 * OCSPSigning), and a certificate whose signing EKUs are c2pa-kp-claimSigning and
 * documentSigning (OpenAI's of 2026, under Trufo's root on the C2PA Trust List) reads
 * "certificate missing required EKU", signingCredential.invalid. With this list it reads
 * trusted, as c2patool reads it given the store.cfg.
 */
export const C2PA_SIGNING_EKUS = [
  '1.3.6.1.5.5.7.3.4',
  '1.3.6.1.5.5.7.3.36',
  '1.3.6.1.5.5.7.3.8',
  '1.3.6.1.5.5.7.3.9',
  '1.3.6.1.4.1.311.76.59.1.9',
  '1.3.6.1.4.1.62558.2.1',
] as const;

/**
 * c2pa-rs settings for reading. Network use is switched off: a remote manifest is reported,
 * never fetched, and no OCSP responder is contacted. Trust anchors (PEM) are optional; the
 * accepted EKUs are always given (C2PA_SIGNING_EKUS).
 */
export function readerSettings(trustAnchorsPem?: string): string {
  const settings: Record<string, unknown> = {
    verify: {
      remote_manifest_fetch: false,
      ocsp_fetch: false,
    },
  };
  const trust: Record<string, string> = { trust_config: C2PA_SIGNING_EKUS.join('\n') };
  if (trustAnchorsPem) trust.trust_anchors = trustAnchorsPem;
  settings.trust = trust;
  return JSON.stringify(settings);
}
