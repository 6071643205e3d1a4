// What decoded pixels may cost, and the per-process bound on them (issue 34, item 4). A picture's
// decode costs its width x height, not its file size: a 3 KB lossless WebP of 8,192 x 8,192
// decoded to 256 MB, and with the decoder's own frame and the checks' copies a folder of four
// took `check` 1.6 GB past its start. So:
// - no check decodes more than MAX_DECODED_PIXELS (pixels.ts refuses from the header, before a
//   byte of pixels is allocated);
// - a decode takes decodeCost from one gate per process (PixelGate), shared by its worker
//   threads over shared memory, and gives it back when its file's detection ends
//   (engine/detect.ts): files wait for room instead of decoding side by side;
// - the daemon also takes the same figure from its media budget (`--media-memory`) before it
//   hands a file to a worker (engine/pixel-reservation.ts, from the header bytes alone).

/** Pictures with more pixels are not decoded by any check: 3,072 x 3,072 (9.4 MP). A generator's
 * own output is smaller (SDXL's 1,024 px; an AUTOMATIC1111 hires-fix at 2x of 1,024 x 1,536 is
 * 2,048 x 3,072), and invisible_watermark reads at most 2,048 x 2,048. A stealth payload or a
 * NovelAI signature on a larger picture is not read (for a signature, generator_metadata's note
 * says so). */
export const MAX_DECODED_PIXELS = 3072 * 3072;

/**
 * Bytes a decode holds per pixel at its peak, with the checks that then read the pixels: the
 * 8-bit samples (3 or 4), the decoder's own buffers while it decodes, and the one copy a check
 * makes afterwards (the NovelAI signature's message of RGB samples, the watermark's upright
 * picture and its transform). libwebp decodes a whole frame, which libvips then copies out, so
 * a WebP costs about twice what a PNG or JPEG (decoded row by row) does. Measured as the peak
 * RSS (VmHWM) of `check` on one file above that on a 64 x 64 WebP, Node 24, in a whole test
 * suite: a 3,072 x 3,072 RGBA WebP through generator_metadata 118 MB (13.1 bytes a pixel); a
 * 2,048 x 2,048 RGB picture through invisible_watermark: WebP 47 MB (11.2), JPEG 46 MB (11.0),
 * PNG 35 MB (8.3). (Earlier readings of 81-103, 38-96 and 26-66 MB came from getrusage's
 * maxRSS, which a child carries over from the process it was forked from: the spread was the
 * test runner's memory, not the decode's.) The figures below keep about twice the room for
 * 2,048 px pictures, and test/pixel-memory.test.ts holds the checks to them.
 */
export const PIXEL_BYTES = 24;
export const WEBP_PIXEL_BYTES = 32;

/** The default bound on decoded pixels held at once in one process, over all its threads. */
export const DEFAULT_PIXEL_MEMORY_BYTES = 256 * 1024 * 1024;

/** What decoding a width x height picture holds (0 when no check decodes it: over the bound). */
export function decodeCost(width: number, height: number, webp: boolean): number {
  const pixels = width * height;
  return pixels > 0 && pixels <= MAX_DECODED_PIXELS ? pixels * (webp ? WEBP_PIXEL_BYTES : PIXEL_BYTES) : 0;
}

/** A WebP file (RIFF....WEBP), whose decode costs WEBP_PIXEL_BYTES a pixel. */
export function isWebp(bytes: Uint8Array): boolean {
  return bytes.length >= 12 && String.fromCharCode(...bytes.subarray(0, 4), ...bytes.subarray(8, 12)) === 'RIFFWEBP';
}

/** Layout of the gate's shared memory (Int32Array): bytes are counted in KiB so that a gate of up
 * to 2 TiB fits in 32 bits, which Atomics.wait needs. */
const USED = 0;
const CAPACITY = 1;
const GATE_BYTES = 8;
/** How long a waiter sleeps before it looks again without being woken (a release missed between
 * its look and its wait, or holds given back by the garbage collector's backstop). */
const RECHECK_MS = 100;

/** Atomics.waitAsync (V8, Node 16+; in TypeScript's lib from ES2024 on, past this project's target). */
const waitAsync = (Atomics as unknown as {
  waitAsync(cells: Int32Array, index: number, value: number, timeoutMs: number): { value: Promise<string> | string };
}).waitAsync;

/**
 * A bound on bytes held at once, shared by every thread that holds its `memory` (the pool hands
 * it to its workers). Holds are taken in any order (no queue: the waiters race when room
 * frees), and one larger than the whole gate is taken alone, when nothing else is held.
 */
export class PixelGate {
  private readonly cells: Int32Array;
  private readonly held: Int32Array | undefined;

  /**
   * @param memory  the gate's shared memory (PixelGate.memoryFor)
   * @param ledger  4 bytes of shared memory where this thread keeps what it holds, so that the
   *                pool can give back the holds of a worker it terminated (reclaim)
   */
  constructor(
    readonly memory: SharedArrayBuffer = PixelGate.memoryFor(DEFAULT_PIXEL_MEMORY_BYTES),
    ledger?: SharedArrayBuffer,
  ) {
    this.cells = new Int32Array(memory, 0, 2);
    this.held = ledger && new Int32Array(ledger, 0, 1);
  }

  /** Shared memory for one thread's ledger. */
  static ledger(): SharedArrayBuffer {
    return new SharedArrayBuffer(4);
  }

  /** Gives back what a thread that is gone (a terminated worker) still held, by its ledger. */
  reclaim(ledger: SharedArrayBuffer): void {
    const lost = Atomics.exchange(new Int32Array(ledger, 0, 1), 0, 0);
    if (lost <= 0) return;
    Atomics.sub(this.cells, USED, lost);
    Atomics.notify(this.cells, USED);
  }

  /** Fresh shared memory for a gate of `capacity` bytes. */
  static memoryFor(capacity: number): SharedArrayBuffer {
    const memory = new SharedArrayBuffer(GATE_BYTES);
    new Int32Array(memory)[CAPACITY] = Math.max(1, Math.ceil(capacity / 1024));
    return memory;
  }

  /** Bytes held now, over every thread. */
  get inUse(): number {
    return Atomics.load(this.cells, USED) * 1024;
  }

  get capacity(): number {
    return Atomics.load(this.cells, CAPACITY) * 1024;
  }

  /** Takes `bytes`, waiting for room; resolves to the function that gives them back (once). */
  async acquire(bytes: number): Promise<() => void> {
    const capacity = Atomics.load(this.cells, CAPACITY);
    const want = Math.min(Math.max(0, Math.ceil(bytes / 1024)), capacity);
    if (want === 0) return () => {};
    for (;;) {
      const used = Atomics.load(this.cells, USED);
      if (used + want <= capacity) {
        if (Atomics.compareExchange(this.cells, USED, used, used + want) === used) {
          if (this.held) Atomics.add(this.held, 0, want);
          break;
        }
        continue; // another thread took room between the look and the take: look again
      }
      await waitAsync(this.cells, USED, used, RECHECK_MS).value;
    }
    let holding = true;
    return () => {
      if (!holding) return;
      holding = false;
      // The gate first: a worker terminated between the two steps leaves its ledger high, and
      // reclaim then gives back too much for a moment rather than leaking room for good.
      Atomics.sub(this.cells, USED, want);
      if (this.held) Atomics.sub(this.held, 0, want);
      Atomics.notify(this.cells, USED);
    };
  }
}
