// The pixel floor of the bench's camera-folder row (issue 23): decoding, with sharp (libvips),
// exactly the pictures the invisible_watermark check decodes (PNG, JPEG and WebP whose size it
// reads: 256 x 256 to 2048 x 2048 pixels), and nothing else: no hashing, no other check, no
// watermark reading. No scan can read a mark in the pixels for less, so this, split over the
// cores, bounds what the full catalogue can cost beside the hosted one.
// `bench-decode-floor.mjs DIR [K/N]`: with K/N, every N-th file from the K-th (as bench-floor.ts).
// Prints one line per picture decoded (its pixel count), so the caller can count them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_WATERMARK_PIXELS, MIN_WATERMARK_PIXELS } from '../src/detectors/invisible-watermark.js';
import { decodePixels, readPixelHeader } from '../src/media/pixels.js';
import { sniffMediaType } from '../src/media/sniff.js';
import { pictureSize } from '../src/media/picture-size.js';

const files = readdirSync(process.argv[2]!, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile())
  .map((e) => join(e.parentPath, e.name))
  .sort();
const part = /^(\d+)\/(\d+)$/.exec(process.argv[3] ?? '0/1');
const [k, n] = part ? [Number(part[1]), Number(part[2])] : [0, 1];
const lines: string[] = [];
for (const path of files.filter((_, i) => i % n === k)) {
  const bytes = new Uint8Array(readFileSync(path));
  const type = await sniffMediaType(bytes);
  if (type !== 'image/png' && type !== 'image/jpeg' && type !== 'image/webp') continue;
  // The size from the header bytes (as the check reads it), sharp's metadata only where they are not plain.
  const { width, height } = pictureSize(bytes, type) ?? (await readPixelHeader(bytes));
  if (width * height < MIN_WATERMARK_PIXELS || width * height > MAX_WATERMARK_PIXELS) continue;
  const pixels = await decodePixels(bytes);
  lines.push(String(pixels.width * pixels.height));
}
process.stdout.write(lines.length ? `${lines.join('\n')}\n` : '');
