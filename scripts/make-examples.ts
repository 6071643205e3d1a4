// Writes examples/: small files made by the project itself, so `provenance check examples/`
// shows every kind of result. Run with `npm run examples` (scripts/make-examples.mjs bundles and
// runs this file). The signing chain is a throwaway test PKI made with openssl; it is not trusted
// by anything, which is the point of the "signer not checked against a trust list" line.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  APPLE_MAKER_NOTE,
  exifApp1,
  makePki,
  signC2pa,
  tamper,
  tinyJpeg,
  tinyMp4,
  tinyPng,
} from '../test/fixtures/make.js';

const OUT = 'examples';
const IPTC = 'http://cv.iptc.org/newscodes/digitalsourcetype/';

function manifest(title: string, format: string, action: string, sourceType: string): object {
  return {
    claim_generator_info: [{ name: 'provenance-examples', version: '1.0' }],
    title,
    format,
    assertions: [{ label: 'c2pa.actions', data: { actions: [{ action, digitalSourceType: IPTC + sourceType }] } }],
  };
}

const pkiDir = mkdtempSync(join(tmpdir(), 'prov-examples-'));
try {
  const pki = makePki(pkiDir);
  mkdirSync(OUT, { recursive: true });
  const signedJpeg = await signC2pa(tinyJpeg({ seed: 21, width: 64, height: 48 }), 'image/jpeg', manifest('signed.jpg', 'image/jpeg', 'c2pa.created', 'digitalCapture'), pki, { signedAt: true });
  const files: Record<string, Uint8Array> = {
    'signed.jpg': signedJpeg,
    'tampered.jpg': tamper(signedJpeg, 'image/jpeg'),
    'ai-generated.png': await signC2pa(tinyPng({ seed: 22 }), 'image/png', manifest('ai-generated.png', 'image/png', 'c2pa.created', 'trainedAlgorithmicMedia'), pki, { signedAt: true }),
    'signed.mp4': await signC2pa(tinyMp4(), 'video/mp4', manifest('signed.mp4', 'video/mp4', 'c2pa.created', 'digitalCapture'), pki, { signedAt: true }),
    'camera.jpg': tinyJpeg({
      seed: 23,
      width: 64,
      height: 48,
      exif: exifApp1({ make: 'Apple', model: 'iPhone 15 Pro', software: '17.1.2', makerNote: APPLE_MAKER_NOTE, dateTime: '2026:11:01 09:30:00' }),
    }),
    'plain.png': tinyPng({ seed: 24 }),
    'notes.txt': new TextEncoder().encode('Not a media file: every check is unavailable for it.\n'),
  };
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(OUT, name), bytes);
  console.log(`wrote ${Object.keys(files).length} files to ${OUT}/`);
} finally {
  rmSync(pkiDir, { recursive: true, force: true });
}
