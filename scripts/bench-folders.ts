// The folder of `npm run bench`'s scan rows, also scanned by `npm run bench:report`: camera-like
// JPEGs (4032x3024 like a phone, and 1600x1200) with unique bytes, and C2PA-signed 640x480 JPEGs,
// all from the project's own fixtures. Built once; a marker beside it (not in it: the scan must
// see only the benchmark's files) says which counts it holds.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPLE_MAKER_NOTE, exifApp1, makePki, signC2pa, simpleManifest, stampJpeg as stamp, tinyJpeg } from '../test/fixtures/make.js';

/** `cameras` camera-like JPEGs and `signedCount` signed ones in `dir`; the test PKI in `pkiDir`. */
export async function buildScanFolder(dir: string, cameras: number, signedCount: number, pkiDir: string): Promise<void> {
  // Beside the folder, not in it: the scan must see only the benchmark's files.
  const marker = `${dir}.built-${cameras}-${signedCount}`;
  if (existsSync(marker)) return;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'camera'), { recursive: true });
  mkdirSync(join(dir, 'signed'), { recursive: true });
  // A few full-size bases (4032x3024 like a phone, 1600x1200), three EXIF variants.
  const exifs = [
    exifApp1({ make: 'Apple', model: 'iPhone 15 Pro', software: '17.1.2', makerNote: APPLE_MAKER_NOTE, dateTime: '2026:10:01 10:00:00' }),
    exifApp1({ make: 'Canon', model: 'Canon EOS R6', software: 'Firmware 1.8', dateTime: '2026:10:01 10:00:00' }),
    undefined,
  ];
  const bases: Uint8Array[] = [];
  for (let i = 0; i < 6; i++) {
    const [width, height] = i % 2 ? [1600, 1200] : [4032, 3024];
    bases.push(tinyJpeg({ width, height, seed: 100 + i, exif: exifs[i % 3] }));
  }
  for (let i = 0; i < cameras; i++) {
    const sub = join(dir, 'camera', String(Math.floor(i / 250)).padStart(2, '0'));
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `IMG_${String(i).padStart(5, '0')}.jpg`), stamp(bases[i % bases.length]!, `bench photo ${i}`));
  }
  if (signedCount) {
    const pki = makePki(pkiDir);
    for (let i = 0; i < signedCount; i++) {
      const image = tinyJpeg({ width: 640, height: 480, seed: 1000 + i });
      const signed = await signC2pa(image, 'image/jpeg', simpleManifest(`signed-${i}.jpg`, 'image/jpeg'), pki);
      writeFileSync(join(dir, 'signed', `signed-${String(i).padStart(4, '0')}.jpg`), signed);
    }
  }
  writeFileSync(marker, '');
}
