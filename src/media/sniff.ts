// Media type from the first bytes, never from a name or a header (SPEC 2.3, CONTRACT "Media types").
// The catalogue's own types are recognised here directly: they need finer names than file-type
// gives (HEIC vs HEIF by brand, audio-only MP4, DNG as TIFF, WAV as audio/wav), and skipping
// file-type's 40 ms import keeps a single-file check fast. Everything else goes to file-type.

const OCTET_STREAM = 'application/octet-stream';

const HEIC_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs']);
const AVIF_BRANDS = new Set(['avif', 'avis']);
const HEIF_BRANDS = new Set(['mif1', 'msf1', 'mif2']);
const M4A_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ']);
/** How far into an ftyp box compatible brands are read (a real one lists a handful). */
export const MAX_FTYP_SCAN = 4096;

/** file-type's names where the contract uses another (CONTRACT: the catalogue's names). */
const FILE_TYPE_RENAMES: Record<string, string> = {
  'audio/x-wav': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/x-m4a': 'audio/mp4',
  'image/x-adobe-dng': 'image/tiff',
  'image/heic-sequence': 'image/heic',
  'image/heif-sequence': 'image/heif',
  'video/x-m4v': 'video/mp4',
};

function ascii(bytes: Uint8Array, start: number, end: number): string {
  if (end > bytes.length) return '';
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]!);
  return s;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  return prefix.every((b, i) => bytes[at + i] === b);
}

export async function sniffMediaType(bytes: Uint8Array): Promise<string> {
  return sniffKnownType(bytes) ?? (await sniffWithFileType(bytes));
}

/** The catalogue's types; undefined when the bytes are none of them. */
export function sniffKnownType(bytes: Uint8Array): string | undefined {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (ascii(bytes, 0, 4) === 'RIFF') {
    const form = ascii(bytes, 8, 12);
    if (form === 'WEBP') return 'image/webp';
    if (form === 'WAVE') return 'audio/wav';
    return undefined;
  }
  // Classic TIFF and BigTIFF, little and big endian; DNG is a TIFF and is reported as one.
  const tiffMagic = ascii(bytes, 0, 4);
  if (tiffMagic === 'II*\0' || tiffMagic === 'MM\0*' || tiffMagic === 'II+\0' || tiffMagic === 'MM\0+') {
    return 'image/tiff';
  }
  if (ascii(bytes, 4, 8) === 'ftyp') return isoBmffType(bytes);
  return undefined;
}

function isoBmffType(bytes: Uint8Array): string | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const major = ascii(bytes, 8, 12);
  // The major brand decides, as ExifTool and file-type read it: `mif1` with a compatible `heic`
  // is still image/heif (the file declares itself generic HEIF first).
  if (HEIC_BRANDS.has(major)) return 'image/heic';
  if (HEIF_BRANDS.has(major)) return 'image/heif';
  if (AVIF_BRANDS.has(major)) return 'image/avif';
  if (major === 'qt  ') return 'video/quicktime';
  if (major === 'crx ') return undefined; // Canon CR3: not a type the catalogue reads.
  if (major.startsWith('3g')) return undefined; // 3GPP: file-type names it.
  if (M4A_BRANDS.has(major)) return 'audio/mp4';
  // A major brand that names no image type (isom, mp42, an unknown one): an image brand among
  // the compatible ones decides, else the tracks do.
  const image = imageTypeFromCompatibleBrands(bytes, view);
  if (image) return image;
  return hasVideoTrack(view) === false ? 'audio/mp4' : 'video/mp4';
}

/** The compatible brands, read within the ftyp box and its first 4 KiB only. */
function imageTypeFromCompatibleBrands(bytes: Uint8Array, view: DataView): string | undefined {
  const ftypSize = Math.min(view.getUint32(0), bytes.length, MAX_FTYP_SCAN);
  const brands = new Set<string>();
  for (let off = 16; off + 4 <= ftypSize; off += 4) brands.add(ascii(bytes, off, off + 4));
  const has = (set: Set<string>) => [...brands].some((b) => set.has(b));
  if (has(AVIF_BRANDS)) return 'image/avif';
  if (has(HEIC_BRANDS)) return 'image/heic';
  if (has(HEIF_BRANDS)) return 'image/heif';
  return undefined;
}

/**
 * Walks moov/trak/mdia/hdlr only (never a generic recursive descent, so nested-box bombs cost
 * nothing). true: a video track; false: tracks but no video; undefined: no moov or no tracks.
 */
function hasVideoTrack(view: DataView): boolean | undefined {
  const moov = findChild(view, 0, view.byteLength, 'moov');
  if (!moov) return undefined;
  let sawTrack = false;
  for (const trak of children(view, moov.start, moov.end, 'trak')) {
    const mdia = findChild(view, trak.start, trak.end, 'mdia');
    const hdlr = mdia && findChild(view, mdia.start, mdia.end, 'hdlr');
    if (!hdlr || hdlr.start + 12 > hdlr.end) continue;
    sawTrack = true;
    const handler = String.fromCharCode(
      view.getUint8(hdlr.start + 8),
      view.getUint8(hdlr.start + 9),
      view.getUint8(hdlr.start + 10),
      view.getUint8(hdlr.start + 11),
    );
    if (handler === 'vide') return true;
  }
  return sawTrack ? false : undefined;
}

interface BoxSpan {
  start: number; // first byte of the payload
  end: number; // one past the last byte of the box
}

const MAX_BOXES_PER_LEVEL = 10_000;

function* children(view: DataView, start: number, end: number, type: string): Generator<BoxSpan> {
  let off = start;
  for (let n = 0; n < MAX_BOXES_PER_LEVEL && off + 8 <= end; n++) {
    let size = view.getUint32(off);
    let header = 8;
    if (size === 1) {
      if (off + 16 > end) return;
      const big = view.getBigUint64(off + 8);
      if (big > BigInt(end - off)) return;
      size = Number(big);
      header = 16;
    } else if (size === 0) {
      size = end - off;
    }
    if (size < header || off + size > end) return;
    const boxType = String.fromCharCode(
      view.getUint8(off + 4),
      view.getUint8(off + 5),
      view.getUint8(off + 6),
      view.getUint8(off + 7),
    );
    if (boxType === type) yield { start: off + header, end: off + size };
    off += size;
  }
}

function findChild(view: DataView, start: number, end: number, type: string): BoxSpan | undefined {
  for (const span of children(view, start, end, type)) return span;
  return undefined;
}

async function sniffWithFileType(bytes: Uint8Array): Promise<string> {
  const { fileTypeFromBuffer } = await import('file-type');
  const found = await fileTypeFromBuffer(bytes);
  if (!found) return OCTET_STREAM;
  return FILE_TYPE_RENAMES[found.mime] ?? found.mime;
}
