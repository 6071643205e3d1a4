// The invisible_watermark check's readings through the WebAssembly kernels (wasm/dwt-dct-kernels.ts,
// compiled by the build): the cell sums of both channel orders, the block rule on them and the
// unsmoothed coefficients, with the same bits as the JavaScript forms (dwt-dct-cells.ts,
// dwt-dct.ts, chroma-upsampling.ts), which the tests hold them to.
//
// One instance per thread, reused: its memory holds a picture's pixels and every plane made from
// them (about 8 bytes a pixel), and memory fresh from the system costs a page fault per 4 KiB on
// first touch (some 3 ms for a 2 MP picture, as much as its reading). WebAssembly memory never
// shrinks, so a thread keeps what its largest picture needed: at most about 50 MB, since the
// check reads no picture past 2048 x 2048 (invisible-watermark.ts).
import { blockGrid } from './dwt-dct.js';
import { DWT_DCT_WASM } from './dwt-dct-wasm-bytes.js';
import { thomas } from './chroma-upsampling.js';
import type { EncoderChannelOrder } from './opencv-yuv.js';
import type { RawPixels } from './pixels.js';

interface Kernels {
  memory: WebAssembly.Memory;
  reserve(bytes: number): void;
  cellSums(pixels: number, width: number, height: number, channels: number, bgr: number, rgb: number): void;
  blockBits(sums: number, stride: number, wide: number, high: number, out: number, pixels: number, width: number, channels: number, order: number): void;
  llFromSums(sums: number, cellsWide: number, cellsHigh: number, ll: number, cA: number, invA: number, cD: number, invD: number): void;
  coefficientBits(ll: number, stride: number, wide: number, high: number, out: number): void;
  remainder36(x: number): number;
}

/** The kernels' x mod 36 (for the tests: it must equal JavaScript's x % 36). */
export function wasmRemainder36(x: number): number {
  return instantiate().remainder36(x);
}

let compiled: WebAssembly.Module | undefined;

let instance: Kernels | undefined;

function instantiate(): Kernels {
  compiled ??= new WebAssembly.Module(Buffer.from(DWT_DCT_WASM, 'base64'));
  instance ??= new WebAssembly.Instance(compiled, {}).exports as unknown as Kernels;
  return instance;
}

/** Rounds up to a multiple of 16 (a vector's alignment). */
const align = (n: number) => (n + 15) & ~15;
/** Where the layout starts: past anything the module keeps at low addresses. */
const BASE = 1 << 16;
/** The kernels' vector loads read up to this many bytes past the last pixel. */
const PADDING = 32;

/** A picture in the thread's kernels instance: its cell sums made once, each reading on first
 * use. Only the newest WasmReadings of a thread may be read (the next one overwrites the memory):
 * the check reads one picture at a time, synchronously. */
export class WasmReadings {
  private readonly kernels = instantiate();
  private readonly cellsWide: number;
  private readonly cellsHigh: number;
  private readonly wide: number;
  private readonly high: number;
  private readonly bgr: number;
  private readonly rgb: number;
  private readonly blocks: number;
  private readonly ll: number;
  private readonly coefficients: number;

  constructor(readonly pixels: RawPixels) {
    const { width, height, channels, data } = pixels;
    this.cellsWide = width >> 1;
    this.cellsHigh = height >> 1;
    ({ wide: this.wide, high: this.high } = blockGrid(width, height));
    const cells = this.cellsWide * this.cellsHigh;
    const pixelsAt = BASE;
    this.bgr = align(pixelsAt + data.length + PADDING);
    this.rgb = align(this.bgr + 2 * cells);
    this.blocks = align(this.rgb + 2 * cells);
    this.ll = align(this.blocks + this.wide * this.high);
    this.coefficients = align(this.ll + 8 * cells);
    const end = this.coefficients + 16 * (this.cellsWide + this.cellsHigh);
    this.kernels.reserve(end);
    new Uint8Array(this.kernels.memory.buffer, pixelsAt, data.length).set(data);
    this.kernels.cellSums(pixelsAt, width, height, channels, this.bgr, this.rgb);
  }

  /** The reference's block bits (blockBitsFromSums on the `bgr` sums). */
  reference(): Uint8Array {
    return this.blockBits('bgr');
  }

  /** The swapped reading's block bits (the `rgb` sums). */
  swapped(): Uint8Array {
    return this.blockBits('rgb');
  }

  /** The unsmoothed reading's block bits (unsmoothedBitsFromSums). */
  unsmoothed(): Uint8Array {
    const { kernels, cellsWide, cellsHigh } = this;
    const across = thomas(cellsWide);
    const down = thomas(cellsHigh);
    const f64 = (at: number, length: number) => new Float64Array(kernels.memory.buffer, at, length);
    const cA = this.coefficients;
    const invA = cA + 8 * cellsWide;
    const cD = invA + 8 * cellsWide;
    const invD = cD + 8 * cellsHigh;
    f64(cA, cellsWide).set(across.c);
    f64(invA, cellsWide).set(across.inverse);
    f64(cD, cellsHigh).set(down.c);
    f64(invD, cellsHigh).set(down.inverse);
    kernels.llFromSums(this.bgr, cellsWide, cellsHigh, this.ll, cA, invA, cD, invD);
    kernels.coefficientBits(this.ll, cellsWide, this.wide, this.high, this.blocks);
    return new Uint8Array(kernels.memory.buffer, this.blocks, this.wide * this.high).slice();
  }

  /** The unsmoothed coefficients of the last unsmoothed() (for the tests: the same doubles as
   * llFromSums'). */
  coefficientsForTest(): Float64Array {
    return new Float64Array(this.kernels.memory.buffer, this.ll, this.cellsWide * this.cellsHigh).slice();
  }

  private blockBits(order: EncoderChannelOrder): Uint8Array {
    const { kernels, cellsWide, wide, high, pixels } = this;
    kernels.blockBits(order === 'bgr' ? this.bgr : this.rgb, cellsWide, wide, high, this.blocks, BASE, pixels.width, pixels.channels, order === 'bgr' ? 0 : 1);
    return new Uint8Array(kernels.memory.buffer, this.blocks, wide * high).slice();
  }
}
