// Writes docs/trust-example/: the README's trusted card (issue 38). A signed AI-generated PNG and
// the root of the throwaway test PKI that signed it, `test-root.pem`: passed with
// `--trust-anchors`, it makes that signer trusted for the run, as the C2PA Trust List does for a
// real signer. Outside examples/, so `provenance check examples/` and its counts stay as they are.
// Not reproducible (a new PKI, the current time): after a run, copy the new output into
// README.md (test/readme.test.ts compares them). `npm run examples:trust`
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePki, signC2pa, tinyPng } from '../test/fixtures/make.js';

const OUT = join('docs', 'trust-example');
const AI = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';

const pkiDir = mkdtempSync(join(tmpdir(), 'prov-trust-example-'));
try {
  const pki = makePki(pkiDir);
  const manifest = {
    claim_generator_info: [{ name: 'provenance-examples', version: '1.0' }],
    title: 'ai-generated.png',
    format: 'image/png',
    assertions: [{ label: 'c2pa.actions', data: { actions: [{ action: 'c2pa.created', digitalSourceType: AI }] } }],
  };
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'ai-generated.png'), await signC2pa(tinyPng({ seed: 38 }), 'image/png', manifest, pki, { signedAt: true }));
  writeFileSync(join(OUT, 'test-root.pem'), pki.rootPem);
  console.log(`wrote ai-generated.png and test-root.pem to ${OUT}/`);
} finally {
  rmSync(pkiDir, { recursive: true, force: true });
}
