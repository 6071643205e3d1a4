// `check --html REPORT.html`: the scan report written as the scan goes (src/report/ renders it).
// Rows are written in input order, each whole, with synchronous writes: whatever the file holds
// when the process stops is a document a browser shows (report/scan-report.ts), and the tail is
// written on a normal end, on Ctrl-C, and from the exit hook should a second Ctrl-C end the
// process at once. Thumbnails and the manifest's pictures come from the local file's bytes
// (also for results from an API); standard input and URLs get none.
import { closeSync, openSync, writeSync } from 'node:fs';
import { cardExtras } from '../report/extras.js';
import type { CardExtras } from '../report/card.js';
import { reportErrorRow, reportHead, reportRow, reportTail } from '../report/scan-report.js';
import type { Hints } from '../media/xmp-hints.js';
import type { DetectionResult, ErrorInfo, TrustOptions } from '../types.js';
import { STDIN } from '../engine/inputs.js';
import { maskUrlSecrets, shownInput } from '../engine/masked-url.js';
import { readRegularFile } from '../engine/local-file.js';

export interface HtmlReportOptions {
  path: string;
  inputs: string[];
  /** How many inputs there were, when `inputs` holds the first few only (a scan's). */
  inputCount?: number;
  where: string;
  startedAt: number;
  version?: string;
  /** The anchors the checks used, for the manifest's second read (its pictures). */
  trust?: TrustOptions;
  remote: boolean;
  trustAnchors?: boolean;
}

/** Files larger than this are not read again for pictures (their row says what was found). */
const MAX_READ_BYTES = 256 * 1024 * 1024;
/** Pictures made at once (sharp works on libuv's threads; the scan keeps its workers). */
const PICTURES_AT_ONCE = 4;
/** After Ctrl-C, pictures are still made for this long; rows still waiting then go without. */
const PICTURE_GRACE_MS = 2000;
/** Pictures kept by SHA-256 for later copies (a few KB each). */
const EXTRAS_CACHE_MAX = 4096;

type Entry =
  | { n: number; source: string; ok: true; result: DetectionResult; hints?: Hints; extras?: CardExtras; row?: string; started?: boolean }
  | { n: number; source: string; ok: false; error: ErrorInfo; row?: string; started?: boolean };

export class HtmlReportWriter {
  private fd: number;
  private n = 0;
  private written = 0;
  private readonly queue: Entry[] = [];
  private running = 0;
  private closed = false;
  /** When pictures stop being made (set by Ctrl-C); rows waiting after it are written without. */
  private deadline: number | undefined;
  private readonly thumbs = new Map<string, Promise<string | undefined>>();
  /**
   * Pictures made or being made, by SHA-256: a copy's row gets its first's without the file
   * being read again (.bench/report-10k, a folder ten times over, read 3.5 GB more for nothing).
   */
  private readonly extrasBySha = new Map<string, Promise<CardExtras>>();
  /** SHA-256s whose thumbnail a written row holds (later copies point at it). */
  private readonly thumbsWritten = new Set<string>();
  private waiters: (() => void)[] = [];
  private readonly onExit = () => this.closeNow(true);

  constructor(private readonly options: HtmlReportOptions) {
    this.fd = openSync(options.path, 'w');
    // The page's title and "Inputs:" line show the inputs as given, so a URL's secrets are masked
    // here as its row masks them (a report is a file that gets passed around).
    const inputs = options.inputs.map(shownInput);
    writeSync(this.fd, reportHead({ startedAt: new Date(options.startedAt), inputs, inputCount: options.inputCount, where: maskUrlSecrets(options.where), version: options.version }));
    process.on('exit', this.onExit);
  }

  add(source: string, result: DetectionResult, hints?: Hints): void {
    this.queue.push({ n: this.n++, source, ok: true, result, hints });
    this.pump();
  }

  addError(source: string, error: ErrorInfo): void {
    const n = this.n++;
    this.queue.push({ n, source, ok: false, error, row: reportErrorRow(n, source, error) });
    this.flushReady();
  }

  /** After Ctrl-C: pictures for a short while more, then rows without them (end soon). */
  stopPictures(): void {
    this.deadline ??= Date.now() + PICTURE_GRACE_MS;
  }

  private get hurry(): boolean {
    return this.deadline !== undefined && Date.now() >= this.deadline;
  }

  /** Writes the rows still waiting and closes the document. */
  async finish(interrupted: boolean): Promise<void> {
    if (interrupted) this.stopPictures();
    this.pump();
    while (this.written < this.n && !this.closed) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.closeNow(interrupted);
  }

  private pump(): void {
    for (const entry of this.queue) {
      if (this.running >= PICTURES_AT_ONCE && !this.hurry) break;
      if (entry.row !== undefined || entry.started) continue;
      entry.started = true;
      this.running++;
      void this.pictures(entry).then((extras) => {
        if (entry.ok) entry.extras = extras;
        this.running--;
        this.flushReady();
        this.pump();
      });
    }
  }

  private async pictures(entry: Entry): Promise<CardExtras> {
    if (!entry.ok || this.hurry) return {};
    const sha = entry.result.media.sha256;
    const known = this.extrasBySha.get(sha);
    if (known) return { ...(await known) };
    const made = this.picturesOf(entry.source, entry.result);
    if (this.extrasBySha.size >= EXTRAS_CACHE_MAX) this.extrasBySha.delete(this.extrasBySha.keys().next().value!);
    this.extrasBySha.set(sha, made);
    const extras = await made;
    // Nothing made (a read that failed, a remote source): the next copy tries its own file.
    if (!extras.thumbnail && !extras.details && !extras.claimThumbnail) this.extrasBySha.delete(sha);
    return { ...extras };
  }

  private async picturesOf(source: string, result: DetectionResult): Promise<CardExtras> {
    try {
      const bytes = await this.bytesFor(source, result);
      return bytes ? await cardExtras(bytes, result, { trust: this.options.trust, cache: this.thumbs }) : {};
    } catch {
      return {}; // the file changed or vanished since it was checked: the row without pictures
    }
  }

  /** The row's markup, made in input order (so the first row of a picture is the one holding it). */
  private render(entry: Entry): string {
    if (!entry.ok) return reportErrorRow(entry.n, entry.source, entry.error);
    const sha = entry.result.media.sha256;
    const thumbnailWritten = Boolean(entry.extras?.thumbnail) && this.thumbsWritten.has(sha);
    if (entry.extras?.thumbnail) this.thumbsWritten.add(sha);
    return reportRow(entry.n, entry.source, entry.result, { ...entry.extras, hints: entry.hints }, { remote: this.options.remote, trustAnchors: this.options.trustAnchors, thumbnailWritten });
  }

  private async bytesFor(source: string, result: DetectionResult): Promise<Uint8Array | undefined> {
    if (source === STDIN || /^https?:\/\//i.test(source)) return undefined;
    const wanted = result.media.type.startsWith('image/') || result.matches.some((m) => m.check === 'c2pa' && m.result === 'found');
    if (!wanted) return undefined;
    // Not a regular file (any more), or larger than a check reads: the row without pictures.
    return readRegularFile(source, { maxBytes: MAX_READ_BYTES + 1 });
  }

  /** Writes every finished row at the head of the queue, in input order. */
  private flushReady(): void {
    let chunk = '';
    while (this.queue.length) {
      const head = this.queue[0]!;
      const ready = head.row !== undefined || (head.ok && head.extras !== undefined);
      if (!ready) break;
      this.queue.shift();
      chunk += head.row ?? this.render(head);
      this.written++;
    }
    if (chunk && !this.closed) writeSync(this.fd, chunk);
    if (this.written === this.n) for (const w of this.waiters.splice(0)) w();
  }

  private closeNow(interrupted: boolean): void {
    if (this.closed) return;
    this.closed = true;
    process.removeListener('exit', this.onExit);
    writeSync(this.fd, reportTail({ files: this.written, elapsedMs: Date.now() - this.options.startedAt, interrupted }));
    closeSync(this.fd);
    for (const w of this.waiters.splice(0)) w();
  }
}
