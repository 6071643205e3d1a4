// Loads the official c2pa-rs WebAssembly build once per process. The module is imported and
// compiled lazily: a file without any C2PA marker never pays for the 9 MB wasm.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

type C2paWasm = typeof import('@contentauth/c2pa-wasm');

let loaded: Promise<C2paWasm> | undefined;

export function loadC2paWasm(): Promise<C2paWasm> {
  loaded ??= (async () => {
    const mod: C2paWasm = await import('@contentauth/c2pa-wasm');
    const require = createRequire(import.meta.url);
    const wasmPath = require.resolve('@contentauth/c2pa-wasm/c2pa.wasm');
    mod.initSync({ module: new WebAssembly.Module(readFileSync(wasmPath)) });
    return mod;
  })();
  return loaded;
}

/**
 * c2pa-rs settings for reading. Network use is switched off: a remote manifest is reported,
 * never fetched, and no OCSP responder is contacted. Trust anchors (PEM) are optional.
 */
export function readerSettings(trustAnchorsPem?: string): string {
  const settings: Record<string, unknown> = {
    verify: {
      remote_manifest_fetch: false,
      ocsp_fetch: false,
    },
  };
  if (trustAnchorsPem) settings.trust = { trust_anchors: trustAnchorsPem };
  return JSON.stringify(settings);
}
