// The scan report of `provenance check --html`: one self-contained HTML file (styles, script and
// pictures inline; nothing is fetched when it is opened from disk), written as the scan goes.
// The document is three parts: `reportHead` (everything up to the open list of rows), one
// `reportRow` per input in input order, and `reportTail` (closes the list and the document).
// Rows are whole elements, so a file cut anywhere between two rows is still a document a
// browser shows in full (HTML closes what is open at the end); the CLI also writes the tail on
// Ctrl-C. The chart and the counts are drawn by the script from the rows themselves, so they
// are right for whatever the file holds.
import { createHash } from 'node:crypto';
import { CATALOGUE } from '../detectors/catalogue.js';
import type { DetectionResult, ErrorInfo } from '../types.js';
import { printable } from '../ui/terminal-text.js';
import { CAVEAT } from '../ui/text-report.js';
import { detailCard, errorCard, RESULT_WORDS, resultTags, type CardExtras, type CardOptions } from './card.js';
import { attr, esc, safeImageUrl } from './html.js';
import { REPORT_SCRIPT } from './report-script.js';
import { BASE_CSS, CARD_CSS, REPORT_CSS } from './styles.js';

export interface ReportHeadInfo {
  /** When the scan started. */
  startedAt: Date;
  /** The inputs as given on the command line (shown, shortened). */
  inputs: string[];
  /** How many inputs there were, when `inputs` holds the first few only (a distributed scan's). */
  inputCount?: number;
  /** Where the checks ran: "this machine" or the API's URL. */
  where: string;
  version?: string;
}

const FILTERS: [string, string][] = [
  ['all', 'all'],
  ['found', 'a marker found'],
  ['ai', 'AI-generated'],
  ['camera', 'camera'],
  ['unavailable', 'unavailable'],
  ['error', 'errors'],
];

/** The report's policy: its script by hash ('sha256-…' of REPORT_SCRIPT), never 'unsafe-inline'. */
export const REPORT_CSP = `default-src 'none'; style-src 'unsafe-inline'; script-src '${scriptHash(REPORT_SCRIPT)}'; img-src data:; form-action 'none'; base-uri 'none'`;

function scriptHash(script: string): string {
  return `sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}`;
}

export function reportHead(info: ReportHeadInfo): string {
  const count = Math.max(info.inputCount ?? 0, info.inputs.length);
  const inputs = count > 5 ? `${info.inputs.slice(0, 5).join(', ')} and ${count - 5} more` : info.inputs.join(', ');
  const started = info.startedAt.toISOString().replace(/\.\d+Z$/, 'Z');
  const filters = FILTERS.map(([value, label], i) => `<label><input type="radio" name="show" value="${value}"${i === 0 ? ' checked' : ''}> ${esc(label)}</label>`).join('');
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    // No request of any kind: the policy forbids every fetch but inline styles, data: pictures
    // and the one script whose hash it names. No other script runs: no inline handler (onerror=,
    // onclick=), even if markup from a file or an API's answer got past the escaping.
    `<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">` +
    `<meta name="referrer" content="no-referrer">` +
    `<title>Provenance report: ${esc(printable(inputs))}</title>` +
    `<style>${BASE_CSS}${CARD_CSS}${REPORT_CSS}</style><script>${REPORT_SCRIPT}</script></head>\n<body><main>` +
    `<h1>Provenance report</h1>` +
    `<p class="scan-meta">Inputs: ${esc(printable(inputs))} · checked on ${esc(info.where)} · started ${esc(started)}${info.version ? ` · provenance ${esc(info.version)}` : ''}</p>` +
    `<p class="scan-meta" id="scan-meta" role="status">The scan is running or was stopped; reopen this file when it has ended.</p>` +
    `<p class="caveat">${esc(CAVEAT)}</p>` +
    `<h2 id="chart-h">Results per check</h2><div id="chart" aria-labelledby="chart-h"><p>The chart and the files' cards need JavaScript; the list below has every file.</p></div>` +
    `<div class="legend" aria-hidden="true"><span><i class="b-found"></i>found</span><span><i class="b-not_found"></i>not found</span><span><i class="b-unavailable"></i>unavailable</span><span><i class="b-error"></i>could not be read</span></div>` +
    `<h2 id="files-h">Files</h2>` +
    `<form id="tools" class="tools" role="search" aria-label="Filter, search and sort the files">` +
    `<fieldset><legend>Show</legend>${filters}</fieldset>` +
    `<label>Search <input type="search" id="q" autocomplete="off" placeholder="name, signer, tool"></label>` +
    `<label>Sort by <select id="sort"><option value="input">input order</option><option value="name">name</option><option value="type">type</option><option value="size">size</option><option value="found">found first</option></select></label>` +
    `<output id="shown" aria-live="polite"></output></form>` +
    `<ol id="rows" aria-labelledby="files-h">\n`
  );
}

const ICONS: Record<string, string> = { video: '▶', audio: '♪' };

/** Check ids become attribute names: letters, digits and underscores only. */
const checkAttr = (check: string) => check.toLowerCase().replace(/[^a-z0-9_]/g, '_');

function isPlanned(check: string, result: string): boolean {
  return result === 'unavailable' && CATALOGUE.find((d) => d.id === check)?.status === 'planned';
}

/** Words searched besides the source: signers, tools, generators. */
function searchWords(result: DetectionResult): string {
  const words: string[] = [];
  for (const m of result.matches) {
    if (m.issuer) words.push(m.issuer);
    if (m.claims?.claim_generator) words.push(m.claims.claim_generator);
    if (m.generator) words.push(m.generator.tool, m.generator.app ?? '', m.generator.model ?? '');
    if (m.watermark) words.push(m.watermark.payload);
  }
  return words.filter(Boolean).join(' ').slice(0, 500);
}

/**
 * The card as a comment, which the script turns into markup when its row is opened: a browser
 * parses a comment as one string, not as the card's 20 to 60 elements, so 11,000 rows open in
 * about three quarters of the time (docs/PERFORMANCE.md). Safe because no card can end a comment
 * early: every `>` from a file is escaped, and the card's own tags never end in `--`. A card that
 * did would be written as markup.
 */
function lazyCard(card: string): string {
  return /--!?>/.test(card) ? card : `<!--${card}-->`;
}

export interface RowOptions extends CardOptions {
  /**
   * An earlier row already holds this file's thumbnail (the same SHA-256): this row names it
   * (`data-same`) and the script copies it, so a folder with copies carries each picture once.
   */
  thumbnailWritten?: boolean;
}

/** One checked input: its row (thumbnail, name, type, each check's result) and its card. */
export function reportRow(n: number, source: string, result: DetectionResult, extras: CardExtras = {}, options: RowOptions = {}): string {
  const results = result.matches.filter((m) => !isPlanned(m.check, m.result));
  const data = results.map((m) => attr(`data-result-${checkAttr(m.check)}`, m.result)).join('');
  const family = result.media.type.split('/')[0] ?? '';
  const src = safeImageUrl(extras.thumbnail);
  const sha = esc(result.media.sha256);
  const thumb = !src
    ? `<span aria-hidden="true">${(Object.hasOwn(ICONS, family) && ICONS[family]) || '□'}</span>`
    : options.thumbnailWritten
      ? `<img data-same="${sha}" alt="" decoding="async">`
      : `<img data-sha="${sha}" src="${src}" alt="" decoding="async">`;
  const badges = results.map((m) => `<span class="res res-${esc(m.result)}">${esc(m.check)}: ${esc(RESULT_WORDS[m.result] ?? m.result)}</span>`).join('');
  // The row's own thumbnail is the card's: the card leaves it out, so each picture is in the file once.
  const card = lazyCard(detailCard(source, result, { ...extras, thumbnail: undefined }, { remote: options.remote, trustAnchors: options.trustAnchors, id: `c${n}` }));
  return (
    `<li${attr('data-n', n)}${attr('data-source', source)}${attr('data-type', result.media.type)}${attr('data-bytes', result.media.bytes)}` +
    `${attr('data-tags', resultTags(result, extras.hints).join(' '))}${attr('data-search', searchWords(result))}${data}>` +
    `<details><summary><span class="thumb">${thumb}</span><span class="name">${esc(printable(source))}</span>` +
    `<span class="type">${esc(result.media.type)}</span><span class="badges">${badges}</span></summary>${card}</details></li>\n`
  );
}

/** An input that could not be read. */
export function reportErrorRow(n: number, source: string, error: ErrorInfo): string {
  return (
    `<li${attr('data-n', n)}${attr('data-source', source)} data-error="1" data-tags="error">` +
    `<details><summary><span class="thumb"><span aria-hidden="true">!</span></span><span class="name">${esc(printable(source))}</span>` +
    `<span class="type">—</span><span class="badges"><span class="res res-error">could not be read</span></span></summary>` +
    `${errorCard(source, error, { id: `c${n}` })}</details></li>\n`
  );
}

export interface ReportTailInfo {
  files: number;
  elapsedMs: number;
  interrupted: boolean;
}

export function reportTail(info: ReportTailInfo): string {
  const seconds = info.elapsedMs / 1000;
  const rate = seconds > 0 ? info.files / seconds : 0;
  const end = info.interrupted
    ? `Stopped (Ctrl-C, or an error that ended the walk) after ${info.files} input${info.files === 1 ? '' : 's'}, ${seconds.toFixed(1)} s: every input listed was checked whole.`
    : `${info.files} input${info.files === 1 ? '' : 's'} checked in ${seconds.toFixed(1)} s (${rate.toFixed(1)} files/s).`;
  // The script reads #scan-end; the sentence replaces the "running" one for readers without it.
  return (
    `</ol><p id="scan-end" class="scan-meta"${attr('data-files', info.files)}${attr('data-elapsed-ms', Math.round(info.elapsedMs))}${info.interrupted ? ' data-interrupted="1"' : ''}>${esc(end)}</p>` +
    `</main></body></html>\n`
  );
}
