// invisible_watermark: the open-source invisible-watermark (ShieldMnt/imwatermark) dwtDct marks
// that Stable Diffusion's reference scripts, the SDXL / Stable Video Diffusion pipelines and
// InvokeAI add (CONTRACT "Detectors beyond the hosted catalogue"). The blocks are read exactly as
// the reference decoder reads them (media/dwt-dct.ts), so `bits_matched` on the reference's own
// reading is the reference's number; further readings recover what the reference misses on the
// corpus (see judgePixels). Thresholds and confidences are measured on
// ../shared/corpus/ai (test/invisible-watermark-corpus.test.ts checks them on every file).
import { blockGrid, matchingBits, voteBits } from '../media/dwt-dct.js';
import { WasmReadings } from '../media/dwt-dct-wasm.js';
import { alignedMatches, type PhaseReading } from '../media/dwt-dct-crop.js';
import { chromaSubsampled } from '../media/chroma-sampling.js';
import { classDirection, softEvidence, softOfPhases } from '../media/dwt-dct-soft.js';
import { exifOrientation } from '../media/exif-orientation.js';
import { orientPixels } from '../media/orientation.js';
import { pictureSize } from '../media/picture-size.js';
import { decodePixels, PixelDecodeError, readPixelHeader, type RawPixels } from '../media/pixels.js';
import { WATERMARK_PAYLOADS, type Detector, type DetectorOutcome, type Media, type WatermarkPayload } from '../types.js';
import { PAYLOAD_BITS } from './invisible-watermark-payloads.js';
import { FALSE_ALARM, falseAlarmOf, softConfidence, softFind, type SoftReading } from './invisible-watermark-soft.js';

/** The reference refuses pictures of fewer pixels (`r*c < 256*256`, by area, not by side). */
export const MIN_WATERMARK_PIXELS = 256 * 256;
/** Larger pictures are not read: generators mark their native output (SD 512-768 px, SDXL
 * 1024 px and its aspect buckets up to 1536 x 640, SVD 1024 x 576, SD 2's x4 upscaler up to
 * 2048 x 2048), so a picture of more pixels than 2048 x 2048 (4.2 MP) has been scaled since,
 * which erases the mark. The bound also keeps a scan of a phone's photos (12 MP and more) from
 * decoding every one of them: decoding a 12 MP JPEG alone costs some 60 ms, fifty times the rest
 * of its checks (docs/PERFORMANCE.md). */
export const MAX_WATERMARK_PIXELS = 2048 * 2048;

/** detect.py's bands for the 48-bit SDXL message: "likely" from 34 matching bits, "very likely"
 * (no false positive in Stability's 10,000 real images) from 36. */
const SDXL_LIKELY = 34;
const SDXL_VERY_LIKELY = 36;
/** Our extra readings (bits inverted, channels swapped, chroma unsmoothed) give more chances
 * to match by luck, so they must match more: 40 of 48 (random bits: 1 in 600,000 per reading,
 * against 1 in 360 at 34). On the corpus, its 33 unmarked pictures of readable size reach at
 * most 29 on any reading, and a picture marked with a byte payload at most 33 (InvokeAI's JPEG
 * q95 read swapped and inverted). */
const SDXL_EXTRA_READING = 40;
/** Byte payloads: at least 90 % of the bits. The reference counts only a byte-exact decode;
 * on the corpus, unmarked pictures reach at most 62.5 % on any reading and a picture marked
 * with another payload at most 73.7 % (StableDiffusionV1 read as StableDiffusionV1-Inpainting:
 * the ASCII payloads share their high bits), so 90 % keeps both far below while tolerating a
 * few bits lost to damage (random bits: 1 in 780,000 for SDV2's 32, far less for the others). */
const BYTE_PAYLOAD_SHARE = 0.9;
/** Cropped pictures (see readCropped): the original widths tried, in blocks of 8 pixels: the
 * multiples of 64 pixels from 512 to 1536 that SD 1/2, SDXL's aspect buckets, SVD and InvokeAI
 * write. A crop is searched at all 64 grid phases for SDXL's message (at least 44 of 48: the
 * corpus' unmarked pictures reach 38 of 48 under that many hypotheses, random bits 1 in 36,000
 * per picture) and at the 4 most lattice-like phases for the byte payloads (90 %, SDV2 all 32:
 * unmarked pictures reach 78 %). */
const ORIGINAL_WIDES = Array.from({ length: 17 }, (_, i) => 64 + 8 * i);
const CROP_SDXL = 44;
const CROP_BYTE_PHASES = 4;

/** A reading whose blocks vote one value this often is a flat-chroma picture (low saturation
 * gives all-zero blocks: 21/48 on sdxl48), never a mark: the payloads' bits are 41-56 % ones. */
const FLAT_BLOCK_SHARE = 0.9;

type Outcome = DetectorOutcome;

interface Candidate {
  payload: WatermarkPayload;
  bitsMatched: number;
  confidence: number;
  note?: string;
}

function isFlat(blocks: Uint8Array): boolean {
  if (blocks.length === 0) return true;
  let ones = 0;
  for (let i = 0; i < blocks.length; i++) ones += blocks[i]!;
  const share = ones / blocks.length;
  return share >= FLAT_BLOCK_SHARE || share <= 1 - FLAT_BLOCK_SHARE;
}

const BYTE_PAYLOADS = ['StableDiffusionV1', 'StableDiffusionV1-Inpainting', 'SDV2', 'InvokeAI'] as const;

/** The byte payload `blocks` carry, if any: their encoders (CompVis/runwayml and Stability's
 * SD 2 scripts, InvokeAI) hand cv2 a BGR uint8 picture, as the decoder assumes, so they are
 * never read swapped or inverted. */
function bytePayload(blocks: Uint8Array, note?: string): Candidate | undefined {
  let best: Candidate | undefined;
  for (const payload of BYTE_PAYLOADS) {
    const expected = PAYLOAD_BITS[payload];
    const matched = matchingBits(voteBits(blocks, expected.length), expected);
    if (matched < Math.ceil(BYTE_PAYLOAD_SHARE * expected.length)) continue;
    // Byte-exact is what the reference calls recovered; a few bits short is our own call.
    const confidence = matched === expected.length ? 0.9 : 0.8;
    if (!best || matched / expected.length > best.bitsMatched / PAYLOAD_BITS[best.payload].length) {
      best = { payload, bitsMatched: matched, confidence, ...(note ? { note } : {}) };
    }
  }
  return best;
}

/** SDXL's message on one of our extra readings (40 of 48 bits or more). */
function sdxlExtra(blocks: Uint8Array, inverted: boolean, note: string): Candidate | undefined {
  const expected = PAYLOAD_BITS.sdxl48;
  const matched = matchingBits(voteBits(blocks, expected.length), expected);
  const bitsMatched = inverted ? expected.length - matched : matched;
  return bitsMatched >= SDXL_EXTRA_READING ? { payload: 'sdxl48', bitsMatched, confidence: 0.85, note } : undefined;
}

const SWAPPED_NOTE =
  "Read with the red and blue channels swapped, as diffusers' SDXL watermarker wrote its mark from July 2023 to April 2024.";
const INVERTED_NOTE =
  "Read with every bit inverted, as SDXL's float32 watermarking leaves the mark on warm-toned pictures (lossy re-encoding can invert it too).";
const CROPPED_NOTE =
  'Read on a shifted block grid: the picture looks cut from a larger marked one, whose grid the reference decoder does not look for.';
const UNSMOOTHED_NOTE =
  "Read from the chroma as the file stores it, before the decoder's upsampling smoothed it, a reading the reference decoder lacks.";

/**
 * The readings, first match wins. First the reference's own (its bits_matched is the
 * reference's): byte payloads, then SDXL's message by detect.py's bands. Then ours, each for a
 * failure of the reference measured on the corpus, byte payloads still at 90 % and SDXL's
 * message at the stricter SDXL_EXTRA_READING:
 * - every bit inverted: the float32 encoders of generative-models and diffusers quantise U
 *   centred on 0 instead of 128, which inverts the bits wherever the chroma is warm (the
 *   corpus' ribbons picture reads 1/48 for the reference, 47/48 inverted);
 * - red and blue swapped: diffusers fed RGB where BGR was expected from 2023-07 to 2024-04
 *   (21/48 for the reference, 45/48 swapped), as is and inverted;
 * - for JPEG and WebP whose chroma was stored subsampled (chroma-sampling.ts: not a 4:4:4
 *   JPEG, not a lossless WebP), the chroma before the decoder's upsampling (chroma-upsampling.ts):
 *   the corpus' WebP q90 files read InvokeAI 64/64 and StableDiffusionV1 136/136 where the
 *   reference reads 34 and 68, an SDXL JPEG q95 41/48 where it reads 33;
 * - the soft statistic (readSoft, invisible-watermark-soft.ts): every block's phase, and its
 *   displacement from its neighbours (dwt-dct-displacement.ts; for SDXL's message also as its
 *   float32 encoders moved it), correlated with each payload,
 *   against a null from the picture itself, with a false-alarm bound (issue 39: JPEG q95 4:2:0,
 *   WebP, pictures halved in size, marks the votes lose to a bias);
 * - for PNGs that look cropped, every grid phase and original width (readCropped), hard and soft.
 */
function judgePixels(pixels: RawPixels, lossy: boolean, subsampled: boolean): Outcome {
  const found = readMark(pixels, lossy, subsampled);
  if (!found) return notFound(!lossy);
  const outcome: Outcome = {
    result: 'found',
    confidence: found.confidence,
    watermark: {
      method: 'dwtDct',
      payload: found.payload,
      bits_matched: found.bitsMatched,
      bits_total: PAYLOAD_BITS[found.payload].length,
    },
  };
  if (found.note) outcome.note = found.note;
  return outcome;
}

/** `subsampled`: the file's chroma was stored subsampled (chroma-sampling.ts), so a decoder
 * upsampled it, which the unsmoothed reading undoes; a 4:4:4 JPEG or a lossless WebP has none. */
function readMark(pixels: RawPixels, lossy: boolean, subsampled: boolean): Candidate | undefined {
  // Every reading from the cell sums of one pass over the pixels, in the WebAssembly kernels;
  // each on first use: an unmarked picture needs them all, a marked one often only the first.
  const readings = new WasmReadings(pixels);
  const reference = readings.reference();
  const referenceFlat = isFlat(reference);
  if (!referenceFlat) {
    const bytes = bytePayload(reference);
    if (bytes) return bytes;
    const sdxl = PAYLOAD_BITS.sdxl48;
    const matched = matchingBits(voteBits(reference, sdxl.length), sdxl);
    if (matched >= SDXL_VERY_LIKELY) return { payload: 'sdxl48', bitsMatched: matched, confidence: 0.9 };
    // detect.py's "likely" band passes 0.02 % of real pictures (one of the 130 unmarked photos
    // of our held-out set at 1024 x 768); there the soft statistic of the same reading must also
    // stand above all its cyclic shifts (on that photo: 2.0 against 2.6; on the corpus' marked
    // SDXL JPEG q95 at 34/48: 4.8 against 1.8).
    if (matched >= SDXL_LIKELY && softOutranksShifts(readings.sumPhases('bgr'), sdxl)) {
      return { payload: 'sdxl48', bitsMatched: matched, confidence: 0.7 };
    }
  }
  // Before the inverted and swapped readings: smoothing by a lossy decoder can leave most bits
  // inverted too, and the note should name the cause that is undone.
  if (lossy && subsampled) {
    const unsmoothed = readings.unsmoothed();
    if (!isFlat(unsmoothed)) {
      const found = bytePayload(unsmoothed, UNSMOOTHED_NOTE) ?? sdxlExtra(unsmoothed, false, UNSMOOTHED_NOTE);
      if (found) return found;
    }
  }
  if (!referenceFlat) {
    const inverted = sdxlExtra(reference, true, INVERTED_NOTE);
    if (inverted) return inverted;
  }
  const swapped = readings.swapped();
  if (!isFlat(swapped)) {
    const found = sdxlExtra(swapped, false, SWAPPED_NOTE) ?? sdxlExtra(swapped, true, `${SWAPPED_NOTE} ${INVERTED_NOTE}`);
    if (found) return found;
  }
  const soft = readSoft(readings, subsampled);
  if (soft) return soft;
  return lossy ? undefined : readCropped(readings);
}

/** Whether `bits`, as written, correlate with the blocks of `phases` (dwt-dct-soft.ts) more
 * than any of their cyclic shifts do. */
function softOutranksShifts(phases: Uint8Array, bits: Uint8Array): boolean {
  const { t, nullMax } = softEvidence(classDirection(softOfPhases(phases), bits.length), bits, false);
  return t > nullMax;
}

/** Doubled, a picture's sides must be a size generators write (multiples of 64 from 512 to 2048:
 * SD 1/2, SDXL's aspect buckets, SVD, InvokeAI) for its half-size reading. */
function halvedFromGenerator(width: number, height: number): boolean {
  const fits = (side: number) => side % 32 === 0 && side >= 256 && side <= 1024;
  return fits(width) && fits(height);
}

const SOFT_NOTE = 'Read on the soft statistic (every block\'s phase correlated with the payload, not voted bit by bit)';
const DISPLACEMENT_NOTE =
  "Each block read by how far the coefficient that stands out most stands from its neighbours (the encoder's move, which a lossy save shortens but rarely reverses), not by the phase of its largest coefficient.";
const FLOAT32_NOTE =
  "Read as SDXL's float32 watermarking wrote the mark (its chroma centred on 0, so the moves of warm-toned blocks go the other way), which the reference decoder reads half inverted.";
const HALF_NOTE =
  'Read as a picture halved in size from a marked one: its own chroma is read as the band the mark was written in, a reading the reference decoder lacks.';

/**
 * The soft readings (invisible-watermark-soft.ts), where no hard reading found a payload: the
 * reference's grid (chroma unsmoothed when the file stored it subsampled), both channel orders,
 * each read by the phase and by the displacement (a JPEG's quantiser shortens the encoder's
 * moves: on the wm-jpeg helper's held-out JPEG q95 4:2:0 files the displacement lifted the finds
 * from 99 to 159 of 196), the displacement also as SDXL's float32 encoders moved it (on the same
 * files 159 to 175, SDXL's three float32 call paths 118 to 150 of 168), and, for a picture whose
 * doubled size a generator writes and whose chroma is whole, the half-size reading.
 */
function readSoft(readings: WasmReadings, subsampled: boolean): Candidate | undefined {
  const soft: SoftReading[] = [];
  for (const order of ['bgr', 'rgb'] as const) {
    if (subsampled) {
      const bits = readings.unsmoothed(order);
      soft.push(withKernelEvidence(readings, { kind: 'unsmoothed', order, soft: readings.unsmoothedSoft(), bits }));
      const displacement = readings.unsmoothedDisplacement();
      soft.push(withKernelEvidence(readings, { kind: 'unsmoothed', order, statistic: 'displacement', soft: displacement.uint8, bits }));
      soft.push(withKernelEvidence(readings, { kind: 'unsmoothed', order, statistic: 'float32-displacement', soft: displacement.float32, bits }));
    } else {
      const { soft: values, bits } = readings.softOfPhases(readings.sumPhases(order));
      soft.push(withKernelEvidence(readings, { kind: 'reference', order, soft: values, bits }));
      const displacement = readings.sumDisplacement(order);
      soft.push(withKernelEvidence(readings, { kind: 'reference', order, statistic: 'displacement', soft: displacement.uint8, bits }));
      soft.push(withKernelEvidence(readings, { kind: 'reference', order, statistic: 'float32-displacement', soft: displacement.float32, bits }));
    }
  }
  const { pixels } = readings;
  if (!subsampled && halvedFromGenerator(pixels.width, pixels.height)) {
    for (const order of ['bgr', 'rgb'] as const) {
      soft.push(withKernelEvidence(readings, { kind: 'half', order, ...readings.softOfPhases(readings.halfSizePhases(order)) }));
    }
  }
  const found = softFind(soft);
  if (!found) return undefined;
  const reading = found.reading;
  const causes = [
    reading.statistic === undefined ? undefined : DISPLACEMENT_NOTE,
    reading.statistic === 'float32-displacement' ? FLOAT32_NOTE : undefined,
    reading.kind === 'unsmoothed' ? UNSMOOTHED_NOTE : reading.kind === 'half' ? HALF_NOTE : undefined,
    reading.order === 'rgb' ? SWAPPED_NOTE : undefined,
    found.t < 0 ? INVERTED_NOTE : undefined,
  ].filter(Boolean);
  const figure = `${SOFT_NOTE}: ${Math.abs(found.t).toFixed(1)} against at most ${found.nullMax.toFixed(1)} for the payload's ${PAYLOAD_BITS[found.payload].length - 1} cyclic shifts; an unmarked picture reaches it at most ${oneIn(found.falseAlarm)} (${found.hypotheses} payloads and readings tried).`;
  return { payload: found.payload, bitsMatched: found.bitsMatched, confidence: found.confidence, note: [figure, ...causes].join(' ') };
}

/** A soft reading whose statistic the kernels make (the same doubles as the JavaScript form). */
function withKernelEvidence(readings: WasmReadings, reading: SoftReading): SoftReading {
  return { ...reading, evidence: (bits, bytes, twoSided, shifts) => readings.softEvidence(reading.soft, bits, bytes, twoSided, shifts) };
}

/** "1 time in 12,000" for a probability. */
function oneIn(p: number): string {
  const n = 1 / p;
  const rounded = n >= 1000 ? Number(n.toPrecision(2)) : Math.round(n);
  return `1 time in ${grouped(rounded)}`;
}

/** A whole number with its thousands grouped by commas, as toLocaleString('en-GB') writes it
 * (12,000; 1,100,000,000,000,000,000,000 for 1.1e21), without Intl: a process's first
 * NumberFormat loads ICU's locale data, 30-100 ms measured, more than a picture's soft reading. */
export function grouped(n: number): string {
  if (!Number.isInteger(n)) return n.toLocaleString('en-GB');
  const [mantissa, exponent] = String(n).split('e+');
  const digits = exponent === undefined ? mantissa! : mantissa!.replace('.', '').padEnd(Number(exponent) + 1, '0');
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * A lossless picture cut from a larger marked one (dwt-dct-crop.ts). Only pictures that look
 * cut: a side not a multiple of 8 (generators write multiples of 8, of 64 for the widths above),
 * and no larger than the largest original tried. The corpus' crop10 files (the central 90 %,
 * offset 25 pixels) read InvokeAI 62/64, SDV2 32/32 and SDXL 48/48 and 43/48 this way, where
 * the reference reads noise.
 */
function readCropped(readings: WasmReadings): Candidate | undefined {
  const { width, height } = readings.pixels;
  const largest = ORIGINAL_WIDES[ORIGINAL_WIDES.length - 1]! * 8;
  if ((width % 8 === 0 && height % 8 === 0) || width > largest || height > largest) return undefined;
  const phases = readings.phases().filter((phase) => !isFlat(phase.bits));
  let best: Candidate | undefined;
  const consider = (payload: WatermarkPayload, candidates: PhaseReading[], threshold: number) => {
    const message = PAYLOAD_BITS[payload];
    for (const phase of candidates) {
      const aligned = readings.alignment(phase, message, ORIGINAL_WIDES, threshold);
      if (!aligned) continue;
      if (!best || aligned.matched / message.length > best.bitsMatched / PAYLOAD_BITS[best.payload].length) {
        best = { payload, bitsMatched: aligned.matched, confidence: 0.85, note: CROPPED_NOTE };
      }
    }
  };
  const latticeLike = phases.slice(0, CROP_BYTE_PHASES);
  for (const payload of BYTE_PAYLOADS) {
    const length = PAYLOAD_BITS[payload].length;
    // SDV2's 32 bits under this many hypotheses: all of them, or luck would pass.
    consider(payload, latticeLike, payload === 'SDV2' ? length : Math.ceil(BYTE_PAYLOAD_SHARE * length));
  }
  if (!best) consider('sdxl48', phases, CROP_SDXL);
  return best ?? readCroppedSoft(readings, latticeLike);
}

/**
 * The crop search on the soft statistic (dwt-dct-soft.ts's cropSoftEvidence), where the hard
 * search found nothing: the most lattice-like phases, every payload, every original width and
 * first bit. All those hypotheses count in the false-alarm bound, so the bar is higher than on
 * the reference's grid (29,344 hypotheses on a crop narrower than 512 pixels: T from 5.9), which
 * SDV2's 32 bits (T at most 4.36) and InvokeAI's 64 (at most 6.36, damaged less) rarely pass:
 * their crops are left to the hard search, which reads them whole.
 */
function readCroppedSoft(readings: WasmReadings, phases: readonly PhaseReading[]): Candidate | undefined {
  let hypotheses = 0;
  let best: { payload: WatermarkPayload; t: number; hard: Uint8Array; wide: number; high: number; originalWide: number; firstBit: number } | undefined;
  for (const phase of phases) {
    const { wide, high } = phase;
    const { soft, bits } = readings.softOfPhases(readings.phaseSums(phase));
    for (const payload of WATERMARK_PAYLOADS) {
      const evidence = readings.cropSoftEvidence(soft, wide, high, PAYLOAD_BITS[payload], ORIGINAL_WIDES, payload === 'sdxl48', payload !== 'sdxl48');
      if (!evidence) continue;
      hypotheses += evidence.tested;
      // Byte payloads one-sided (cropSoftEvidence gives their largest T), SDXL's in magnitude.
      if (evidence.t <= 0 && payload !== 'sdxl48') continue;
      if (!best || Math.abs(evidence.t) > Math.abs(best.t)) {
        best = { payload, t: evidence.t, hard: bits, wide, high, originalWide: evidence.originalWide, firstBit: evidence.firstBit };
      }
    }
  }
  if (!best) return undefined;
  const strength = Math.abs(best.t);
  const falseAlarm = hypotheses * falseAlarmOf(strength);
  if (falseAlarm > FALSE_ALARM) return undefined;
  const message = PAYLOAD_BITS[best.payload];
  const matched = alignedMatches(best.hard, best.wide, best.high, best.originalWide, best.firstBit, message);
  const figure = `${SOFT_NOTE}: ${strength.toFixed(1)} at the best of ${grouped(hypotheses)} grid phases, original widths and first bits; an unmarked picture reaches it at most ${oneIn(falseAlarm)}.`;
  return {
    payload: best.payload,
    bitsMatched: best.t < 0 ? message.length - matched : matched,
    confidence: softConfidence(falseAlarm),
    note: [figure, CROPPED_NOTE, ...(best.t < 0 ? [INVERTED_NOTE] : [])].join(' '),
  };
}

/** Nothing read. The mark survives lossless saves (the corpus' 11 marked PNGs as saved are all
 * read) but not most lossy re-encodes below quality 90 (3 of its 9 marked JPEGs at q85 and q75
 * are read), so an absence in a JPEG or WebP (lossless WebP included: not told apart) says less
 * (docs/DETECTORS.md's survival table). */
function notFound(lossless: boolean): Outcome {
  return { result: 'not_found', confidence: lossless ? 0.8 : 0.5 };
}

function sizeNote(width: number, height: number): string | undefined {
  const pixels = width * height;
  const size = `${width} x ${height}`;
  if (pixels < MIN_WATERMARK_PIXELS) {
    return `The picture (${size}) has fewer pixels than 256 x 256, too few for an invisible watermark to be embedded or read.`;
  }
  if (pixels > MAX_WATERMARK_PIXELS) {
    return `The picture (${size}) has more pixels than 2048 x 2048, larger than generators that embed this watermark write, so it was not read.`;
  }
  return undefined;
}

function sizeRefusal({ width, height }: { width: number; height: number }, note: string): Outcome {
  return { result: 'not_found', confidence: width * height < MIN_WATERMARK_PIXELS ? 0.9 : 0.5, note };
}

/** Where a PNG's chunk list breaks off before IEND: a cut-off file. sharp (failOn 'none') gives
 * such a file's missing rows as black, but cv2.imread reads none of it, so the reference has no
 * picture to decode, and neither do we. Only the chunk lengths are walked, not their CRCs. */
function pngCutOff(bytes: Uint8Array): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 8; at + 12 <= bytes.length; ) {
    const length = view.getUint32(at);
    if (view.getUint32(at + 4) === 0x49454e44) return false; // 'IEND'
    at += 12 + length;
  }
  return true;
}

/** The picture as cv2.imread(IMREAD_COLOR) gives it to the reference decoder: decoded, and
 * turned upright by EXIF orientation for JPEG and PNG (OpenCV 4.6 reads no EXIF from WebP). */
export async function uprightPixels(media: Media, orientation?: number): Promise<RawPixels> {
  const pixels = await decodePixels(media.bytes);
  if (media.type === 'image/webp') return pixels;
  return orientPixels(pixels, orientation ?? (await readPixelHeader(media.bytes)).orientation);
}

async function run(media: Media): Promise<Outcome> {
  try {
    if (media.type === 'image/png' && pngCutOff(media.bytes)) {
      throw new PixelDecodeError('the PNG ends before its last chunk (IEND)');
    }
    // Too small: the encoder refuses such pictures, so no mark is there to read. Too large: not
    // looked at, so the absence is weak. Told from the header bytes when they are plain, so that
    // a refused picture never loads the decoder; else from sharp's reading of the header.
    const quick = pictureSize(media.bytes, media.type);
    const quickNote = quick && sizeNote(quick.width, quick.height);
    if (quickNote) return sizeRefusal(quick, quickNote);
    // The size and orientation from the header bytes when they are plain (WebP's orientation is
    // never used: see uprightPixels), else from libvips' reading of the header.
    const orientation = media.type === 'image/webp' ? 1 : exifOrientation(media.bytes, media.type);
    let header = quick && orientation !== undefined ? { ...quick, orientation } : undefined;
    if (!header) {
      header = await readPixelHeader(media.bytes);
      const note = sizeNote(header.width, header.height);
      if (note) return sizeRefusal(header, note);
    }
    const pixels = await uprightPixels(media, header.orientation);
    const { wide, high } = blockGrid(pixels.width, pixels.height);
    const lossy = media.type !== 'image/png';
    if (wide * high === 0) return notFound(!lossy);
    return judgePixels(pixels, lossy, lossy && chromaSubsampled(media.bytes, media.type) !== false);
  } catch (err) {
    if (!(err instanceof PixelDecodeError)) throw err;
    return {
      result: 'unavailable',
      confidence: 0,
      reason: `The file is damaged in a way the invisible_watermark check cannot read: ${err.message}.`,
    };
  }
}

export const invisibleWatermark: Detector = {
  id: 'invisible_watermark',
  name: 'Invisible watermark (dwtDct)',
  description:
    "Reads the open-source invisible-watermark (dwtDct) marks that Stable Diffusion's reference scripts, the SDXL and Stable Video Diffusion pipelines and InvokeAI add to the pixels. The mark is read through metadata stripping, lossless crops (a cut-out is read on the generator's 8-pixel block grid, at every offset), a halving of the picture and most JPEG or WebP saves at quality 90-95; other resizes and JPEG at quality 85 or below mostly erase it.",
  media_types: ['image/png', 'image/jpeg', 'image/webp'],
  status: 'available',
  inverse: false,
  run,
};
