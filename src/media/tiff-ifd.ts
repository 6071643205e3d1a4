// A bounded walker over a TIFF-structured block: the body of a JPEG's Exif APP1 segment, a WebP
// EXIF chunk or a TIFF file's own header. Shared by the camera tags (exif-tags.ts) and the
// generator records (exif-text.ts). Every offset is checked against the block, an IFD holds at
// most MAX_ENTRIES entries and a caller reads a value through a byte cap of its own choosing, so
// a hostile block can neither read outside itself nor make us allocate more than the cap.

/** The EXIF block is present but broken (offsets outside it, a bad byte-order mark...). */
export class ExifDamage extends Error {}

export const TYPE_BYTE = 1;
export const TYPE_ASCII = 2;
export const TYPE_LONG = 4;
export const TYPE_UNDEFINED = 7;
export const TYPE_IFD = 13;
/** Bytes per value of each TIFF field type (1-13); unknown types are skipped. */
const TYPE_SIZE = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4];

/** More entries than this in one IFD is damage, not a camera (real IFD0s hold a few dozen). */
const MAX_ENTRIES = 4096;

export interface IfdEntry {
  type: number;
  count: number;
  /** Where the value is: inside the entry when it fits in 4 bytes, else at its offset. */
  at: number;
  size: number;
}

const utf8 = new TextDecoder('utf-8');

export class TiffBlock {
  private readonly view: DataView;
  readonly little: boolean;

  constructor(readonly b: Uint8Array) {
    if (b.length < 8) throw new ExifDamage('the EXIF block is shorter than its header');
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const order = this.view.getUint16(0);
    if (order === 0x4949) this.little = true;
    else if (order === 0x4d4d) this.little = false;
    else throw new ExifDamage('the EXIF block has no byte-order mark');
    if (this.u16(2) !== 42) throw new ExifDamage('the EXIF block is not TIFF-structured');
  }

  /** Where IFD0 starts. */
  get firstIfd(): number {
    return this.u32(4);
  }

  u16(at: number): number {
    this.need(at, 2);
    return this.view.getUint16(at, this.little);
  }

  u32(at: number): number {
    this.need(at, 4);
    return this.view.getUint32(at, this.little);
  }

  need(at: number, size: number): void {
    if (at < 0 || size < 0 || at + size > this.b.length) throw new ExifDamage('an EXIF offset points outside the EXIF block');
  }

  /** The entries of the IFD at `offset` whose tags are wanted, first occurrence of each. */
  entries(offset: number, wanted: readonly number[]): Map<number, IfdEntry> {
    const count = this.u16(offset);
    if (count > MAX_ENTRIES) throw new ExifDamage(`an EXIF directory claims ${count} entries`);
    this.need(offset + 2, count * 12);
    const found = new Map<number, IfdEntry>();
    for (let i = 0; i < count; i++) {
      const e = offset + 2 + i * 12;
      const tag = this.u16(e);
      if (!wanted.includes(tag) || found.has(tag)) continue;
      const type = this.u16(e + 2);
      const valueCount = this.u32(e + 4);
      const unit = TYPE_SIZE[type];
      if (!unit) continue; // a type TIFF does not define: skipped, as readers do
      const size = unit * valueCount;
      const at = size <= 4 ? e + 8 : this.u32(e + 8);
      found.set(tag, { type, count: valueCount, at, size });
    }
    return found;
  }

  /** An ASCII field as text, up to its first NUL and at most `maxBytes` long; undefined when empty. */
  text(entry: IfdEntry | undefined, maxBytes: number): string | undefined {
    if (!entry || entry.type !== TYPE_ASCII) return undefined;
    const size = Math.min(entry.size, maxBytes);
    this.need(entry.at, size);
    const raw = utf8.decode(this.b.subarray(entry.at, entry.at + size));
    const value = raw.replace(/\0[\s\S]*$/, '').trim(); // up to the first NUL, as C strings end
    return value === '' ? undefined : value;
  }

  /** The first `maxBytes` bytes of a field of any byte-sized type (ASCII, BYTE, UNDEFINED). */
  bytes(entry: IfdEntry | undefined, maxBytes: number): Uint8Array | undefined {
    if (!entry || (entry.type !== TYPE_UNDEFINED && entry.type !== TYPE_BYTE && entry.type !== TYPE_ASCII)) return undefined;
    const size = Math.min(entry.size, maxBytes);
    this.need(entry.at, size);
    return this.b.subarray(entry.at, entry.at + size);
  }

  pointer(entry: IfdEntry | undefined): number | undefined {
    if (!entry || (entry.type !== TYPE_LONG && entry.type !== TYPE_IFD) || entry.count < 1) return undefined;
    return this.u32(entry.at);
  }
}
