// A folder of camera pictures for the AI-marks checks' false-positive count and the bench's
// "mixed camera folder" row (issue 23): made from the real camera files of the shared corpus
// (../shared/corpus/files), as users' folders hold them: the originals, and the same photos
// resized, cropped to the sizes generators write (512x512, 1024x1024, 832x1216, ...), re-encoded
// as JPEG (4:2:0 and 4:4:4, quality 70 to 95), PNG and WebP. Crops to generator sizes are the
// pictures most likely to fool a watermark decoder: they pass every size rule a real mark meets.
// Deterministic: the same count gives the same files.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSharp } from '../../src/media/pixels.js';
import { readCameraTags } from '../../src/media/exif-tags.js';
import { stampJpeg } from '../fixtures/make.js';

/** Sizes image generators write (SD 1.x/2.x, SDXL buckets, SVD), for the crops. */
const GENERATOR_SIZES: readonly [number, number][] = [
  [512, 512], [768, 768], [1024, 1024], [832, 1216], [1216, 832], [896, 1152], [1344, 768], [640, 448],
];
const LONG_SIDES = [256, 320, 480, 512, 640, 768, 1000, 1024, 1280, 1600, 2048];

/** The files of `dir` (the shared corpus's `files/`) whose EXIF names a camera maker (JPEG and
 * TIFF), by name; none when `dir` is absent. */
export function cameraSources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /\.(jpe?g|tiff?)$/i.test(name))
    .filter((name) => {
      const bytes = readFileSync(join(dir, name));
      const type = name.toLowerCase().endsWith('f') ? 'image/tiff' : 'image/jpeg';
      try {
        return Boolean(readCameraTags(bytes, type)?.make);
      } catch {
        return false;
      }
    })
    .sort();
}

/** A small deterministic generator (mulberry32), so a count always makes the same folder. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}


/**
 * Writes `count` pictures into `dir` (emptied first), spread over subfolders of 250; returns
 * their paths. Skips the work when `dir` already holds this count (a marker file beside it).
 */
export async function makeCameraFolder(dir: string, count: number, corpusFiles: string, sources = cameraSources(corpusFiles)): Promise<string[]> {
  if (!sources.length) throw new Error(`no camera files in ${corpusFiles}`);
  const marker = `${dir}.built-${count}-${sources.length}`;
  const paths: string[] = [];
  const pathOf = (i: number, ext: string) => join(dir, String(Math.floor(i / 250)).padStart(2, '0'), `cam_${String(i).padStart(5, '0')}.${ext}`);
  if (existsSync(marker)) {
    return readFileSync(marker, 'utf8').split('\n').filter(Boolean);
  }
  rmSync(dir, { recursive: true, force: true });
  const sharp = await loadSharp();
  const originals = sources.map((name) => readFileSync(join(corpusFiles, name)));
  const next = random(23);
  for (let i = 0; i < count; i++) {
    const source = originals[i % originals.length]!;
    const image = sharp(source, { failOn: 'none' }).rotate();
    const { width = 0, height = 0 } = await sharp(source, { failOn: 'none' }).metadata();
    const kind = i % 8;
    let bytes: Uint8Array;
    let ext = 'jpg';
    const quality = 70 + Math.floor(next() * 26);
    const chroma = next() < 0.5 ? '4:2:0' : '4:4:4';
    if (kind === 0 && source[0] === 0xff) {
      bytes = stampJpeg(source, `camera folder ${i}`); // the original, as the camera wrote it
    } else if (kind <= 3) {
      // A crop at a generator's size, from a random place, where the photo is large enough.
      const fits = GENERATOR_SIZES.filter(([w, h]) => w <= width && h <= height);
      const [w, h] = fits.length ? fits[Math.floor(next() * fits.length)]! : [Math.min(width, 512), Math.min(height, 512)];
      const left = Math.floor(next() * (width - w + 1));
      const top = Math.floor(next() * (height - h + 1));
      const cropped = image.extract({ left, top, width: w, height: h });
      if (kind === 3) {
        bytes = await cropped.png().toBuffer();
        ext = 'png';
      } else {
        bytes = await cropped.jpeg({ quality, chromaSubsampling: chroma }).toBuffer();
      }
    } else {
      // Resized so that its long side is one of the usual sizes (never enlarged).
      const side = LONG_SIDES[Math.floor(next() * LONG_SIDES.length)]!;
      const resized = image.resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true });
      if (kind === 7) {
        bytes = await resized.webp({ quality }).toBuffer();
        ext = 'webp';
      } else if (kind === 6) {
        bytes = await resized.png().toBuffer();
        ext = 'png';
      } else {
        bytes = await resized.keepExif().jpeg({ quality, chromaSubsampling: chroma }).toBuffer();
      }
    }
    const path = pathOf(i, ext);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, bytes);
    paths.push(path);
  }
  writeFileSync(marker, paths.join('\n'));
  return paths;
}
