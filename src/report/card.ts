// The detail card of one file, as HTML: everything the terminal card says (ui/text-report.ts,
// same words through the same functions), plus pictures: the file's thumbnail, the manifest's
// claim thumbnail and each ingredient's own. One renderer for `check --html` and the daemon's
// Verify page. Pure: strings in, a string out; every value from a file is escaped (html.ts).
import { aiIngredientOf, c2paDetails, type C2paDetails, type IngredientNode } from '../detectors/c2pa-manifest.js';
import { CATALOGUE } from '../detectors/catalogue.js';
import type { Hints } from '../media/xmp-hints.js';
import type { DetectionResult, ErrorInfo, Match, Verdict } from '../types.js';
import { disagreementLine, verdictLine, verdictOf } from '../verdict/verdict.js';
import { generatorLines, watermarkLines } from '../ui/ai-marks-card.js';
import { makeStyle } from '../ui/style.js';
import { printable } from '../ui/terminal-text.js';
import { actionWords, aiWords, appWords, explainLines, formatBytes, hintLines, ingredientLine, productWords, signalWords, signerHead, signerWords, trustWords, utcText, validationWords } from '../ui/text-report.js';
import { attr, esc, safeImageUrl } from './html.js';

/** Pictures and details that are not part of a result (the report's and Verify's own reads). */
export interface CardExtras {
  /** The file's thumbnail (data: URL), when it is a picture. */
  thumbnail?: string;
  /** The manifest's claim thumbnail (data: URL). */
  claimThumbnail?: string;
  /** Ingredient thumbnails (data: URLs) by place in the tree ("0", "0/1"). */
  ingredientThumbnails?: Record<string, string>;
  /** C2PA details when the result does not carry them (a remote result, a daemon's pool). */
  details?: C2paDetails;
  /** The CLI's unsigned hints for the file (XMP), shown as the terminal shows them. */
  hints?: Hints;
  /** Pictures left out and why (over the pixel bound, past the time limit: report/extras.ts). */
  picturesNote?: string;
}

export interface CardOptions {
  /** The result came from a /v1 API: trust was decided there. */
  remote?: boolean;
  /** Trust anchors were configured for this run (undefined: unknown). */
  trustAnchors?: boolean;
  /** An id for the card's heading (aria-labelledby); unique in the page. */
  id?: string;
}

const plain = makeStyle(false);

/** Words of a check's result on a badge. */
export const RESULT_WORDS: Record<string, string> = { found: 'found', not_found: 'not found', unavailable: 'unavailable', error: 'could not be read' };

function isPlanned(m: Match): boolean {
  return m.result === 'unavailable' && CATALOGUE.find((d) => d.id === m.check)?.status === 'planned';
}

/** The tags a file's row is filtered by: found, ai, camera, unavailable. */
export function resultTags(result: DetectionResult, hints?: CardExtras['hints']): string[] {
  const tags = new Set<string>();
  for (const m of result.matches) {
    if (m.result === 'found') tags.add('found');
    if (m.result === 'unavailable' && !isPlanned(m)) tags.add('unavailable');
    if (m.check === 'camera_reference' && m.result === 'found') tags.add('camera');
  }
  // AI-generated or containing AI-made content, as the card's verdict says (an AI ingredient too).
  if (verdictOf(result, undefined, hints).ai !== 'none_found') tags.add('ai');
  return [...tags];
}

const badge = (result: string) => `<span class="res res-${esc(result)}">${esc(RESULT_WORDS[result] ?? result)}</span>`;

function row(name: string, valueHtml: string): string {
  return `<dt>${esc(name)}</dt><dd>${valueHtml}</dd>`;
}

function img(url: string | undefined, alt: string, cls: string): string {
  const src = safeImageUrl(url);
  return src ? `<img class="${cls}" src="${src}" alt="${esc(alt)}" decoding="async">` : '';
}

function ingredientTree(nodes: IngredientNode[], hidden: number, prefix: string, thumbs: Record<string, string>): string {
  const items = nodes.map((node, i) => {
    const key = prefix ? `${prefix}/${i}` : String(i);
    const pic = img(thumbs[key], `thumbnail of ingredient ${node.title ?? 'untitled'}`, 'ing-thumb');
    const children = node.children.length || node.omitted ? ingredientTree(node.children, node.omitted ?? 0, key, thumbs) : '';
    const ai = node.aiGenerated ? ' ai' : '';
    return `<li class="ing${ai}">${pic}<span>${esc(printable(ingredientLine(node)))}</span>${children}</li>`;
  });
  if (hidden > 0) items.push(`<li class="ing more">${esc(hidden)} more ingredient${hidden === 1 ? '' : 's'} (not shown)</li>`);
  return items.length ? `<ul class="ings">${items.join('')}</ul>` : '';
}

function c2paSection(match: Match, extras: CardExtras, options: CardOptions): string {
  const claims = match.claims;
  const details = c2paDetails(claims) ?? extras.details;
  // The terminal's words (a signer's name is only "claimed" unless trusted): the name, the one
  // part from the file, made printable there and escaped here; the words around it are our own.
  const signer = match.issuer ? signerHead(match, details, (name) => `<strong>${esc(name)}</strong>`) : 'signer names no organisation';
  const tool = claims?.claim_generator ? `, made with ${esc(printable(claims.claim_generator))}` : '';
  const head = `${badge('found')} ${signer}${tool}`;
  if (!claims) return `<p class="head">${head}</p>`;
  const rows: string[] = [];
  const ai = aiWords(match, details, plain);
  const contains = !claims.ai_generated && aiIngredientOf(details?.ingredients) !== undefined;
  rows.push(row('AI-generated', `<span class="${claims.ai_generated || contains ? 'ai-yes' : ''}">${esc(printable(ai))}</span>`));
  const signals = signalWords(details);
  if (signals) rows.push(row('C2PA signals', esc(printable(signals))));
  rows.push(row('signed by', `<span class="signer">${esc(printable(signerWords(match, details)))}</span>`));
  const trust = trustWords(match, details, plain, { remote: options.remote, trustAnchors: details?.trustAnchors ?? options.trustAnchors });
  const trusted = claims.validation?.state === 'trusted';
  if (trust) rows.push(row('trust', `<span class="${trusted ? 'trust-yes' : 'trust-no'}">${esc(printable(trust))}</span>`));
  const product = productWords(match);
  if (product) rows.push(row('product', `<span class="product">${esc(product)}</span>`));
  rows.push(row('signed at', esc(claims.signed_at ? utcText(claims.signed_at) : 'not stated (no time stamp: when it was signed is unknown)')));
  const app = appWords(match, details);
  if (app) rows.push(row('app or device', esc(printable(app))));
  const actions = details && actionWords(details);
  if (actions) rows.push(row('actions', esc(printable(actions))));
  if (claims.ingredients !== undefined) {
    const count = claims.ingredients === 0 ? 'none' : String(claims.ingredients);
    const tree = details ? ingredientTree(details.ingredients, claims.ingredients - details.ingredients.length, '', extras.ingredientThumbnails ?? {}) : '';
    rows.push(row('ingredients', `${esc(count)}${tree}`));
  }
  const words = validationWords(match, plain, { remote: options.remote, trustAnchors: details?.trustAnchors ?? options.trustAnchors });
  const state = claims.validation?.state ?? 'unknown';
  if (words) rows.push(row('validation', `<span class="v-${esc(state)}">${esc(printable(words))}</span>`));
  const why = explainLines(match, details);
  rows.push(row('why', `<ul class="why">${why.map((l) => `<li>${esc(printable(l.trim()))}</li>`).join('')}</ul>`));
  if (claims.assertions.length) rows.push(row('assertions', `<span class="dim">${esc(printable(claims.assertions.join(', ')))}</span>`));
  const claimPic = img(extras.claimThumbnail, "the manifest's own thumbnail (claim thumbnail)", 'claim-thumb');
  return `<p class="head">${head}</p>${claimPic ? `<figure class="claim">${claimPic}<figcaption>claim thumbnail</figcaption></figure>` : ''}<dl class="rows">${rows.join('')}</dl>`;
}

function matchSection(match: Match, extras: CardExtras, options: CardOptions): string {
  if (match.result === 'unavailable') return `<p class="head">${badge('unavailable')} ${esc(printable(match.reason ?? ''))}</p>`;
  if (match.result === 'not_found') return `<p class="head">${badge('not_found')}${match.note ? ` <span class="dim">${esc(printable(match.note))}</span>` : ''}</p>`;
  if (match.check === 'c2pa') return c2paSection(match, extras, options);
  if (match.check === 'camera_reference') {
    const strength = match.confidence >= 0.9 ? 'make, maker note, model and iOS version agree' : 'make and maker note agree, another field points to an editor';
    return `<p class="head">${badge('found')} EXIF of an Apple iPhone/iPad camera (${esc(strength)}; confidence ${esc(match.confidence)})</p><p class="dim">a hint toward a camera capture: EXIF can be edited</p>`;
  }
  if (match.check === 'generator_metadata' || match.check === 'invisible_watermark') {
    // The terminal's own lines (printable() already applied to the file's text), escaped here.
    const { head, rows } = match.check === 'generator_metadata' ? generatorLines(match, plain) : watermarkLines(match, plain);
    const text = head.replace(/^found(: )?/, '');
    return `<p class="head">${badge('found')} ${esc(text)}</p>${rows.length ? `<ul class="lines">${rows.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>` : ''}`;
  }
  return `<p class="head">${badge('found')} (confidence ${esc(match.confidence)})</p>`;
}

/** The verdict's line at the top of the card (the terminal's words, ui/text-report.ts), and the disagreement's. */
function verdictHtml(verdict: Verdict): string {
  const disagreement = disagreementLine(verdict);
  return (
    `<p class="verdict verdict-${esc(verdict.ai)}">${esc(printable(verdictLine(verdict)))}</p>` +
    (disagreement ? `<p class="verdict verdict-disagree">${esc(printable(disagreement))}</p>` : '')
  );
}

/** The card of a checked file. `source` is the input as given (a path, a URL, a file name). */
export function detailCard(source: string, result: DetectionResult, extras: CardExtras = {}, options: CardOptions = {}): string {
  const id = options.id ?? `card-${result.media.sha256.slice(0, 12)}`;
  const planned = result.matches.filter(isPlanned);
  const sections = result.matches
    .filter((m) => !isPlanned(m))
    .map((m) => `<section class="check c-${esc(m.check)}" aria-label="${esc(m.check)}"><h4>${esc(m.check)}</h4>${matchSection(m, extras, options)}</section>`);
  const hints = hintLines(extras.hints, plain).map((l) => l.trim().replace(/^xmp hint\s+/, ''));
  if (hints.length) {
    sections.push(`<section class="check hint" aria-label="xmp hint"><h4>xmp hint</h4><p class="head">${esc(printable(hints[0]!))}</p>${hints.slice(1).map((l) => `<p class="dim">${esc(printable(l))}</p>`).join('')}</section>`);
  }
  if (extras.picturesNote) {
    sections.push(`<section class="check pictures" aria-label="pictures"><h4>pictures</h4><p class="dim">${esc(extras.picturesNote)}</p></section>`);
  }
  if (planned.length) {
    sections.push(`<section class="check planned" aria-label="planned checks"><h4>planned</h4><p class="dim">${esc(planned.map((m) => m.check).join(', '))}: not available yet</p></section>`);
  }
  const thumb = img(extras.thumbnail, `thumbnail of ${source}`, 'file-thumb');
  const media = result.media;
  return (
    `<article class="card"${attr('aria-labelledby', id)}>` +
    `<header>${thumb}<div><h3${attr('id', id)}>${esc(printable(source))}</h3>` +
    verdictHtml(verdictOf(result, c2paDetails(result.matches.find((m) => m.check === 'c2pa')?.claims) ?? extras.details, extras.hints)) +
    `<p class="meta">${esc(media.type)} · ${esc(formatBytes(media.bytes))} · sha256 <code>${esc(media.sha256)}</code></p></div></header>` +
    sections.join('') +
    `</article>`
  );
}

/** The card of an input that could not be read. */
export function errorCard(source: string, error: ErrorInfo, options: CardOptions = {}): string {
  const id = options.id ?? 'card-error';
  return (
    `<article class="card"${attr('aria-labelledby', id)}><header><div><h3${attr('id', id)}>${esc(printable(source))}</h3></div></header>` +
    `<p class="head">${badge('error')} ${esc(printable(error.message))} (${esc(error.type)})</p></article>`
  );
}
