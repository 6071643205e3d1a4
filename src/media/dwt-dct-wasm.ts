// The invisible_watermark check's readings through the WebAssembly kernels (wasm/dwt-dct-kernels.ts,
// compiled by the build): the cell sums of both channel orders, the block rule on them and the
// unsmoothed coefficients, with the same bits as the JavaScript forms (dwt-dct-cells.ts,
// dwt-dct.ts, chroma-upsampling.ts), which the tests hold them to.
//
// One instance per thread, reused: its memory holds a picture's pixels and every plane made from
// them, and memory fresh from the system costs a page fault per 4 KiB on first touch (some 3 ms
// for a 2 MP picture, as much as its reading). WebAssembly memory never shrinks, so a thread
// keeps what its largest picture needed, at most KEEP_KERNEL_BYTES.
import { blockGrid } from './dwt-dct.js';
import { DWT_DCT_WASM } from './dwt-dct-wasm-bytes.js';
import { thomas } from './chroma-upsampling.js';
import type { Alignment, PhaseReading } from './dwt-dct-crop.js';
import { FLOAT_CENTRE, KEPT, softOfArguments, SPREAD, type DisplacementSoft } from './dwt-dct-displacement.js';
import { signsOf, SOFT_OF_SUM, softFromCoefficients, type CropEvidence, type SoftEvidence } from './dwt-dct-soft.js';
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
  uPlane(pixels: number, width: number, height: number, channels: number, out: number): void;
  phases(plane: number, width: number, height: number, sums: number, max3: number, max4: number, cosTable: number, bitsOut: number, meta: number, lattice: number, phasesOut: number): void;
  alignment(bits: number, wide: number, high: number, message: number, L: number, wides: number, count: number, minMatched: number, scratch: number, result: number): number;
  sumPhases(sums: number, stride: number, wide: number, high: number, out: number): void;
  phaseSoft(phases: number, count: number, table: number, softOut: number, bitsOut: number): void;
  halfPhases(pixels: number, width: number, height: number, channels: number, outBgr: number, outRgb: number, rows: number): void;
  softEvidence(soft: number, count: number, L: number, bytes: number, twoSided: number, shifts: number, signs: number, scratch: number, result: number): void;
  cropSoft(soft: number, wide: number, high: number, L: number, signs: number, wides: number, count: number, twoSided: number, bytes: number, scratch: number, result: number): number;
  displacementSums(sums: number, stride: number, rows: number, wide: number, high: number, kept: number, spread: number, centre: number, uint8Out: number, float32Out: number, scratch: number): void;
  displacementCoefficients(ll: number, stride: number, rows: number, wide: number, high: number, kept: number, spread: number, centre: number, uint8Out: number, float32Out: number, scratch: number): void;
}

// cos(2 pi LL / 18) = cos(2 pi sum / 36) for each sum mod 36, as dwt-dct-crop.ts tabulates it.
const LATTICE_COS = Float64Array.from({ length: 36 }, (_, r) => Math.cos((2 * Math.PI * r) / 36));
/** The crop search reads pictures of at most this many pixels a side (invisible-watermark.ts). */
const CROP_SIDE = 1536;
/** Grid phases of the crop search. */
const PHASES = 64;

/** The kernels' x mod 36 (for the tests: it must equal JavaScript's x % 36). */
export function wasmRemainder36(x: number): number {
  return instantiate(0).remainder36(x);
}

let compiled: WebAssembly.Module | undefined;

let instance: Kernels | undefined;

/** The most memory the thread's instance may keep between pictures. The check reads pictures of
 * at most 2048 x 2048 pixels (4.2 MP, invisible-watermark.ts) and lays one out in about 7 bytes a
 * pixel (the pixels, the two orders' cell sums, the unsmoothed coefficients), 30 MB at most; with
 * the crop search's planes (pictures up to 1536 x 1536) 27 MB; past this bound (a caller reading
 * a larger picture), the instance is used for that picture alone and left to the collector. */
export const KEEP_KERNEL_BYTES = 32 * 1024 * 1024;

/** The thread's instance, or, for a layout past KEEP_KERNEL_BYTES, one for that picture alone. */
function instantiate(bytes: number): Kernels {
  compiled ??= new WebAssembly.Module(Buffer.from(DWT_DCT_WASM, 'base64'));
  const fresh = () => new WebAssembly.Instance(compiled!, {}).exports as unknown as Kernels;
  if (bytes > KEEP_KERNEL_BYTES) return fresh();
  instance ??= fresh();
  return instance;
}

/** Rounds up to a multiple of 16 (a vector's alignment). */
const align = (n: number) => (n + 15) & ~15;
/** Where the layout starts: past anything the module keeps at low addresses. */
const BASE = 1 << 16;
/** The kernels' vector loads read up to this many bytes past the last pixel. */
const PADDING = 32;

/** The kernels' displacementSoft on any f64 band `ll` (for the tests: the same doubles as the
 * JavaScript form's, for values no picture's unsmoothed coefficients reach as well). Overwrites
 * the thread's picture (WasmReadings). */
export function wasmDisplacementSoft(ll: Float64Array, stride: number, wide: number, high: number): DisplacementSoft {
  const kernels = instantiate(0);
  const at = align(BASE + 8 * ll.length);
  kernels.reserve(at);
  new Float64Array(kernels.memory.buffer, BASE, ll.length).set(ll);
  return displacementIn(kernels, 'f64', BASE, stride, Math.floor(ll.length / stride), wide, high, at);
}

/**
 * displacementSoft on the band at `band` in the kernels' memory (`kind` u16: 2x2 sums, read at
 * scale 0.5; f64: coefficients), with the kernels' memory from `at` on as room: all but the tanh
 * in WebAssembly (which has no tanh of JavaScript's bits). In JavaScript the search read the sums
 * and the coefficients through one function, its loads polymorphic: both orders of the corpus'
 * 31 readable PNGs took 53-56 ms warm, 20 ms here (of which the kernels 4 ms, the tanh the rest).
 */
function displacementIn(kernels: Kernels, kind: 'u16' | 'f64', band: number, stride: number, rows: number, wide: number, high: number, at: number): DisplacementSoft {
  const blocks = wide * high;
  const uint8 = at;
  const float32 = align(uint8 + 8 * blocks);
  const scratch = align(float32 + 8 * blocks);
  kernels.reserve(scratch + (kind === 'u16' ? 2 * (stride + 8) + 32 * wide + 16 : 256 * wide + 16));
  const kernel = kind === 'u16' ? kernels.displacementSums : kernels.displacementCoefficients;
  kernel(band, stride, rows, wide, high, KEPT, SPREAD, FLOAT_CENTRE, uint8, float32, scratch);
  const { buffer } = kernels.memory;
  return softOfArguments(new Float64Array(buffer, uint8, blocks), new Float64Array(buffer, float32, blocks));
}

/** A picture in the thread's kernels instance: its cell sums made once, each reading on first
 * use. Only the newest WasmReadings of a thread may be read (the next one overwrites the memory):
 * the check reads one picture at a time, synchronously. */
export class WasmReadings {
  private readonly kernels: Kernels;
  private readonly cellsWide: number;
  private readonly cellsHigh: number;
  private readonly wide: number;
  private readonly high: number;
  private readonly bgr: number;
  private readonly rgb: number;
  private readonly blocks: number;
  private readonly ll: number;
  private readonly coefficients: number;
  /** Where the crop search's data ends (phases()), and the alignments' and soft search's begin. */
  private cropEnd: number | undefined;
  /** The half-size reading's block phases of both orders, once made (halfSizePhases). */
  private half: Record<EncoderChannelOrder, Uint8Array> | undefined;

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
    // The crop search's planes come after (phases()), about 4.5 bytes a pixel more, for the
    // pictures it reads (the check's: at most 1536 pixels a side).
    const crop = width <= CROP_SIDE && height <= CROP_SIDE ? Math.ceil(4.5 * width * height) : 0;
    this.kernels = instantiate(end + crop);
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

  /** The unsmoothed reading's block bits (unsmoothedBitsFromSums on the `order` sums; the
   * reference's order unless told). */
  unsmoothed(order: EncoderChannelOrder = 'bgr'): Uint8Array {
    this.unsmooth(order);
    const { kernels } = this;
    kernels.coefficientBits(this.ll, this.cellsWide, this.wide, this.high, this.blocks);
    return new Uint8Array(kernels.memory.buffer, this.blocks, this.wide * this.high).slice();
  }

  /** The unsmoothed reading's soft block values (dwt-dct-soft.ts), of the coefficients the last
   * unsmoothed() made. */
  unsmoothedSoft(): Float64Array {
    const ll = new Float64Array(this.kernels.memory.buffer, this.ll, this.cellsWide * this.cellsHigh);
    return softFromCoefficients(ll, this.cellsWide, this.wide, this.high);
  }

  /** The displacement soft values (dwt-dct-displacement.ts) of the coefficients the last
   * unsmoothed() made. */
  unsmoothedDisplacement(): DisplacementSoft {
    return displacementIn(this.kernels, 'f64', this.ll, this.cellsWide, this.cellsHigh, this.wide, this.high, this.statisticAt());
  }

  /** The displacement soft values of the reference's grid on the `order` sums (an LL
   * coefficient is half its 2x2 sum). */
  sumDisplacement(order: EncoderChannelOrder): DisplacementSoft {
    return displacementIn(this.kernels, 'u16', order === 'bgr' ? this.bgr : this.rgb, this.cellsWide, this.cellsHigh, this.wide, this.high, this.statisticAt());
  }

  /** Each block's largest 2x2 sum but the top-left one, mod 72, on the `order` sums
   * (dwt-dct-soft.ts's sumPhases): the soft reading at the reference's grid. */
  sumPhases(order: EncoderChannelOrder): Uint8Array {
    const { kernels, wide, high } = this;
    const out = this.softEnd();
    kernels.reserve(out + wide * high);
    kernels.sumPhases(order === 'bgr' ? this.bgr : this.rgb, this.cellsWide, wide, high, out);
    return new Uint8Array(kernels.memory.buffer, out, wide * high).slice();
  }

  /** dwt-dct-soft.ts's halfSizePhases: the picture read as the LL band of one twice its size.
   * The kernel reads both orders in one pass over the pixels; the other is kept for its call. */
  halfSizePhases(order: EncoderChannelOrder): Uint8Array {
    if (!this.half) {
      const { kernels, pixels } = this;
      const count = (pixels.width >> 2) * (pixels.height >> 2);
      const bgr = this.softEnd();
      const rgb = align(bgr + count);
      const rows = align(rgb + count);
      kernels.reserve(rows + 8 * pixels.width);
      kernels.halfPhases(BASE, pixels.width, pixels.height, pixels.channels, bgr, rgb, rows);
      const { buffer } = kernels.memory;
      this.half = { bgr: new Uint8Array(buffer, bgr, count).slice(), rgb: new Uint8Array(buffer, rgb, count).slice() };
    }
    return this.half[order];
  }

  /** dwt-dct-soft.ts's softOfPhases and bitsOfPhases of `phases` (of any reading), the same values:
   * in JavaScript these loops ran cold, 8-11 ms of a process reading the corpus' 32 PNGs. */
  softOfPhases(phases: Uint8Array): { soft: Float64Array; bits: Uint8Array } {
    const { kernels } = this;
    const count = phases.length;
    const table = this.statisticAt();
    const at = align(table + 8 * SOFT_OF_SUM.length);
    const bits = align(at + count);
    const soft = align(bits + count);
    kernels.reserve(soft + 8 * count);
    const { buffer } = kernels.memory;
    new Float64Array(buffer, table, SOFT_OF_SUM.length).set(SOFT_OF_SUM);
    new Uint8Array(buffer, at, count).set(phases);
    kernels.phaseSoft(at, count, table, soft, bits);
    return { soft: new Float64Array(buffer, soft, count).slice(), bits: new Uint8Array(buffer, bits, count).slice() };
  }

  /** Where the soft readings' scratch starts: past the readings' layout (the crop search's,
   * phases(), may overwrite it later: its results are copied out first). */
  private softEnd(): number {
    return align(this.coefficients + 16 * (this.cellsWide + this.cellsHigh));
  }

  /** Where the soft statistic's kernels may write: past the crop search's data once it exists. */
  private statisticAt(): number {
    return this.cropEnd ?? this.softEnd();
  }

  /** dwt-dct-soft.ts's softEvidence(classDirection(soft, bits.length, bytes), bits, twoSided), the
   * same doubles; without `shifts`, T alone (softScore; nullMax NaN): the soft statistic of every
   * reading and payload, which in JavaScript ran cold. */
  softEvidence(soft: Float64Array, bits: ArrayLike<number>, bytes: boolean, twoSided: boolean, shifts = true): SoftEvidence {
    const { kernels } = this;
    const L = bits.length;
    const at = this.statisticAt();
    const signs = align(at + 8 * soft.length);
    const result = align(signs + 16 * L);
    const scratch = align(result + 16);
    kernels.reserve(scratch + 29 * L + 160);
    const { buffer } = kernels.memory;
    new Float64Array(buffer, at, soft.length).set(soft);
    new Float64Array(buffer, signs, 2 * L).set(signsOf(bits));
    kernels.softEvidence(at, soft.length, L, bytes ? 1 : 0, twoSided ? 1 : 0, shifts ? 1 : 0, signs, scratch, result);
    const out = new Float64Array(buffer, result, 2);
    return { t: out[0]!, nullMax: shifts ? out[1]! : NaN };
  }

  /** dwt-dct-soft.ts's cropSoftEvidence, the same hypotheses and doubles (the shifts' sums two
   * lanes a vector), for one phase's soft values. */
  cropSoftEvidence(soft: Float64Array, wide: number, high: number, bits: ArrayLike<number>, originalWides: readonly number[], twoSided: boolean, bytes: boolean): CropEvidence | undefined {
    const { kernels } = this;
    const L = bits.length;
    const at = this.statisticAt();
    const signs = align(at + 8 * soft.length);
    const wides = align(signs + 16 * L);
    const result = align(wides + 4 * originalWides.length);
    const scratch = align(result + 24);
    kernels.reserve(scratch + 29 * L + 160);
    const { buffer } = kernels.memory;
    new Float64Array(buffer, at, soft.length).set(soft);
    new Float64Array(buffer, signs, 2 * L).set(signsOf(bits));
    new Int32Array(buffer, wides, originalWides.length).set(originalWides);
    if (!kernels.cropSoft(at, wide, high, L, signs, wides, originalWides.length, twoSided ? 1 : 0, bytes ? 1 : 0, scratch, result)) return undefined;
    const [originalWide, firstBit, tested] = new Int32Array(buffer, result + 8, 3);
    return { t: new Float64Array(buffer, result, 1)[0]!, originalWide: originalWide!, firstBit: firstBit!, tested: tested! };
  }

  /** The unsmoothed coefficients (chroma-upsampling.ts's llFromSums) of the `order` sums. */
  private unsmooth(order: EncoderChannelOrder): void {
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
    kernels.llFromSums(order === 'bgr' ? this.bgr : this.rgb, cellsWide, cellsHigh, this.ll, cA, invA, cD, invD);
  }

  /**
   * dwt-dct-crop.ts's readAllPhases: the block bits of every grid phase, most lattice-like
   * first (the same bits and lattices; its sort, stable, on the same order). The phases' bits
   * stay in the instance's memory, read by alignment() until the next picture.
   */
  phases(): PhaseReading[] {
    const { kernels, pixels } = this;
    const { width, height } = pixels;
    const cells = (width >> 1) * (height >> 1);
    // Past everything the readings use.
    const plane = align(this.coefficients + 16 * (this.cellsWide + this.cellsHigh));
    const sums = align(plane + width * height);
    const max3 = align(sums + 2 * cells);
    const max4 = align(max3 + 2 * cells);
    const cos = align(max4 + 2 * cells);
    const meta = align(cos + 8 * 36);
    const lattice = align(meta + 20 * PHASES);
    // Each phase has at most (width / 8) x (height / 8) blocks: their bits, then their phases.
    const blocks = PHASES * Math.ceil(width / 8) * Math.ceil(height / 8);
    const bits = align(lattice + 8 * PHASES);
    const sumsMod72 = align(bits + blocks);
    this.cropEnd = align(sumsMod72 + blocks);
    kernels.reserve(this.cropEnd + this.scratchBytes(height));
    new Float64Array(kernels.memory.buffer, cos, 36).set(LATTICE_COS);
    kernels.uPlane(BASE, width, height, pixels.channels, plane);
    kernels.phases(plane, width, height, sums, max3, max4, cos, bits, meta, lattice, sumsMod72);
    const info = new Int32Array(kernels.memory.buffer, meta, 5 * PHASES);
    const lattices = new Float64Array(kernels.memory.buffer, lattice, PHASES);
    const readings: (PhaseReading & { at: number; phasesAt: number })[] = [];
    for (let i = 0; i < PHASES; i++) {
      const [phaseX, phaseY, wide, high, offset] = info.subarray(5 * i, 5 * i + 5) as unknown as number[];
      const at = bits + offset!;
      readings.push({ phaseX: phaseX!, phaseY: phaseY!, wide: wide!, high: high!, bits: new Uint8Array(kernels.memory.buffer, at, wide! * high!).slice(), lattice: lattices[i]!, at, phasesAt: sumsMod72 + offset! });
    }
    return readings.sort((a, b) => a.lattice - b.lattice);
  }

  /** The block phases of a reading phases() gave (dwt-dct-soft.ts's phaseSumPhases at its grid
   * phase: each block's largest 2x2 sum mod 72, of which its bits are the hard reading), a copy. */
  phaseSums(reading: PhaseReading): Uint8Array {
    const at = (reading as PhaseReading & { phasesAt?: number }).phasesAt;
    if (at === undefined || this.cropEnd === undefined) throw new Error('phaseSums() takes a reading of this picture\'s phases()');
    return new Uint8Array(this.kernels.memory.buffer, at, reading.wide * reading.high).slice();
  }

  /** dwt-dct-crop.ts's bestAlignment, for a reading phases() gave. */
  alignment(reading: PhaseReading, message: Uint8Array, originalWides: readonly number[], minMatched: number): Alignment | undefined {
    const { kernels } = this;
    const at = (reading as PhaseReading & { at?: number }).at;
    if (at === undefined || this.cropEnd === undefined) throw new Error('alignment() takes a reading of this picture\'s phases()');
    const L = message.length;
    const messageAt = this.cropEnd;
    const widesAt = align(messageAt + L);
    const result = align(widesAt + 4 * originalWides.length);
    const scratch = align(result + 16);
    kernels.reserve(scratch + this.scratchBytes(reading.high, L));
    new Uint8Array(kernels.memory.buffer, messageAt, L).set(message);
    new Int32Array(kernels.memory.buffer, widesAt, originalWides.length).set(originalWides);
    if (!kernels.alignment(at, reading.wide, reading.high, messageAt, L, widesAt, originalWides.length, minMatched, scratch, result)) return undefined;
    const [matched, originalWide, firstBit] = new Int32Array(kernels.memory.buffer, result, 3);
    return { matched: matched!, originalWide: originalWide!, firstBit: firstBit! };
  }

  /** The alignment kernel's scratch for `high` rows of an `L`-bit message (wasm's layout). */
  private scratchBytes(high: number, L = 256): number {
    return 1024 + L + 16 + (high + 3) * L * 4 + 2 * L + 64;
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
