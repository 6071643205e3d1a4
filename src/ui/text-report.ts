// The readable report of `provenance check` without --json: a few lines per file, then a summary.
// A file with a C2PA credential gets a short card (issue 7): AI origin and the signal it comes
// from, signer, signing time, app or device, actions, ingredients, validation in plain words.
import { aiIngredientOf, aiSignal, c2paDetails, sourceTypeTerm, type C2paDetails, type IngredientNode } from '../detectors/c2pa-manifest.js';
import { CATALOGUE } from '../detectors/catalogue.js';
import { shortened as shortPath } from '../engine/input-error.js';
import type { Hints } from '../media/xmp-hints.js';
import type { DetectionResult, ErrorInfo, Match, Verdict } from '../types.js';
import { disagreementLine, verdictLine, verdictOf } from '../verdict/verdict.js';
import type { ScanStats } from './scan-stats.js';
import type { Style } from './style.js';
import { explainCode } from './validation-codes.js';
import { generatorLines, watermarkLines } from './ai-marks-card.js';
import { printable } from './terminal-text.js';

export interface ReportOptions {
  /** `--explain`: a sentence for each validation code. */
  explain?: boolean;
  /** Whether trust anchors were configured for this run; undefined when unknown (a remote result). */
  trustAnchors?: boolean;
  /** The result came from a /v1 API: trust was decided there, not with local anchors. */
  remote?: boolean;
  /** The CLI's unsigned hints for this file (XMP). */
  hints?: Hints;
}

export const CAVEAT =
  'A missing marker proves nothing: screenshots and re-encodes strip markers, and most cameras and editors never write them. A found marker is evidence, not proof.';

/** The longest check id (invisible_watermark) and two spaces. */
const LABEL_WIDTH = 21;

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

const UNTRUSTED = 'signingCredential.untrusted';
const CARD_WIDTH = 15;

/** What an IPTC digital source type means, in a few words. */
const SOURCE_TYPE_WORDS: Record<string, string> = {
  trainedAlgorithmicMedia: 'made by a generative AI model',
  compositeWithTrainedAlgorithmicMedia: 'a composite that includes generative AI output',
  algorithmicMedia: 'made by an algorithm, not by a trained model',
  digitalCapture: 'captured by a camera or recorder',
  computationalCapture: 'captured with computational processing',
  negativeFilm: 'scanned from a film negative',
  positiveFilm: 'scanned from a film positive',
  print: 'scanned from a print',
  humanEdits: 'edited by a person',
  minorHumanEdits: 'lightly edited by a person',
  algorithmicallyEnhanced: 'enhanced by an algorithm',
  compositeCapture: 'a composite of captures',
  composite: 'a composite of several elements',
  compositeSynthetic: 'a composite that includes synthetic elements',
  digitalCreation: 'made by a person with digital tools',
  dataDrivenMedia: 'made from data',
  screenCapture: 'a screen capture',
  virtualRecording: 'a recording of a virtual event',
};

export function sourceTypeText(uri: string): string {
  const term = printable(sourceTypeTerm(uri));
  const words = SOURCE_TYPE_WORDS[term];
  return words ? `${term} (${words})` : term;
}

export function utcText(iso: string): string {
  return printable(iso).replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC');
}

export function validationWords(match: Match, s: Style, options: ReportOptions): string | undefined {
  const v = match.claims?.validation;
  if (!v) return undefined;
  const codes = v.codes.filter((c) => c !== UNTRUSTED);
  if (v.state === 'trusted') return s.green('credential intact, signer chains to a trusted anchor');
  if (v.state === 'valid') {
    let signer: string;
    if (!v.codes.includes(UNTRUSTED)) signer = 'signer not checked against a trust list';
    // A remote result: the API decided with its own anchors (or none); ours played no part.
    else if (options.remote) signer = "signer not trusted by the API (it decides trust with its operator's anchors, if any)";
    else if (options.trustAnchors) signer = `signer is NOT on the trust lists in use (${UNTRUSTED})`;
    else if (options.trustAnchors === false) signer = 'signer not checked against a trust list (no trust anchors configured)';
    else signer = 'signer not checked against a trust list';
    const notes = codes.length ? `; notes: ${printable(codes.join(', '))}` : '';
    return `credential intact (hashes and signature match); ${signer}${notes}`;
  }
  const why = codes.length ? printable(`${[...new Set(codes.map((c) => explainCode(c).short))].join('; ')} (${codes.join(', ')})`) : 'changed after signing or badly signed (no code given)';
  return s.red(`credential INVALID: ${why}`);
}

export function aiWords(match: Match, details: C2paDetails | undefined, s: Style): string {
  const claims = match.claims!;
  const signal = aiSignal(claims, details?.sourceTypeAction);
  // An edit or composite whose own type is not an AI one, of an AI-made parent or part: the
  // picture contains AI-made content (a Gemini edit: c2pa.edited, composite; parent trainedAlgorithmicMedia).
  const ingredient = signal?.ai ? undefined : aiIngredientOf(details?.ingredients);
  // Every name here comes from the file (an action, a relationship, a source type): printable()
  // each, since the words around them carry the card's own colours.
  const named = (action: string | undefined) => (action ? `, named by its ${printable(action)} action` : '');
  if (ingredient) {
    const own = signal?.type ? `; the manifest's own type is ${sourceTypeText(signal.type)}${named(signal.action)}` : '';
    const which = `its ${printable(ingredient.relationship ?? 'componentOf')} ingredient${ingredient.title ? ` "${printable(ingredient.title)}"` : ''}`;
    return `${s.yellow('contains AI-generated content')}: ${which} is AI-generated (${printable(sourceTypeTerm(ingredient.digitalSourceType ?? 'com.adobe.generative-ai'))})${own}`;
  }
  if (!signal) {
    const fromIngredient = details && anyAiIngredient(details.ingredients) ? '; an ingredient is marked AI-generated (below)' : '';
    return s.dim(`not stated: the manifest names no digital source type${fromIngredient}`);
  }
  const by = signal.action ? named(signal.action) : ' (digital source type)';
  if (signal.rule === 'legacy_assertion') {
    const also = signal.type ? `; its source type is ${sourceTypeText(signal.type)}${by}` : '';
    return `${s.yellow('yes')}: the manifest carries the legacy com.adobe.generative-ai assertion${also}`;
  }
  return signal.ai ? `${s.yellow('yes')}: ${sourceTypeText(signal.type)}${by}` : `no: ${sourceTypeText(signal.type)}${by}`;
}

function anyAiIngredient(nodes: IngredientNode[]): boolean {
  return nodes.some((n) => n.aiGenerated === true || anyAiIngredient(n.children));
}

/**
 * The active manifest's C2PA signals in the rubric's own words ("Contains Fully GenAI Media"),
 * and which rubric said so; undefined when the signals were not evaluated (a remote result).
 * Raw: the caller escapes.
 */
export function signalWords(details: C2paDetails | undefined): string | undefined {
  const signals = details?.signals;
  const active = signals?.active === undefined ? undefined : signals.output.manifests[signals.active];
  if (!signals || !active) return undefined;
  const texts = [...active.localInceptions, ...active.localTransformations].map((s) => String(s.reportText));
  return `${texts.length ? texts.join('; ') : 'none raised'} (${String(signals.output.rubricName)} ${String(signals.output.rubricVersion)})`;
}

export function signerWords(match: Match, details: C2paDetails | undefined): string {
  const org = match.issuer ?? details?.signer.issuer;
  const cn = details?.signer.commonName;
  if (org && cn && cn !== org) return printable(`${org} (certificate: ${cn})`);
  if (org) return printable(org);
  return cn ? printable(`${cn} (the certificate names no organisation)`) : 'a certificate that names no organisation';
}

/** The signer's name as the certificate gives it (organisation, else common name), printable; undefined when it names neither. */
function signerName(match: Match, details: C2paDetails | undefined): string | undefined {
  const name = match.issuer ?? details?.signer.issuer ?? details?.signer.commonName;
  return name ? printable(name) : undefined;
}

/**
 * The head of the c2pa card: "signed by Adobe Inc. (trusted)" only for a signer that chains to
 * a trust anchor; any other signer's name is what its certificate claims ("signer claims to be
 * OpenAI OpCo, LLC (unverified)"), since anyone can make a certificate with any name.
 */
export function signerHead(match: Match, details: C2paDetails | undefined, bold: (s: string) => string = (x) => x): string {
  const name = signerName(match, details);
  if (!name) return 'signer names no organisation';
  return match.claims?.validation?.state === 'trusted' ? `signed by ${bold(name)} (trusted)` : `signer claims to be ${bold(name)} (unverified)`;
}

/**
 * The card's trust row, in words a non-expert can act on: whether the signer's certificate is on
 * the trust list in use (the C2PA Trust List, or an anchor you added), and if not, that the
 * name it shows is a claim.
 */
export function trustWords(match: Match, details: C2paDetails | undefined, s: Style, options: ReportOptions): string | undefined {
  const v = match.claims?.validation;
  if (!v) return undefined;
  const name = signerName(match, details);
  const claim = name ? `"${name}" is a name the signer gave itself` : 'the signer is unknown';
  if (v.state === 'trusted') {
    // A remote result (the CLI's API checks, the daemon's Verify page): the service decided.
    return options.remote
      ? s.green("trusted: the certificate is on the service's trust list (the C2PA Trust List, or an anchor its operator added)")
      : s.green('trusted: the certificate is on the trust list in use (the C2PA Trust List, or an anchor you added)');
  }
  if (v.state === 'invalid') return s.red(`not trusted: the credential is INVALID, so ${claim} and nothing in the manifest is vouched for`);
  const trustAnchors = details?.trustAnchors ?? options.trustAnchors;
  const why = options.remote
    ? "NOT trusted by the service: the certificate is not on its trust list"
    : trustAnchors === false
      ? 'not checked: no trust list in use'
      : 'NOT trusted: the certificate is not on the trust list';
  return `${s.yellow(why)}, so ${claim} (anyone can make a certificate with any name)`;
}

/** The conforming product row: a trusted signer's generator product on the C2PA Conforming Products List. */
export function productWords(match: Match): string | undefined {
  const p = match.claims?.conforming_product;
  if (!p) return undefined;
  const status = p.status === 'conformant' ? 'a conformant generator product' : `a generator product listed as ${p.status}`;
  return printable(`${p.product} by ${p.applicant}: ${status} on the C2PA Conforming Products List (assurance level ${p.max_assurance_level})`);
}

export function appWords(match: Match, details: C2paDetails | undefined): string | undefined {
  const generator = match.claims?.claim_generator || undefined;
  const named = [details?.device, ...(details?.softwareAgents ?? [])].filter((x): x is string => Boolean(x));
  if (!named.length) return generator && printable(generator);
  const first = [...new Set(named)].join(', ');
  return printable(generator && !named.includes(generator) ? `${first} (claim generator: ${generator})` : first);
}

const MAX_ACTIONS = 8;

export function actionWords(details: C2paDetails): string | undefined {
  if (!details.actions.length) return undefined;
  const shown = details.actions.slice(0, MAX_ACTIONS).map((a) => (a.digitalSourceType ? `${a.action} (${sourceTypeTerm(a.digitalSourceType)})` : a.action));
  const more = details.actions.length - shown.length;
  return printable(shown.join(', ') + (more > 0 ? `, and ${more} more` : ''));
}

export function ingredientLine(node: IngredientNode): string {
  const parts = [node.title ?? 'untitled'];
  if (node.relationship) parts.push(node.relationship);
  if (node.format) parts.push(node.format);
  if (!node.hasManifest) {
    parts.push('no credential');
  } else {
    if (node.aiGenerated === true) parts.push(`AI-generated (${sourceTypeTerm(node.digitalSourceType ?? 'com.adobe.generative-ai')})`);
    else if (node.digitalSourceType) parts.push(sourceTypeTerm(node.digitalSourceType));
    if (node.signer) parts.push(`signed by ${node.signer}`);
    parts.push(node.problems?.length ? `its credential is invalid (${node.problems.join(', ')})` : 'credential intact');
  }
  return printable(parts.join(' · '));
}

/** A depth-limited tree; `hidden` ingredients at this level are counted, not drawn. */
function ingredientTreeLines(nodes: IngredientNode[], hidden: number, prefix: string): string[] {
  const lines: string[] = [];
  nodes.forEach((node, i) => {
    const last = i === nodes.length - 1 && hidden <= 0;
    lines.push(`${prefix}${last ? '└─ ' : '├─ '}${ingredientLine(node)}`);
    if (node.children.length || node.omitted) {
      lines.push(...ingredientTreeLines(node.children, node.omitted ?? 0, prefix + (last ? '   ' : '│  ')));
    }
  });
  if (hidden > 0) lines.push(`${prefix}└─ ${hidden} more ingredient${hidden === 1 ? '' : 's'} (not shown)`);
  return lines;
}

export function explainLines(match: Match, details: C2paDetails | undefined): string[] {
  const codes = match.claims?.validation?.codes ?? [];
  if (!match.claims?.validation) return ['c2pa-rs gave no validation result'];
  if (!codes.length) {
    return [
      match.claims.validation.state === 'trusted'
        ? 'no validation codes: every check passed and the signer chains to a trusted anchor'
        : 'no validation codes: every check passed',
    ];
  }
  // What made the verdict first; the trust note last.
  const ordered = [...codes.filter((c) => c !== UNTRUSTED), ...codes.filter((c) => c === UNTRUSTED)];
  return ordered.flatMap((code) => {
    const own = details?.explanations[code];
    return [printable(`${code}: ${explainCode(code).sentence}`), ...(own ? [`  (c2pa-rs: ${printable(own)})`] : [])];
  });
}

function c2paCard(match: Match, s: Style, options: ReportOptions): string[] {
  const label = match.check.padEnd(LABEL_WIDTH);
  const indent = ' '.repeat(2 + LABEL_WIDTH);
  const claims = match.claims;
  // Everything the file supplies goes through printable(): an escape sequence in a signer's name
  // or a claim generator must not reach the terminal.
  const details = c2paDetails(claims);
  const signer = match.issuer ? signerHead(match, details, s.bold) : 'signer names no organisation';
  const tool = claims?.claim_generator ? `, made with ${printable(claims.claim_generator)}` : '';
  const lines = [`  ${label}${s.green('found')}: ${signer}${tool}`];
  if (!claims) return lines;
  const row = (name: string, value: string) => lines.push(`${indent}${name.padEnd(CARD_WIDTH)}${value}`);
  const more = (value: string) => lines.push(`${indent}${' '.repeat(CARD_WIDTH)}${value}`);

  row('AI-generated', aiWords(match, details, s));
  const signals = signalWords(details);
  if (signals) row('C2PA signals', printable(signals));
  row('signed by', signerWords(match, details));
  const trust = trustWords(match, details, s, options);
  if (trust) row('trust', trust);
  const product = productWords(match);
  if (product) row('product', product);
  row('signed at', claims.signed_at ? utcText(claims.signed_at) : s.dim('not stated (no time stamp: when it was signed is unknown)'));
  const app = appWords(match, details);
  if (app) row('app or device', app);
  const actions = details && actionWords(details);
  if (actions) row('actions', actions);
  if (claims.ingredients !== undefined) {
    row('ingredients', claims.ingredients === 0 ? 'none' : String(claims.ingredients));
    if (details) for (const l of ingredientTreeLines(details.ingredients, claims.ingredients - details.ingredients.length, '')) more(l);
  }
  const words = validationWords(match, s, { ...options, trustAnchors: details?.trustAnchors ?? options.trustAnchors });
  if (words) row('validation', words);
  if (options.explain) {
    const [first, ...rest] = explainLines(match, details);
    row('why', first!);
    for (const l of rest) more(l);
  }
  if (claims.assertions.length) row('assertions', s.dim(printable(claims.assertions.join(', '))));
  return lines;
}

function matchLines(match: Match, s: Style, options: ReportOptions): string[] {
  const label = match.check.padEnd(LABEL_WIDTH);
  const indent = ' '.repeat(2 + LABEL_WIDTH);
  if (match.result === 'unavailable') return [`  ${label}${s.yellow('unavailable')}: ${printable(match.reason ?? '')}`];
  if (match.result === 'not_found') return [`  ${label}${s.dim('not found')}${match.note ? s.dim(`: ${printable(match.note)}`) : ''}`];
  if (match.check === 'c2pa') return c2paCard(match, s, options);
  if (match.check === 'camera_reference') {
    const strength = match.confidence >= 0.9 ? 'make, maker note, model and iOS version agree' : 'make and maker note agree, another field points to an editor';
    return [
      `  ${label}${s.green('found')}: EXIF of an Apple iPhone/iPad camera (${strength}; confidence ${match.confidence})`,
      `${indent}${s.dim('a hint toward a camera capture: EXIF can be edited')}`,
    ];
  }
  if (match.check === 'generator_metadata' || match.check === 'invisible_watermark') {
    const { head, rows } = match.check === 'generator_metadata' ? generatorLines(match, s) : watermarkLines(match, s);
    return [`  ${label}${head}`, ...rows.map((row) => `${indent}${row}`)];
  }
  return [`  ${label}${s.green('found')} (confidence ${match.confidence})`];
}

export function hintLines(hints: Hints | undefined, s: Style): string[] {
  const type = hints?.iptc_digital_source_type;
  if (!type) return [];
  const ai = aiSignal({ digital_source_type: type, assertions: [] })?.ai;
  const verdict = ai ? `${s.yellow('says AI-generated')}: ` : '';
  return [
    `  ${'xmp hint'.padEnd(LABEL_WIDTH)}${verdict}IPTC digital source type ${sourceTypeText(type)}`,
    `${' '.repeat(2 + LABEL_WIDTH)}${s.dim('unsigned XMP metadata (Iptc4xmpExt:DigitalSourceType): anyone can write, edit or remove it')}`,
  ];
}

/** The verdict's line at the top of a card, and the disagreement's when checks disagree (issue 31). */
export function verdictLines(verdict: Verdict, s: Style): string[] {
  const line = printable(verdictLine(verdict));
  const lines = [`  ${verdict.ai === 'none_found' ? s.dim(line) : s.bold(s.yellow(line))}`];
  const disagreement = disagreementLine(verdict);
  if (disagreement) lines.push(`  ${s.red(printable(disagreement))}`);
  return lines;
}

export function formatResult(source: string, result: DetectionResult, s: Style, options: ReportOptions = {}): string {
  const lines = [s.bold(printable(shortPath(source))), ...verdictLines(verdictOf(result, undefined, options.hints), s)];
  lines.push(`  ${s.dim(printable(`${result.media.type} · ${formatBytes(result.media.bytes)} · sha256 ${result.media.sha256}`))}`);
  // Planned detectors share one line. Their status comes from the catalogue, not from the words
  // of the reason (an API's wording may differ); a check the catalogue lacks is shown on its own.
  const planned = result.matches.filter((m) => m.result === 'unavailable' && CATALOGUE.find((d) => d.id === m.check)?.status === 'planned');
  for (const match of result.matches) {
    if (!planned.includes(match)) lines.push(...matchLines(match, s, options));
  }
  lines.push(...hintLines(options.hints, s));
  if (planned.length) {
    lines.push(`  ${'planned'.padEnd(LABEL_WIDTH)}${s.dim(`${planned.map((m) => m.check).join(', ')}: not available yet`)}`);
  }
  return `${lines.join('\n')}\n\n`;
}

export function formatError(source: string, error: ErrorInfo, s: Style): string {
  // A file stopped at the pool's time limit was read, and checked for that long: not unreadable.
  const what = error.type === 'timeout' ? 'could not be checked' : 'could not be read';
  return `${s.bold(printable(shortPath(source)))}\n  ${s.red(what)}: ${printable(error.message)} (${printable(error.type)})\n\n`;
}

/** The closing summary line of a readable report, and the caveat. */
export function formatSummary(stats: ScanStats, s: Style): string {
  const files = `${stats.checked} file${stats.checked === 1 ? '' : 's'} checked`;
  const unreadable = stats.unreadable ? `, ${s.red(`${stats.unreadable} could not be read`)}` : '';
  const found = Object.keys(stats.checks)
    .filter((check) => stats.found(check) > 0)
    .map((check) => {
      const extra = check === 'c2pa' && stats.c2paInvalid ? ` (${stats.c2paInvalid} invalid)` : '';
      return `${check} found in ${stats.found(check)}${extra}`;
    });
  const foundText = found.length ? `; ${found.join(', ')}` : '; no marker found';
  return `${s.bold(files)}${unreadable}${foundText}.\n${s.dim(CAVEAT)}\n`;
}
