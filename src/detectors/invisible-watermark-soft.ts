// The invisible_watermark check's soft, known-payload reading (issue 39; media/dwt-dct-soft.ts):
// where no hard reading (invisible-watermark.ts) finds a payload, every block's phase is
// correlated with each known payload, and a payload is found when its statistic T passes a bar
// set by the false-alarm rate it gives and outranks every cyclic shift of itself on the same
// reading (the null the picture itself provides).
import { classDirection, softEvidence, softScore, type SoftEvidence } from '../media/dwt-dct-soft.js';
import { matchingBits, voteBits } from '../media/dwt-dct.js';
import type { EncoderChannelOrder } from '../media/opencv-yuv.js';
import type { WatermarkPayload } from '../types.js';
import { PAYLOAD_BITS } from './invisible-watermark-payloads.js';

/** One soft reading of a picture: its blocks' soft values and hard bits, in block order. */
export interface SoftReading {
  kind: 'reference' | 'unsmoothed' | 'half';
  order: EncoderChannelOrder;
  /** Which soft value each block gives: the phase of its largest coefficient (dwt-dct-soft.ts,
   * unless told) or how far that coefficient stands from the next (dwt-dct-displacement.ts), as
   * a uint8 encoder moved it or, for SDXL's message alone, as a float32 one did. */
  statistic?: 'displacement' | 'float32-displacement';
  soft: Float64Array;
  bits: Uint8Array;
  /** A payload's evidence on `soft` (softEvidence of classDirection: `bytes` centred per bit of a
   * byte, `twoSided` shifts in magnitude; without `shifts`, T alone and nullMax NaN), made by the
   * kernels (dwt-dct-wasm.ts's softEvidence, the same doubles), where the reading has them. */
  evidence?: (bits: Uint8Array, bytes: boolean, twoSided: boolean, shifts: boolean) => SoftEvidence;
}

/** A payload's evidence on one reading. */
export interface SoftCandidate {
  payload: WatermarkPayload;
  reading: SoftReading;
  /** T (sign included: negative is the payload read inverted) and its shifts' largest. */
  t: number;
  nullMax: number;
}

/** A soft find. */
export interface SoftFind {
  payload: WatermarkPayload;
  /** The hard vote on the same reading (inverted for an inverted SDXL mark), as bits_matched. */
  bitsMatched: number;
  t: number;
  nullMax: number;
  /** Hypotheses tested on the picture, and the bound on an unmarked picture's chance to pass. */
  hypotheses: number;
  falseAlarm: number;
  confidence: number;
  reading: SoftReading;
}

/** The most false alarms a picture may have, all its hypotheses together: the bar T must pass is
 * sqrt(2 ln(hypotheses / FALSE_ALARM)), 4.24 for the 8 hypotheses of one reading kind, 4.40 for 16. */
export const FALSE_ALARM = 1e-3;

const BYTE_PAYLOADS: readonly WatermarkPayload[] = ['StableDiffusionV1', 'StableDiffusionV1-Inpainting', 'SDV2', 'InvokeAI'];

/** Hypotheses a reading tests: the byte payloads only as written, in the reference's order
 * (their encoders hand cv2 BGR uint8); SDXL's message as written and inverted, either order; on
 * a float32 reading, SDXL's message as written alone (the reading undoes the inversion). */
function hypothesesOf(reading: SoftReading): number {
  if (reading.statistic === 'float32-displacement') return 1;
  return reading.order === 'bgr' ? BYTE_PAYLOADS.length + 2 : 2;
}

/** Whether SDXL's message counts inverted too on `reading` (its strength then |T|). */
function twoSidedOn(reading: SoftReading, payload: WatermarkPayload): boolean {
  return payload === 'sdxl48' && reading.statistic !== 'float32-displacement';
}

/** SDV2's four bytes are too short to set their ASCII structure aside (dwt-dct-soft.ts's
 * classDirection): what is left caps T at 4.36, under the bar. It is read with the one mean, and
 * its T must stand SDV2_MARGIN above every cyclic shift of it, whose byte rotations (8, 16 and 24
 * bits) carry the same structure: a picture whose classes follow the structure raises them alike.
 * Measured: SDV2's T on the held-out marked PNGs 4.9-5.6 against shifts of 1.0-1.6; on unmarked
 * pictures and pictures marked with another payload at most 2.8. */
const SDV2_MARGIN = 2;

function byteCentred(payload: WatermarkPayload): boolean {
  return payload !== 'sdxl48' && payload !== 'SDV2';
}

/** Every payload's evidence on every reading. `worth(reading, payload, t)`: when given, a
 * candidate it refuses has its shifts left untaken (nullMax NaN): T alone is L terms, its shifts
 * L^2. */
export function softCandidates(readings: readonly SoftReading[], worth?: (reading: SoftReading, payload: WatermarkPayload, t: number) => boolean): SoftCandidate[] {
  const out: SoftCandidate[] = [];
  for (const reading of readings) {
    const directions = new Map<number, Float64Array>();
    const direction = (length: number, bytes: boolean) => {
      let d = directions.get(bytes ? length : -length);
      if (!d) directions.set(bytes ? length : -length, (d = classDirection(reading.soft, length, bytes)));
      return d;
    };
    const payloads = reading.order === 'bgr' && reading.statistic !== 'float32-displacement' ? [...BYTE_PAYLOADS, 'sdxl48' as const] : (['sdxl48'] as const);
    for (const payload of payloads) {
      const bits = PAYLOAD_BITS[payload];
      const twoSided = twoSidedOn(reading, payload);
      if (reading.evidence) {
        const { t } = reading.evidence(bits, byteCentred(payload), twoSided, false);
        out.push(worth && !worth(reading, payload, t) ? { payload, reading, t, nullMax: NaN } : { payload, reading, ...reading.evidence(bits, byteCentred(payload), twoSided, true) });
        continue;
      }
      const d = direction(bits.length, byteCentred(payload));
      const t = softScore(d, bits);
      out.push(worth && !worth(reading, payload, t) ? { payload, reading, t, nullMax: NaN } : { payload, reading, ...softEvidence(d, bits, twoSided) });
    }
  }
  return out;
}

/** An unmarked picture's chance to reach `t` on one hypothesis: exp(-t^2 / 2) (dwt-dct-soft.ts). */
export function falseAlarmOf(t: number): number {
  return Math.exp((-t * t) / 2);
}

/** Confidence by the false-alarm bound of the find. */
export function softConfidence(falseAlarm: number): number {
  if (falseAlarm <= 1e-9) return 0.9;
  if (falseAlarm <= 1e-6) return 0.85;
  if (falseAlarm <= 1e-4) return 0.8;
  return 0.7;
}

/** The payload found on the soft readings, if any: the candidate of lowest false-alarm bound
 * among those that pass FALSE_ALARM and outrank all their shifts. */
export function softFind(readings: readonly SoftReading[]): SoftFind | undefined {
  const hypotheses = readings.reduce((n, r) => n + hypothesesOf(r), 0);
  const strengthOf = (reading: SoftReading, payload: WatermarkPayload, t: number) => (twoSidedOn(reading, payload) ? Math.abs(t) : t);
  // A T past the bar is rare (a mark, or a picture's structure), so the shifts are taken for it alone.
  const passes = (reading: SoftReading, payload: WatermarkPayload, t: number) => hypotheses * falseAlarmOf(strengthOf(reading, payload, t)) <= FALSE_ALARM;
  let best: SoftFind | undefined;
  for (const c of softCandidates(readings, passes)) {
    if (!passes(c.reading, c.payload, c.t)) continue;
    const strength = strengthOf(c.reading, c.payload, c.t);
    if (strength <= c.nullMax + (c.payload === 'SDV2' ? SDV2_MARGIN : 0)) continue;
    const falseAlarm = hypotheses * falseAlarmOf(strength);
    if (best && falseAlarm >= best.falseAlarm) continue;
    const expected = PAYLOAD_BITS[c.payload];
    const matched = matchingBits(voteBits(c.reading.bits, expected.length), expected);
    best = {
      payload: c.payload,
      bitsMatched: c.t < 0 ? expected.length - matched : matched,
      t: c.t,
      nullMax: c.nullMax,
      hypotheses,
      falseAlarm,
      confidence: softConfidence(falseAlarm),
      reading: c.reading,
    };
  }
  return best;
}
