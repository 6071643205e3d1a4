// Signed fixtures shared by several test files, made once per test file in a temp folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePki, signC2pa, simpleManifest, tinyJpeg, tinyMp4, tinyPng, type Pki } from '../fixtures/make.js';

export interface SignedSet {
  pki: Pki;
  jpeg: Uint8Array;
  jpegV1: Uint8Array;
  png: Uint8Array;
  mp4: Uint8Array;
  cleanup(): void;
}

export async function makeSignedSet(): Promise<SignedSet> {
  const dir = mkdtempSync(join(tmpdir(), 'prov-signed-'));
  const pki = makePki(dir);
  return {
    pki,
    jpeg: await signC2pa(tinyJpeg({ seed: 1 }), 'image/jpeg', simpleManifest('signed.jpg', 'image/jpeg'), pki),
    jpegV1: await signC2pa(tinyJpeg({ seed: 2 }), 'image/jpeg', simpleManifest('signed-v1.jpg', 'image/jpeg'), pki, {
      claimVersion: 1,
    }),
    png: await signC2pa(tinyPng({ seed: 3 }), 'image/png', simpleManifest('signed.png', 'image/png'), pki),
    mp4: await signC2pa(tinyMp4(), 'video/mp4', simpleManifest('signed.mp4', 'video/mp4'), pki),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
